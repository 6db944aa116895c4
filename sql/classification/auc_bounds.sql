{#
  auc_bounds: ROC AUC estimated from a score histogram, with lower and upper bounds that
  provably contain the exact AUC (the one sql/classification/auc.sql computes).
  Buckets: per slice, with lo = min(score), hi = max(score), B = bins,
     b(s) = least(floor((s/2 - lo/2) / (hi/2 - lo/2) * B), B - 1)     (b = 0 when hi = lo)
  Each floating-point step is correctly rounded, hence monotone, so s_i > s_j implies
  b_i >= b_j and s_i = s_j implies b_i = b_j; halving first keeps hi - lo finite for any
  finite scores; the ratio lies in [0, 1], so b lies in [0, B - 1] (the maximum lands in the
  last bucket through least()). For B a power of two, the buckets of 2B refine those of B
  (multiplying by 2 is exact), so the bounds nest as bins doubles.
  One aggregation pass counts pos_b, neg_b per bucket (sums of weights with `weight`). Then,
  with P = sum pos_b, N = sum neg_b, neg_<b = sum_{c < b} neg_c:
     D = sum_b pos_b neg_<b      pairs in different buckets, ordered correctly: counted exactly
     S = sum_b pos_b neg_b       pairs in the same bucket: each counts 1/2 in the estimate
     auc_bounds (estimate) = (D + S / 2) / (P N)
     lower = D / (P N)    upper = (D + S) / (P N)    upper - estimate = estimate - lower
                                                     = S / (P N) / 2
  The exact AUC counts a same-bucket pair between 0 and 1, so lower <= AUC <= upper. Without
  weights D, S, P N are exact integers and each output is one correctly rounded division, so
  the containment holds for the returned doubles too (rounding is monotone); with weights it
  holds up to floating-point rounding of the weighted sums, which are exact_sums (decision
  0006): bit-identical under any row order and thread count. Weights are first divided by
  2^E, E = ceil(log2 max w) of the slice (exact; cancels in every ratio; n_pos, n_neg are
  scaled back), so weights from 1e-300 to 1e300 neither overflow nor underflow P N.
  Undefined: P = 0 or N = 0 -> NULL in all three (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns auc_bounds (the estimate), lower, upper, n_pos, n_neg
  (weighted: sums of weights).
  Oracle: tests/oracle/bounds.py (exact AUC: tests/oracle/classification.py::auc)
#}
{# `"day" as e_slice_0, ...`: the extent's own names, so the join below is unambiguous #}
{% macro auc_bounds_extent_slices(by) -%}
{% for col in by %}{{ col }} as e_slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}

{% macro auc_bounds_extent_group_by(by) -%}
{% if by %}group by {{ by | join(', ') }}{% endif %}
{%- endmacro %}

{% macro auc_bounds_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as score{{ ',' if columns.weight }}
{% if columns.weight %}
        cast({{ columns.weight }} as {{ sqlmetrics.float_type() }}) as w
{% endif %}
    from {{ relation }}
),
extent as (
    -- read from the relation itself, not from `source`: `source` is then used once and
    -- streamed instead of materialised, and min/max may come from file statistics
    select
        {{ sqlmetrics.auc_bounds_extent_slices(by) }}
        min(cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }})) / 2 as lo_half,
        max(cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }})) / 2 - min(cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }})) / 2 as width_half{{ ',' if columns.weight }}
{% if columns.weight %}
        -- w_exp = ceil(log2 max w) of the slice: an aggregate here, not a window over the rows
        coalesce({{ sqlmetrics.auc_exponent('max(abs(cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')))') }}, 0) as w_exp
{% endif %}
    from {{ relation }}
    {{ sqlmetrics.auc_bounds_extent_group_by(by) }}
),
bucketed as (
    select {{ sqlmetrics.auc_broadcast('extent') }}
        {{ sqlmetrics.slice_cols(by) }}
        label,
{% if columns.weight %}
        -- scaled by 2^-w_exp (exact): weights in [0, 1], products of sums stay finite
        {{ sqlmetrics.ldexp('w', '-w_exp') }} as w,
        w_exp,
{% endif %}
        case
            when width_half = 0 then 0
            else least(
                cast(floor((score / 2 - lo_half) / width_half * {{ options.bins }}) as bigint),
                {{ options.bins - 1 }}
            )
        end as bucket
    from source
{% if by %}
    join extent
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('slice_' ~ loop.index0, 'e_slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}

{% else %}
    cross join extent
{% endif %}
),
{{ sqlmetrics.auc_bounds_counted(by, columns, options, entries) }}
{%- endmacro %}

{#
  auc_bounds_counted(by, columns, options, entries): the CTEs from per_bucket on and the final
  select, over a CTE `bucketed` (slice_0.., label 0/1, bucket; with columns.weight also w,
  w_exp): the counts, D, S and the bounds of the header. Any bucket that is a non-decreasing
  function of the score certifies the bounds: the kernel's equal-width buckets, a rounded
  state's rounded scores (state_auc_bounds, sql/_macros/shared/state.sql).
#}
{% macro auc_bounds_counted(by, columns, options, entries) -%}
per_bucket as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bucket,
{% if columns.weight %}
        max(w_exp) as w_exp,
        {{ sqlmetrics.exact_sum('case when label = 1 then w else 0 end', '0') }} as pos_b,
        {{ sqlmetrics.exact_sum('case when label = 0 then w else 0 end', '0') }} as neg_b
{% elif columns.get('multiplicity') %}
        sum(label * m) as pos_b,
        sum(m) - sum(label * m) as neg_b
{% else %}
        sum(label) as pos_b,
        count(*) - sum(label) as neg_b
{% endif %}
    from bucketed
    {{ sqlmetrics.group_by(by, ['bucket']) }}
),
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% if columns.weight %}
        w_exp,
{% endif %}
        pos_b,
        neg_b,
        sum(neg_b) over (
            {{ sqlmetrics.window(by, 'bucket') }} rows between unbounded preceding and current row
        ) - neg_b as neg_below{{ ',' if columns.weight }}
{% if columns.weight %}
        {{ sqlmetrics.sum_exponent('pos_b', by) }} as pos_exp,
        {{ sqlmetrics.sum_exponent('neg_b', by) }} as neg_exp
{% endif %}
    from per_bucket
),
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% if columns.weight %}
        max(w_exp) as w_exp,
        {{ sqlmetrics.exact_sum('pos_b', 'pos_exp') }} as pos_sum,
        {{ sqlmetrics.exact_sum('neg_b', 'neg_exp') }} as neg_sum,
        {# neg_below <= bins * max neg_b: log2(bins) more bits of room #}
        {{ sqlmetrics.exact_sum('pos_b * neg_below', 'pos_exp + neg_exp + ' ~ (options.bins - 1).bit_length()) }}
            as pairs_diff,
        {{ sqlmetrics.exact_sum('pos_b * neg_b', 'pos_exp + neg_exp') }} as pairs_same
{% else %}
        sum(pos_b) as pos_sum,
        sum(neg_b) as neg_sum,
        sum(pos_b * neg_below) as pairs_diff,
        sum(pos_b * neg_b) as pairs_same
{% endif %}
    from ranked
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.safe_div('2 * pairs_diff + pairs_same', '2 * pos_sum * neg_sum') }} as {{ entry.alias }},
{% endfor %}
        {{ sqlmetrics.safe_div('pairs_diff', 'pos_sum * neg_sum') }} as lower,
        {{ sqlmetrics.safe_div('pairs_diff + pairs_same', 'pos_sum * neg_sum') }} as upper,
{% if columns.weight %}
        {{ sqlmetrics.ldexp('pos_sum', 'w_exp') }} as n_pos,
        {{ sqlmetrics.ldexp('neg_sum', 'w_exp') }} as n_neg
{% else %}
        cast(pos_sum as {{ sqlmetrics.float_type() }}) as n_pos,
        cast(neg_sum as {{ sqlmetrics.float_type() }}) as n_neg
{% endif %}
    from per_slice
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
