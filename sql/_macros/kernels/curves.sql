{#
  Shared CTEs of the score curves (roc_curve, pr_curve, average_precision).

  curve_points(relation, by, columns, options): CTEs (columns: label, score, weight or none;
  options: pos_label) source -> per_score -> cumulated
    source:     canonical columns, the score in its own type (ordered exactly: integers above
                2^53 stay distinct; thresholds are cast to double only for output); with
                weight, rows of weight 0 are dropped (they move no
                point of a curve but would add a threshold; scikit-learn drops them too).
    per_score:  one row per distinct score s of a slice: w_pos, w_neg = (weighted) number of
                positive / negative rows with score = s.
    cumulated:  per_score plus, in descending score order (distinct scores: a total order),
                tp, fp = (weighted) number of positive / negative rows with score >= s, and
                n_pos, n_neg = their slice totals (the last, largest cumulative values: a max,
                so no float sum depends on row order); w_pos_exp = sum_exponent of w_pos over
                the slice.
  Float sums of weights are exact_sums (decision 0006); the cumulative window sums run over
  distinct scores in a total order, so shuffled input gives bit-identical results.
  With columns.multiplicity (merge's count per state row, sql/_macros/shared/state.sql) the per-score
  sums count each row m times: sum(label * m) and sum(m) - sum(label * m), the weights'
  exact_sums with m: the same integers as over the rows replayed, so the same bits.

  Spark (spark__curve_points, spark__curve_neighbours, spark__curve_thinned): the same CTEs
  with no window over a whole slice. Per-score sums are integers (counts; with weights, fixed
  point: units of 2^(e - 80), e = greatest(w_exp, -940), exactly the terms exact_sum adds),
  tp and fp are running sums of them over score buckets (auc_prefixed, sql/_macros/kernels/auc.sql),
  exact, then converted to double once; the neighbours of a point come from the same sums
  (prev = sums over the higher scores, next = this point plus the next score's sums, the next
  bucket's first score at a bucket's end), and thinning keeps the lowest score of each
  quantile bucket through an aggregate. Without weights every value equals the default's;
  with weights tp and fp are the exact running sums where the default adds doubles in score
  order (they agree to about 1e-16 relative; a drop_intermediate test of equal steps can
  differ where the default's running sum rounds, e.g. weights of 0.1).
#}

{% macro curve_points(relation, by, columns, options) -%}
{{ adapter.dispatch('curve_points', 'sqlmetrics')(relation, by, columns, options) }}
{%- endmacro %}

{% macro default__curve_points(relation, by, columns, options) -%}
source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        {{ sqlmetrics.score_value(columns.score) }} as score,
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else '1' }} as w{{ ',' if columns.weight }}
{% if columns.weight %}
        {{ sqlmetrics.source_sum_exponent('cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')', by) }} as w_exp
{% endif %}
    from {{ relation }}
{% if columns.weight %}
    where {{ columns.weight }} > 0
{% endif %}
),
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
{% if columns.weight %}
        {{ sqlmetrics.exact_sum('case when label = 1 then w else 0 end', 'w_exp', sqlmetrics.multiplicity(columns)) }} as w_pos,
        {{ sqlmetrics.exact_sum('case when label = 0 then w else 0 end', 'w_exp', sqlmetrics.multiplicity(columns)) }} as w_neg
{% elif columns.get('multiplicity') %}
        sum(label * m) as w_pos,
        sum(m) - sum(label * m) as w_neg
{% else %}
        sum(label) as w_pos,
        count(*) - sum(label) as w_neg
{% endif %}
    from source
    {{ sqlmetrics.group_by(by, ['score']) }}
),
cumulative as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        w_pos,
        w_neg,
        sum(w_pos) over (
            {{ sqlmetrics.window(by, 'score desc') }} rows between unbounded preceding and current row
        ) as tp,
        sum(w_neg) over (
            {{ sqlmetrics.window(by, 'score desc') }} rows between unbounded preceding and current row
        ) as fp
    from per_score
),
cumulated as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        w_pos,
        w_neg,
        tp,
        fp,
        max(tp) over ({{ sqlmetrics.partition_by(by) }}) as n_pos,
        max(fp) over ({{ sqlmetrics.partition_by(by) }}) as n_neg,
        {{ sqlmetrics.sum_exponent('w_pos', by) }} as w_pos_exp
    from cumulative
)
{%- endmacro %}

{#
  `neighbours`: cumulated plus the previous / next point's tp and fp in descending score order
  (NULL at the ends), for the drop_intermediate rules.
#}
{% macro curve_neighbours(by) -%}
{{ adapter.dispatch('curve_neighbours', 'sqlmetrics')(by) }}
{%- endmacro %}

{% macro default__curve_neighbours(by) -%}
neighbours as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score, tp, fp, n_pos, n_neg,
        {{ sqlmetrics.lag_or_null('tp', by, 'score desc') }} as prev_tp,
        {{ sqlmetrics.lead_or_null('tp', by, 'score desc') }} as next_tp,
        {{ sqlmetrics.lag_or_null('fp', by, 'score desc') }} as prev_fp,
        {{ sqlmetrics.lead_or_null('fp', by, 'score desc') }} as next_fp
    from cumulated
)
{%- endmacro %}

