{#
  spearman: Spearman's rank correlation rho between score and label (Spearman 1904), overall
  or as the mean over groups.
  Per group g (the whole slice without group=), n rows, average ranks (ties share the mean
  rank, as scipy.stats.rankdata(method="average")):
     rho_g = sum_i (rx_i - m)(ry_i - m) / sqrt(sum_i (rx_i - m)^2 sum_i (ry_i - m)^2),
     m = (n + 1) / 2 (the mean of n average ranks, whatever the ties)
  = the Pearson correlation of the ranks, scipy.stats.spearmanr. Doubled ranks are integers:
  2 rx_i = rank_lo + rank_hi (rank() plus the rows at or below), so every sum is an exact
  integer sum (exact_int(): any row order gives the same bits) and only the last division is
  in floating point (sxy / sqrt(sxx syy): a perfect order gives exactly 1); rho is
  clamped to [-1, 1] against rounding.
  Undefined: a group whose scores or labels are all equal (a sum of squares 0) or with fewer
  than 2 rows -> left out of the mean; no group left -> NULL (NaN + UndefinedMetricWarning).
  With group=: rho = mean_g rho_g, uniform over the groups left (n_groups of them).
  Cost: two sorts per group (score, label) and one aggregate: O(n log n).
  Output: one row per slice; columns spearman, n_groups.
  Oracle: tests/oracle/correlation.py::spearman (pairwise sums over explicit rank lists;
  checked against scipy.stats.spearmanr in tests/test_correlation.py).
#}
{% macro spearman_kernel(relation, by, columns, options, entries) -%}
{% set part = sqlmetrics.partition_by(by, ['grp']) %}
with source as (
{{ sqlmetrics.correlation_source(relation, by, columns) }}
),
-- doubled average ranks centred on n + 1: integers, 2 (r - m)
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        cast(rank() over ({{ part }} order by x) + count(*) over ({{ part }} order by x)
            - count(*) over ({{ part }}) - 1 as {{ sqlmetrics.exact_int() }}) as dx,
        cast(rank() over ({{ part }} order by y) + count(*) over ({{ part }} order by y)
            - count(*) over ({{ part }}) - 1 as {{ sqlmetrics.exact_int() }}) as dy
    from source
),
sums as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        sum(dx * dy) as sxy,
        sum(dx * dx) as sxx,
        sum(dy * dy) as syy
    from ranked
    {{ sqlmetrics.group_by(by, ['grp']) }}
),
per_group as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        case
            when sxx > 0 and syy > 0 then greatest(cast(-1 as {{ sqlmetrics.float_type() }}), least(
                cast(1 as {{ sqlmetrics.float_type() }}),
                cast(sxy as {{ sqlmetrics.float_type() }})
                    / sqrt(cast(sxx as {{ sqlmetrics.float_type() }}) * cast(syy as {{ sqlmetrics.float_type() }}))
            ))
        end as rho
    from sums
),
final as (
{{ sqlmetrics.correlation_mean(by, 'rho', entries) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
