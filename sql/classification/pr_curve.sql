{#
  pr_curve: the precision-recall curve, one point per distinct score.
  Per slice, for each distinct score s, predicted positive when score >= s:
     tp(s), fp(s) = (weighted) positives / negatives with score >= s
     precision = tp / (tp + fp)    recall = tp / P    fn = P - tp
  P: (weighted) positives of the slice; weight 0 rows are dropped, so tp + fp > 0 at every
  point. A last point at threshold +infinity (nothing predicted positive) has tp = fp = 0,
  recall 0 and precision 1 by convention (scikit-learn's last point).
  Ties: tied scores are one threshold (one point), never split.
  drop_intermediate (default false, scikit-learn's for precision_recall_curve): a
  point that is not first or last is dropped when tp equals tp of both neighbours (a vertical
  run at one recall keeps its two ends).
  max_points (none or an integer >= 2): at most max_points rows per slice, the +infinity row
  and max_points - 1 points at score quantiles (see `thinned` in sql/_macros/kernels/curves.sql).
  Undefined: P = 0 -> recall NULL (NaN); scikit-learn sets recall 1 instead.
  Output: per slice, rows ordered by threshold ascending; columns threshold, precision,
  recall, tp, fp, fn. Equals scikit-learn's precision_recall_curve (precision, recall, and
  thresholds for all rows but the last).
  Oracle: tests/oracle/curves.py::pr_curve
#}
{% macro pr_curve_kernel(relation, by, columns, options, entries) -%}
{% set drop = options.drop_intermediate %}
with {{ sqlmetrics.curve_points(relation, by, columns, options) }},
{{ sqlmetrics.curve_neighbours(by) }},
kept as (
    select {{ sqlmetrics.slice_cols(by) }} score, tp, fp, n_pos, n_neg
    from neighbours
{% if drop %}
    where prev_tp is null
        or next_tp is null
        or prev_tp <> tp
        or next_tp <> tp
{% endif %}
),
{{ sqlmetrics.curve_thinned(by, none if options.max_points is none else options.max_points - 1) }},
{{ sqlmetrics.curve_totals(by) }},
curve as (
    select {{ sqlmetrics.slice_cols(by) }} cast(score as {{ sqlmetrics.float_type() }}) as threshold, tp, fp, n_pos
    from thinned
    union all
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast('Infinity' as {{ sqlmetrics.float_type() }}) as threshold,
        0 as tp,
        0 as fp,
        n_pos
    from totals
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        threshold,
        coalesce({{ sqlmetrics.safe_div('tp', 'tp + fp') }}, {{ sqlmetrics.float_literal(1) }}) as precision,
        {{ sqlmetrics.safe_div('tp', 'n_pos') }} as recall,
        tp,
        fp,
        n_pos - tp as fn
    from curve
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}threshold, fp desc, tp desc
{%- endmacro %}