{#
  `thinned`: at most `slots` of the rows of `kept` per slice, chosen by score quantiles.
  A point with cumulative (weighted) row count tp + fp = c out of n = n_pos + n_neg falls in
  bucket ceil(c * slots / n) (1..slots); the point with the largest c of each bucket is kept.
  So the k-th kept point is the lowest threshold at which at most a share k / slots of the rows
  is predicted positive: thresholds at the row quantiles 1/slots, 2/slots, ..., 1 of the score.
  Every kept point is an exact point of the full curve; the last point (all rows predicted
  positive) is always kept. Without slots (max_points = none) `thinned` is `kept`.
#}
{% macro curve_thinned(by, slots) -%}
{{ adapter.dispatch('curve_thinned', 'sqlmetrics')(by, slots) }}
{%- endmacro %}

{% macro default__curve_thinned(by, slots) -%}
{% if slots is none %}
thinned as (
    select * from kept
)
{% else %}
bucketed as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score, tp, fp, n_pos, n_neg,
        ceil(cast(tp + fp as {{ sqlmetrics.float_type() }}) * {{ slots }} / cast(n_pos + n_neg as {{ sqlmetrics.float_type() }})) as bucket
    from kept
),
thinned as (
    select {{ sqlmetrics.slice_cols(by) }} score, tp, fp, n_pos, n_neg
    from (
        select
            {{ sqlmetrics.slice_cols(by) }}
            score, tp, fp, n_pos, n_neg, bucket,
            {{ sqlmetrics.lead_or_null('bucket', by, 'score desc') }} as next_bucket
        from bucketed
    ) as b
    where next_bucket is null or next_bucket <> bucket
)
{% endif %}
{%- endmacro %}

{# one row per slice: its totals, for the point at threshold +infinity #}
{% macro curve_totals(by) -%}
totals as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        max(n_pos) as n_pos,
        max(n_neg) as n_neg
    from cumulated
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}


{# a running sum in per-score units as a double: units of 2^(e - 80) with weights #}
{% macro curve_units(x, weighted) -%}
{% if weighted %}cast({{ x }} as {{ sqlmetrics.float_type() }}) * power({{ sqlmetrics.float_literal(2) }}, e - 80){% else %}{{ x }}{% endif %}
{%- endmacro %}

{% macro spark__curve_points(relation, by, columns, options) -%}
{% set weighted = columns.weight is not none %}
source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        {{ sqlmetrics.score_value(columns.score) }} as score,
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if weighted else '1' }} as w
    from {{ relation }}
{% if weighted %}
    where {{ columns.weight }} > 0
{% endif %}
),
{% if weighted %}
-- e = the slice's sum_exponent of the weights: an aggregate joined back
exponents as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as e_slice_{{ loop.index0 }}, {% endfor %}

        greatest({{ sqlmetrics.auc_exponent('max(abs(w))') }}, -940) as e
    from source
    {{ sqlmetrics.group_by(by) }}
),
per_score as (
    select {{ sqlmetrics.auc_broadcast('exponents') }}
        {{ sqlmetrics.slice_cols(by) }}
        score,
        max(e) as e,
{% set times = ' * m' if columns.get('multiplicity') else '' %}
        sum({{ sqlmetrics.exact_int_of('round(case when label = 1 then w else 0 end * power(' ~ sqlmetrics.float_literal(2) ~ ', 80 - e))') }}{{ times }}) as pos,
        sum({{ sqlmetrics.exact_int_of('round(case when label = 0 then w else 0 end * power(' ~ sqlmetrics.float_literal(2) ~ ', 80 - e))') }}{{ times }}) as neg
    from source
{% if by %}
    join exponents on {{ sqlmetrics.auc_join_slices(by, 'e_') }}
{% else %}
    cross join exponents
{% endif %}
    {{ sqlmetrics.group_by(by, ['score']) }}
),
{% else %}
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
{% if columns.get('multiplicity') %}
        sum(label * m) as pos,
        sum(m) - sum(label * m) as neg
{% else %}
        sum(label) as pos,
        count(*) - sum(label) as neg
{% endif %}
    from source
    {{ sqlmetrics.group_by(by, ['score']) }}
),
{% endif %}
{{ sqlmetrics.auc_prefixed('per_score', by, ['pos', 'neg'], ['pos'], ['pos', 'neg'], 'desc') }},
cumulated as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        {{ sqlmetrics.curve_units('pos', weighted) }} as w_pos,
        {{ sqlmetrics.curve_units('neg', weighted) }} as w_neg,
        {{ sqlmetrics.curve_units('pos_before + pos', weighted) }} as tp,
        {{ sqlmetrics.curve_units('neg_before + neg', weighted) }} as fp,
        {{ sqlmetrics.curve_units('pos_total', weighted) }} as n_pos,
        {{ sqlmetrics.curve_units('neg_total', weighted) }} as n_neg,
        {{ sqlmetrics.auc_exponent(sqlmetrics.curve_units('pos_max', weighted)) }} as w_pos_exp,
        -- the neighbouring points in descending score order (NULL at the ends)
        case when not is_first then {{ sqlmetrics.curve_units('pos_before', weighted) }} end as prev_tp,
        case when not is_first then {{ sqlmetrics.curve_units('neg_before', weighted) }} end as prev_fp,
        {{ sqlmetrics.curve_units('pos_before + pos + next_pos', weighted) }} as next_tp,
        {{ sqlmetrics.curve_units('neg_before + neg + next_neg', weighted) }} as next_fp
    from (
        select
            prefixed.*,
            not has_prev_bucket and lag(score) over ({{ sqlmetrics.window(by, 'score desc', ['bucket']) }}) is null
                as is_first,
            coalesce(lead(pos) over ({{ sqlmetrics.window(by, 'score desc', ['bucket']) }}), pos_next) as next_pos,
            coalesce(lead(neg) over ({{ sqlmetrics.window(by, 'score desc', ['bucket']) }}), neg_next) as next_neg
        from prefixed
    ) as edges
)
{%- endmacro %}

