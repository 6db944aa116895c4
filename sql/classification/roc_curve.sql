{#
  roc_curve: the receiver operating characteristic curve, one point per distinct score.
  Per slice, for each distinct score s (descending), predicted positive when score >= s:
     tp(s) = (weighted) positives with score >= s     fp(s) = (weighted) negatives with score >= s
     tpr = tp / P    fpr = fp / N    tn = N - fp    fn = P - tp
  P, N: (weighted) positives and negatives of the slice; weight 0 rows are dropped.
  A first point at threshold +infinity (nothing predicted positive) has tp = fp = 0.
  Ties: tied scores are one threshold (one point), never split.
  drop_intermediate (default true, scikit-learn's default for roc_curve): a point that is not
  first or last is dropped when the second differences of both fp and tp are 0 there, i.e.
  (fp_{i+1} - fp_i) = (fp_i - fp_{i-1}) and the same for tp (scikit-learn's rule: it drops
  the middle of straight runs of equal steps, not every collinear point).
  max_points (none or an integer >= 2): at most max_points rows per slice, the +infinity row
  and max_points - 1 points at score quantiles (see `thinned` in sql/_macros/kernels/curves.sql).
  Undefined: N = 0 -> fpr NULL (NaN); P = 0 -> tpr NULL (NaN), as scikit-learn.
  Output: per slice, rows ordered by threshold descending; columns threshold, fpr, tpr, tp,
  fp, tn, fn. Equals scikit-learn's roc_curve (fpr, tpr, thresholds).
  Oracle: tests/oracle/curves.py::roc_curve
#}
{% macro roc_curve_kernel(relation, by, columns, options, entries) -%}
{% set drop = options.drop_intermediate %}
with {{ sqlmetrics.curve_points(relation, by, columns, options) }},
{{ sqlmetrics.curve_neighbours(by) }},
kept as (
    select {{ sqlmetrics.slice_cols(by) }} score, tp, fp, n_pos, n_neg
    from neighbours
{% if drop %}
    where prev_tp is null
        or next_tp is null
        or (next_fp - fp) - (fp - prev_fp) <> 0
        or (next_tp - tp) - (tp - prev_tp) <> 0
{% endif %}
),
{{ sqlmetrics.curve_thinned(by, none if options.max_points is none else options.max_points - 1) }},
{{ sqlmetrics.curve_totals(by) }},
curve as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast('Infinity' as {{ sqlmetrics.float_type() }}) as threshold,
        0 as tp,
        0 as fp,
        n_pos,
        n_neg
    from totals
    union all
    select {{ sqlmetrics.slice_cols(by) }} cast(score as {{ sqlmetrics.float_type() }}) as threshold, tp, fp, n_pos, n_neg
    from thinned
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        threshold,
        {{ sqlmetrics.safe_div('fp', 'n_neg') }} as fpr,
        {{ sqlmetrics.safe_div('tp', 'n_pos') }} as tpr,
        tp,
        fp,
        n_neg - fp as tn,
        n_pos - tp as fn
    from curve
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}threshold desc, fp, tp
{%- endmacro %}
