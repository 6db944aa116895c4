{#
  auc: area under the ROC curve, as the Mann-Whitney U statistic.
     AUC = (sum_{i: label_i = 1} r_i - P (P + 1) / 2) / (P N)
  r_i: rank of score_i among all rows of the slice, ascending, tied scores sharing the mean
  of the ranks they span (average ranks), so a tied positive/negative pair counts 1/2;
  P, N: number of positive and negative rows. Equals scikit-learn's roc_auc_score.
  With weight w (sample weights, scikit-learn's sample_weight):
     AUC = sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) / (W_pos W_neg)
  computed per distinct score s as sum_s wpos_s (Wneg_{<s} + wneg_s / 2) / (W_pos W_neg),
  with every weight first divided by 2^E, E = ceil(log2 max w) of the slice: an exact scaling
  that cancels in the ratio and keeps W_pos W_neg finite for weights from 1e-300 to 1e300.
  Formulation (unweighted): average ranks from one window sort (sql/_macros/kernels/auc.sql).
  Spark (spark__auc_kernel): the same numbers without a window over a whole slice. Unweighted:
  the rows are cut into score buckets (approximate quantiles of a sample, auc_row_buckets in
  sql/_macros/kernels/auc.sql; tied scores share a bucket), average ranks inside each bucket from one
  sort per (slice, bucket) partition, and per bucket k
     2U_k = sum_{pos in k} (rank_lo + rank_hi) - P_k (P_k + 1)
     2U = sum_k (2U_k + 2 P_k N_{<k})           AUC = U / (P N)
  (N_{<k}: negatives of the earlier buckets, a running sum over the small bucket table);
  exact integers, so AUC is the same correctly rounded quotient as the rank formulation.
  Weighted: per (slice, score) fixed-point sums (weights scaled to [0, 1], units 2^-80), the
  negatives scored below each score as distributed running sums over score buckets
  (auc_prefixed).
  Weighted sums are exact_sums (fixed point, decision 0006): shuffled input and any thread
  count give bit-identical results.
  Scores are ranked in their own type (never cast): integers above 2^53 keep their order.
  Undefined: P = 0 or N = 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns auc, n_pos, n_neg (weighted: sums of weights).
  Oracle: tests/oracle/classification.py::auc
#}
{% macro auc_kernel(relation, by, columns, options, entries) -%}
{{ adapter.dispatch('auc_kernel', 'sqlmetrics')(relation, by, columns, options, entries) }}
{%- endmacro %}

{% macro default__auc_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        {{ sqlmetrics.score_value(columns.score) }} as score{{ ',' if columns.weight or columns.get('multiplicity') }}
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m{{ ',' if columns.weight }}
{% endif %}
{% if columns.weight %}
        cast({{ columns.weight }} as {{ sqlmetrics.float_type() }}) as w
{% endif %}
    from {{ relation }}
),
{% if columns.weight %}
-- weights scaled by 2^-w_exp (exact), w_exp = ceil(log2 max w): scaled weights lie in [0, 1]
scaled as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        label,
        score,
{% if columns.get('multiplicity') %}
        m,
{% endif %}
        {{ sqlmetrics.ldexp('w', '-w_exp') }} as w,
        w_exp
    from (
        select
            source.*,
            coalesce({{ sqlmetrics.sum_exponent('w', by) }}, 0) as w_exp
        from source
    ) as exponents
),
{% endif %}
{% if not columns.weight %}
{{ sqlmetrics.auc_rank_sums(by, [], sqlmetrics.multiplicity(columns)) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.auc_mann_whitney() }} as {{ entry.alias }},
{% endfor %}
        n_pos,
        n_neg
    from rank_sums
)
{% else %}
{{ sqlmetrics.auc_weighted_tail(by, columns, entries) }}
{% endif %}
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{# default__auc_kernel's weighted stages after `scaled`: per (slice, score) fixed-point sums,
   the negatives below each score, the exact pair sum (the header's weighted formula) #}
{% macro auc_weighted_tail(by, columns, entries) -%}
-- per (slice, score, label): the label's weights as a fixed-point sum (units 2^-80, as
-- exact_sum(w, 0); without its plain-sum fallback, which only a group of NULL terms reaches
-- and which is then NULL too); w_exp is constant per slice, so a key, not an aggregate
per_label as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        label,
        w_exp,
        {{ sqlmetrics.auc_fixed_sum('w', sqlmetrics.multiplicity(columns)) }} as w_sum
    from scaled
    {{ sqlmetrics.group_by(by, ['score', 'label', 'w_exp']) }}
),
-- per (slice, score): the one positive and the one negative sum (x + 0 = x, exactly); two
-- narrow aggregates instead of one with two 128-bit sums: DuckDB 2.0.1 reserves memory for
-- a hash aggregate in proportion to its row width and no longer caps that reservation at
-- memory_limit, so the wide one ran out of memory at 40 MB on 2M scores (tests/test_numerics.py)
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        w_exp,
        sum(case when label = 1 then w_sum else 0 end) as w_pos,
        sum(case when label = 0 then w_sum else 0 end) as w_neg
    from per_label
    {{ sqlmetrics.group_by(by, ['score', 'w_exp']) }}
),
cumulative as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        w_exp,
        w_pos,
        w_neg,
        sum(w_neg) over (
            {{ sqlmetrics.window(by, 'score') }} rows between unbounded preceding and current row
        ) as w_neg_upto
    from per_score
),
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        w_exp,
        w_pos,
        w_neg,
        w_neg_upto - w_neg as w_neg_below,
        {{ sqlmetrics.sum_exponent('w_pos', by) }} as pos_exp,
        {{ sqlmetrics.sum_exponent('w_neg', by) }} as neg_exp,
        {{ sqlmetrics.sum_exponent('w_pos * w_neg_upto', by) }} as pairs_exp
    from cumulative
),
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        max(w_exp) as w_exp,
        {{ sqlmetrics.exact_sum('w_pos', 'pos_exp') }} as pos_sum,
        {{ sqlmetrics.exact_sum('w_neg', 'neg_exp') }} as neg_sum,
        {{ sqlmetrics.exact_sum('w_pos * (w_neg_below + w_neg / 2)', 'pairs_exp') }} as pairs
    from ranked
    {{ sqlmetrics.group_by(by) }}
),
{{ sqlmetrics.auc_weighted_final(by, entries) }}
{%- endmacro %}


