{#
  kendall_tau: Kendall's tau-b between score and label (Kendall 1945), overall or as the mean
  over groups; scipy.stats.kendalltau(variant="b").
  Per group g (the whole slice without group=), over its n rows:
     tau_b = (n_c - n_d) / sqrt((n_0 - n_1)(n_0 - n_2))
     n_c, n_d = pairs ordered the same way / the opposite way by score and by label (a pair
                tied in either counts in neither)
     n_0 = n (n - 1) / 2, n_1 = sum over tied score values of t (t - 1) / 2,
     n_2 = the same over tied label values.
  No O(n^2) pair list, from rank windows as AUC's. Each pair of distinct labels is counted
  from its row j of the higher label: +1 for a row i of a lower label scored lower, -1 scored
  higher, 0 scored the same. With, per row j of label y_j,
     a_j  = rows of the group scored lower        (rank() - 1 by score),
     le_j = rows of the group scored at most x_j  (count(*) by score, ties included),
     B_j  = rows of the group with a label below y_j,
     ge_j = rows of label >= y_j scored lower + those scored at most x_j
            (rank() - 1 + count(*) by score among the rows of label >= y_j),
  the rows of a lower label scored lower are a_j - (rank() - 1 among label >= y_j), scored
  at most x_j are le_j - (count(*) among label >= y_j), and
     S = n_c - n_d = sum_j (a_j + le_j - ge_j - B_j).
  For the lowest label the term is 0 (every row has label >= y_j, B_j = 0); for the highest
  ge_j comes from windows over its own label (e, ee). Only the rows of a middle label (groups
  of 3+ labels) are joined with the middle levels u <= y_j of their group (the sets
  "label >= u", ranked once per (group, u) by score); with graded relevance most rows have the
  lowest label, so few rows are joined.
  2 n_1 = sum over rows of (le_i - a_i - 1) (t_i - 1, t_i the rows of equal score);
  2 n_2 = sum over the group's labels of n_u (n_u - 1).
  Cost O(n log n) sorts plus the joined middle-label rows; groups with more than
  max_label_levels distinct labels are refused by the Python layer before the query
  (InvalidDataError), and give NULL here.
  All counts are exact integers (pair counts doubled: 2 n_0 = n (n - 1), so no integer
  division); only the last division is floating point (by sqrt of the product of the two
  doubles: a perfect order gives exactly 1), clamped to [-1, 1]: the same bits for the
  same group whatever the order of its rows (exact integer S).
  Undefined: n_0 = n_1 (all scores equal, or fewer than 2 rows) or n_0 = n_2 (all labels
  equal) -> the group is left out; no group left -> NULL (NaN + UndefinedMetricWarning).
  With group=: tau = mean_g tau_g, uniform over the groups left (n_groups of them).
  Output: one row per slice; columns kendall_tau, n_groups.
  Oracle: tests/oracle/correlation.py::kendall_tau (every pair counted; checked against
  scipy.stats.kendalltau in tests/test_correlation.py).
#}
{% macro kendall_tau_kernel(relation, by, columns, options, entries) -%}
{% set keys = sqlmetrics.partition_by(by, ['grp']) %}
with source as (
{{ sqlmetrics.correlation_source(relation, by, columns) }}
),
-- per row: a (le) = rows of the group scored lower (at most as high); rank() and count(*)
-- give ties alike whatever their order
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        x,
        y,
        rank() over ({{ keys }} order by x) - 1 as a,
        count(*) over ({{ keys }} order by x) as le
    from source
),
-- one row per (group, label level): its row count, the rows of lower labels, its sums
levels as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        y as u,
        count(*) as n_u,
        sum(cast(a + le as {{ sqlmetrics.exact_int() }})) as a_le,
        sum(cast(le - a - 1 as {{ sqlmetrics.exact_int() }})) as score_ties
    from ranked
    {{ sqlmetrics.group_by(by, ['grp', 'y']) }}
),
level_bounds as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        u,
        n_u,
        a_le,
        score_ties,
        sum(n_u) over ({{ keys }} order by u rows between unbounded preceding and current row) - n_u as n_below,
        min(u) over ({{ keys }}) as lo,
        count(*) over ({{ keys }}) as n_levels
    from levels
),
-- each row of a label y above its group's lowest, in the sets "label >= u" for the levels
-- u <= y above the lowest (the highest level's set: the rows of that label alone)
expanded as (
    select
        {{ sqlmetrics.slice_cols_of('r', by) }}
        r.grp as grp,
        r.x as x,
        r.y as y,
        l.u as u
    from source as r
    join level_bounds as l
        on {{ sqlmetrics.join_on_slices('r', 'l', by, ['grp']) }}
        and l.u <= r.y
    where l.u > l.lo and l.n_levels <= {{ options.max_label_levels }}
),
set_ranks as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        y,
        u,
        rank() over ({{ sqlmetrics.partition_by(by, ['grp', sqlmetrics.float_key('u')]) }} order by x) - 1
            + count(*) over ({{ sqlmetrics.partition_by(by, ['grp', sqlmetrics.float_key('u')]) }} order by x) as ge
    from expanded
),
set_counts as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        sum(cast(ge as {{ sqlmetrics.exact_int() }})) as ge
    from set_ranks
    where u = y
    {{ sqlmetrics.group_by(by, ['grp']) }}
),
per_group_counts as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        sum(case when u = lo then 0 else a_le - cast(n_u as {{ sqlmetrics.exact_int() }}) * n_below end) as s_part,
        sum(score_ties) as n_1x2,
        sum(cast(n_u as {{ sqlmetrics.exact_int() }}) * (n_u - 1)) as n_2x2,
        cast(sum(n_u) as {{ sqlmetrics.exact_int() }}) * (sum(n_u) - 1) as n_0x2,
        max(n_levels) as n_levels
    from level_bounds
    {{ sqlmetrics.group_by(by, ['grp']) }}
),
per_group as (
    select
        {{ sqlmetrics.slice_cols_of('c', by) }}
        c.grp as grp,
        case
            when c.n_levels <= {{ options.max_label_levels }}
                and c.n_0x2 > c.n_1x2 and c.n_0x2 > c.n_2x2
            then greatest(cast(-1 as {{ sqlmetrics.float_type() }}), least(cast(1 as {{ sqlmetrics.float_type() }}),
                cast(2 * (c.s_part - coalesce(g.ge, 0)) as {{ sqlmetrics.float_type() }}) / sqrt(
                    cast(c.n_0x2 - c.n_1x2 as {{ sqlmetrics.float_type() }})
                    * cast(c.n_0x2 - c.n_2x2 as {{ sqlmetrics.float_type() }})
                )
            ))
        end as tau
    from per_group_counts as c
    left join set_counts as g
        on {{ sqlmetrics.join_on_slices('c', 'g', by, ['grp']) }}
),
final as (
{{ sqlmetrics.correlation_mean(by, 'tau', entries) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
