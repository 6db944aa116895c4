{#
  kendall_tau: Kendall's tau-b between score and label (Kendall 1945), overall or as the mean
  over groups; scipy.stats.kendalltau(variant="b").
  Per group g (the whole slice without group=), over its n rows:
     tau_b = (n_c - n_d) / sqrt((n_0 - n_1)(n_0 - n_2))
     n_c, n_d = pairs ordered the same way / the opposite way by score and by label (a pair
                tied in either counts in neither)
     n_0 = n (n - 1) / 2, n_1 = sum over tied score values of t (t - 1) / 2,
     n_2 = the same over tied label values.
  No O(n^2) pair list: with L the distinct labels of the group, S = n_c - n_d is
     S = sum_{rows i} sum_{levels u != y_i} sign(y_i - u) * below_u(x_i),
     below_u(x) = rows of label u with score < x,
  each concordant pair counted once from its higher-label row (u below it), each discordant
  pair once from its lower-label row (u above it, scored lower). Every row is joined with the
  group's L levels; per (group, level u) one window ordered by score gives below_u as the
  level-u rows at or below x (RANGE frame: all rows of equal score at once) minus those at
  exactly x, and t = the rows of score x (for n_1, counted in the partition of the first
  level, where every row appears once). RANGE frames need no tie order: the result is the
  same for any order of equal scores. Cost O(n log n + n L) (n L joined rows, one sort of
  them); groups with more than max_label_levels distinct labels are refused by the Python
  layer before the query (InvalidDataError), and give NULL here.
  All counts are exact integers (pair counts doubled: 2 n_0 = n (n - 1), 2 n_1 = sum t (t - 1),
  so no integer division); only the last division is floating point (by sqrt of the product of the two
  doubles: a perfect order gives exactly 1), clamped to [-1, 1].
  Fast path for groups with at most 2 distinct labels (binary labels: the common case), exact
  and with no row x level join: the rows are first counted per (group, score, label) cell;
  one window per group ordered by score gives, for each cell, the low-label rows at or below
  its score (RANGE frame) and at its score, and the group's low-label total n_lo, so that
     S = sum over high-label cells of c * (lo_below - lo_above)
       = sum c * (2 lo_le - lo_eq - n_lo)
  (= P N (2 AUC - 1), AUC's rank-sum identity), 2 n_1 = sum over cells c (t - 1) with t the
  rows of the cell's score, 2 n_2 = n_lo (n_lo - 1) + n_hi (n_hi - 1). Groups with 3 or more
  labels take the general formulation above. Both are exact integer counts, so the two paths
  give the same bits for the same group.
  Undefined: n_0 = n_1 (all scores equal, or fewer than 2 rows) or n_0 = n_2 (all labels
  equal) -> the group is left out; no group left -> NULL (NaN + UndefinedMetricWarning).
  With group=: tau = mean_g tau_g, uniform over the groups left (n_groups of them).
  Output: one row per slice; columns kendall_tau, n_groups.
  Oracle: tests/oracle/correlation.py::kendall_tau (every pair counted; checked against
  scipy.stats.kendalltau in tests/test_correlation.py).
#}
{% macro kendall_tau_kernel(relation, by, columns, options, entries) -%}
{% set keys = partition_by(by, ['grp']) %}
with source as (
{{ correlation_source(relation, by, columns) }}
),
levels as (
    select
        {{ slice_cols(by) }}
        grp,
        y as u,
        count(*) as n_u,
        count(*) over ({{ keys }}) as n_levels,
        min(y) over ({{ keys }}) as u_first
    from source
    {{ group_by(by, ['grp', 'y']) }}
),
-- every row with every label level of its group (groups within max_label_levels only)
expanded as (
    select
        {{ slice_cols_of('s', by) }}
        s.grp,
        s.x,
        s.y,
        l.u,
        l.u_first
    from source as s
    join levels as l
        on {% for col in by %}s.slice_{{ loop.index0 }} is not distinct from l.slice_{{ loop.index0 }} and {% endfor %}s.grp = l.grp
    where l.n_levels > 2 and l.n_levels <= {{ options.max_label_levels }}
),
-- one sort per (group, level) by score; RANGE frames take all rows of equal score at once,
-- so no tie order is needed: below = level-u rows scored lower, t = rows of equal score
running as (
    select
        {{ slice_cols(by) }}
        grp,
        case when y > u then 1 when y < u then -1 else 0 end * (
            sum(case when y = u then 1 else 0 end) over (
                {{ partition_by(by, ['grp', 'u']) }} order by x
                range between unbounded preceding and current row
            )
            - sum(case when y = u then 1 else 0 end) over (
                {{ partition_by(by, ['grp', 'u']) }} order by x
                range between current row and current row
            )
        ) as s_term,
        case when u = u_first then 1 else 0 end as first_copy,
        case when u = u_first then count(*) over (
            {{ partition_by(by, ['grp', 'u']) }} order by x
            range between current row and current row
        ) - 1 else 0 end as tied_x
    from expanded
),
counts as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(s_term as {{ exact_int() }})) as s,
        sum(cast(tied_x as {{ exact_int() }})) as n_1x2,
        sum(first_copy) as n
    from running
    {{ group_by(by, ['grp']) }}
),
label_ties as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(n_u as {{ exact_int() }}) * (n_u - 1)) as n_2x2,
        max(n_levels) as n_levels
    from levels
    {{ group_by(by, ['grp']) }}
),
-- fast path (<= 2 labels in the group): counts per (group, score, label) cell
cells as (
    select
        {{ slice_cols(by) }}
        grp,
        x,
        y,
        count(*) as c
    from source
    {{ group_by(by, ['grp', 'x', 'y']) }}
),
cell_levels as (
    select
        {{ slice_cols(by) }}
        grp,
        x,
        y,
        c,
        min(y) over ({{ keys }}) as lo,
        max(y) over ({{ keys }}) as hi
    from cells
),
cell_running as (
    select
        {{ slice_cols(by) }}
        grp,
        y,
        c,
        lo,
        hi,
        sum(case when y = lo then c else 0 end) over (
            {{ keys }} order by x range between unbounded preceding and current row
        ) as lo_le,
        sum(case when y = lo then c else 0 end) over (
            {{ keys }} order by x range between current row and current row
        ) as lo_eq,
        sum(c) over (
            {{ keys }} order by x range between current row and current row
        ) as t,
        sum(case when y = lo then c else 0 end) over ({{ keys }}) as n_lo
    from cell_levels
),
binary_counts as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(case when y = hi and hi > lo
            then cast(c as {{ exact_int() }}) * (2 * lo_le - lo_eq - n_lo) else 0 end) as s,
        sum(cast(c as {{ exact_int() }}) * (t - 1)) as n_1x2,
        sum(cast(c as {{ exact_int() }})) as n,
        max(cast(n_lo as {{ exact_int() }})) as n_lo,
        sum(case when y > lo and y < hi then 1 else 0 end) as n_middle
    from cell_running
    {{ group_by(by, ['grp']) }}
),
per_group as (
    select
        {{ slice_cols(by) }}
        grp,
        case
            when n * (n - 1) > n_1x2
                and n * (n - 1) > n_lo * (n_lo - 1) + (n - n_lo) * (n - n_lo - 1)
            then greatest(cast(-1 as {{ float_type() }}), least(cast(1 as {{ float_type() }}),
                cast(2 * s as {{ float_type() }}) / sqrt(
                    cast(n * (n - 1) - n_1x2 as {{ float_type() }})
                    * cast(n * (n - 1) - n_lo * (n_lo - 1) - (n - n_lo) * (n - n_lo - 1)
                        as {{ float_type() }})
                )
            ))
        end as tau
    from binary_counts
    where n_middle = 0
    union all
    select
        {{ slice_cols_of('l', by) }}
        l.grp,
        case
            when l.n_levels <= {{ options.max_label_levels }}
                and cast(c.n as {{ exact_int() }}) * (c.n - 1) > c.n_1x2
                and cast(c.n as {{ exact_int() }}) * (c.n - 1) > l.n_2x2
            then greatest(cast(-1 as {{ float_type() }}), least(cast(1 as {{ float_type() }}),
                cast(2 * c.s as {{ float_type() }}) / sqrt(
                    cast(cast(c.n as {{ exact_int() }}) * (c.n - 1) - c.n_1x2 as {{ float_type() }})
                    * cast(cast(c.n as {{ exact_int() }}) * (c.n - 1) - l.n_2x2 as {{ float_type() }})
                )
            ))
        end as tau
    from label_ties as l
    left join counts as c
        on {% for col in by %}l.slice_{{ loop.index0 }} is not distinct from c.slice_{{ loop.index0 }} and {% endfor %}l.grp = c.grp
    where l.n_levels > 2
),
final as (
{{ correlation_mean(by, 'tau', entries) }}
)
select * from final
{{ order_by(by) }}
{%- endmacro %}