{# the weighted AUC of each slice from per_slice (w_exp, pos_sum, neg_sum, pairs: scaled
   sums), and its weights of positives and negatives scaled back; default and spark #}
{% macro auc_weighted_final(by, entries) -%}
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        pairs / nullif(pos_sum * neg_sum, 0) as {{ entry.alias }},
{% endfor %}
        {{ sqlmetrics.ldexp('pos_sum', 'w_exp') }} as n_pos,
        {{ sqlmetrics.ldexp('neg_sum', 'w_exp') }} as n_neg
    from per_slice
)
{%- endmacro %}


{% macro spark__auc_kernel(relation, by, columns, options, entries) -%}
{% set two80 = 'power(' ~ sqlmetrics.float_literal(2) ~ ', 80)' %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        {{ sqlmetrics.score_value(columns.score) }} as score{{ ',' if columns.weight }}
{% if columns.weight %}
        cast({{ columns.weight }} as {{ sqlmetrics.float_type() }}) as w
{% endif %}
    from {{ relation }}
),
{% if not columns.weight %}
{{ sqlmetrics.auc_row_buckets('source', by) }},
-- rank2: twice the average rank of the row's score among its bucket's rows (rank_lo + rank_hi),
-- one sort per (slice, bucket) partition
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bucket,
        label,
        rank() over ({{ sqlmetrics.window(by, 'score', ['bucket']) }})
            + count(*) over (
                {{ sqlmetrics.window(by, 'score', ['bucket']) }} range between unbounded preceding and current row
            ) as rank2
    from row_bucketed
),
per_bucket as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bucket,
        sum(label) as pos,
        count(*) - sum(label) as neg,
        -- twice the bucket's own Mann-Whitney U: an exact integer
        {{ sqlmetrics.int_sum('case when label = 1 then rank2 else 0 end') }} - {{ sqlmetrics.int_sum('label') }} * (sum(label) + 1) as u2_in
    from ranked
    {{ sqlmetrics.group_by(by, ['bucket']) }}
),
-- the negatives of the earlier buckets: every one scored below every row of this bucket
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast(sum(pos) as {{ sqlmetrics.float_type() }}) as n_pos,
        cast(sum(neg) as {{ sqlmetrics.float_type() }}) as n_neg,
        cast(sum(u2_in + 2 * cast(pos as {{ sqlmetrics.exact_int() }}) * neg_before) as {{ sqlmetrics.float_type() }}) as u2
    from (
        select
            per_bucket.*,
            coalesce(sum(neg) over (
                {{ sqlmetrics.window(by, 'bucket') }} rows between unbounded preceding and 1 preceding
            ), 0) as neg_before
        from per_bucket
    ) as prefixed
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        u2 / 2 / nullif(n_pos * n_neg, 0) as {{ entry.alias }},
{% endfor %}
        n_pos,
        n_neg
    from per_slice
)
{% else %}
-- w_exp = ceil(log2 max w) per slice: an aggregate joined back (no window over the slice)
exponents as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as e_slice_{{ loop.index0 }}, {% endfor %}

        coalesce({{ sqlmetrics.auc_exponent('max(abs(w))') }}, 0) as w_exp
    from source
    {{ sqlmetrics.group_by(by) }}
),
-- weights scaled by 2^-w_exp (exact): scaled weights lie in [0, 1]
scaled as (
    select {{ sqlmetrics.auc_broadcast('exponents') }}
        {{ sqlmetrics.slice_cols(by) }}
        label,
        score,
        {{ sqlmetrics.ldexp('w', '-w_exp') }} as w,
        w_exp
    from source
{% if by %}
    join exponents on {{ sqlmetrics.auc_join_slices(by, 'e_') }}
{% else %}
    cross join exponents
{% endif %}
),
-- per score: scaled weights in fixed point, integer units of 2^-80 (as exact_sum(., 0))
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        max(w_exp) as w_exp,
        sum({{ sqlmetrics.exact_int_of('round(case when label = 1 then w else 0 end * ' ~ two80 ~ ')') }}) as pos,
        sum({{ sqlmetrics.exact_int_of('round(case when label = 0 then w else 0 end * ' ~ two80 ~ ')') }}) as neg
    from scaled
    {{ sqlmetrics.group_by(by, ['score']) }}
),
{{ sqlmetrics.auc_prefixed('per_score', by, ['neg', 'pos']) }},
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        w_exp,
        cast(pos as {{ sqlmetrics.float_type() }}) / {{ two80 }} as w_pos,
        cast(neg as {{ sqlmetrics.float_type() }}) / {{ two80 }} as w_neg,
        cast(neg_before as {{ sqlmetrics.float_type() }}) / {{ two80 }} as w_neg_below,
        cast(pos_total as {{ sqlmetrics.float_type() }}) / {{ two80 }} as n_pos,
        cast(neg_total as {{ sqlmetrics.float_type() }}) / {{ two80 }} as n_neg,
        -- each term w_pos (w_neg_below + w_neg / 2) <= n_pos n_neg
        {{ sqlmetrics.auc_exponent('cast(pos_total as ' ~ sqlmetrics.float_type() ~ ') / ' ~ two80) }}
            + {{ sqlmetrics.auc_exponent('cast(neg_total as ' ~ sqlmetrics.float_type() ~ ') / ' ~ two80) }} as pairs_exp
    from prefixed
),
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        max(w_exp) as w_exp,
        max(n_pos) as pos_sum,
        max(n_neg) as neg_sum,
        {{ sqlmetrics.exact_sum('w_pos * (w_neg_below + w_neg / 2)', 'pairs_exp') }} as pairs
    from ranked
    {{ sqlmetrics.group_by(by) }}
),
{{ sqlmetrics.auc_weighted_final(by, entries) }}
{% endif %}
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}


{# exact_sum(expr, 0) without the plain-sum fallback: terms in [0, 1], units of 2^-80; m: as
   exact_sum's (each term times the row's count) #}
{% macro auc_fixed_sum(expr, m=none) -%}
cast(sum({{ sqlmetrics.exact_int_of('round((' ~ expr ~ ') * power(' ~ sqlmetrics.float_literal(2) ~ ', 80))') }}{{ ' * ' ~ m if m }}) as {{ sqlmetrics.float_type() }}) * power({{ sqlmetrics.float_literal(2) }}, -80)
{%- endmacro %}