{% macro spark__curve_neighbours(by) -%}
neighbours as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score, tp, fp, n_pos, n_neg, prev_tp, next_tp, prev_fp, next_fp
    from cumulated
)
{%- endmacro %}

{# as default__curve_thinned: the last point (lowest score) of each quantile bucket, found by an aggregate #}
{% macro spark__curve_thinned(by, slots) -%}
{% if slots is none %}
thinned as (
    select * from kept
)
{% else %}
thin_points as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score, tp, fp, n_pos, n_neg,
        ceil(cast(tp + fp as {{ sqlmetrics.float_type() }}) * {{ slots }} / cast(n_pos + n_neg as {{ sqlmetrics.float_type() }})) as thin_bucket
    from kept
),
thin_last as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as t_slice_{{ loop.index0 }}, {% endfor %}

        thin_bucket as t_bucket,
        min(score) as t_score
    from thin_points
    {{ sqlmetrics.group_by(by, ['thin_bucket']) }}
),
thinned as (
    select {{ sqlmetrics.auc_broadcast('thin_last') }} {{ sqlmetrics.slice_cols(by) }} score, tp, fp, n_pos, n_neg
    from thin_points
    join thin_last
        on {{ sqlmetrics.auc_join_slices(by, 't_') }}{{ ' and ' if by }}thin_bucket = t_bucket and score = t_score
)
{% endif %}
{%- endmacro %}

{#
  curve_pooled_ap_terms(by): the CTEs `cumulated`, `terms`, `scaled` of
  multilabel_average_precision's pooled (micro) AP, after its `per_score` (slices, s, pos,
  cnt): tp, n_at = positives and rows scoring >= s, term = pos tp / n_at, term_exp = the
  slice's sum_exponent of term.
  Spark: tp and n_at are running sums over score buckets (auc_prefixed, exact integers, so
  the same terms), term_exp a per-slice aggregate joined back (with_slice_exponents): no
  window over a whole slice.
#}
{% macro curve_pooled_ap_terms(by) -%}
{{ adapter.dispatch('curve_pooled_ap_terms', 'sqlmetrics')(by) }}
{%- endmacro %}

{% macro default__curve_pooled_ap_terms(by) -%}
cumulated as (
    select
        per_score.*,
        sum(pos) over ({{ sqlmetrics.window(by, 's desc') }} rows between unbounded preceding and current row) as tp,
        sum(cnt) over ({{ sqlmetrics.window(by, 's desc') }} rows between unbounded preceding and current row) as n_at
    from per_score
),
terms as (
    select
        cumulated.*,
        cast(pos as {{ sqlmetrics.float_type() }}) * tp / n_at as term
    from cumulated
),
scaled as (
    select
        terms.*,
        {{ sqlmetrics.sum_exponent('term', by) }} as term_exp
    from terms
)
{%- endmacro %}

{% macro spark__curve_pooled_ap_terms(by) -%}
pooled_scores as (
    select
        per_score.*,
        s as score
    from per_score
),
{{ sqlmetrics.auc_prefixed('pooled_scores', by, ['pos', 'cnt'], [], [], 'desc') }},
terms as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        s,
        pos,
        cnt,
        pos_before + pos as tp,
        cnt_before + cnt as n_at,
        cast(pos as {{ sqlmetrics.float_type() }}) * (pos_before + pos) / (cnt_before + cnt) as term
    from prefixed
),
{{ sqlmetrics.with_slice_exponents('scaled', 'terms', by, [('term_exp', 'term')]) }}
{%- endmacro %}
