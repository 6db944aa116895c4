{#
  kendall_tau: Kendall's tau-b between score and label (Kendall 1945), overall or as the mean
  over groups; scipy.stats.kendalltau(variant="b").
  Per group g (the whole slice without group=), over its n rows:
     tau_b = (n_c - n_d) / sqrt((n_0 - n_1)(n_0 - n_2))
     n_c, n_d = pairs ordered the same way / the opposite way by score and by label (a pair
                tied in either counts in neither)
     n_0 = n (n - 1) / 2, n_1 = sum over tied score values of t (t - 1) / 2,
     n_2 = the same over tied label values, n_3 = the same over tied (score, label) cells.
  Every pair is concordant, discordant, or tied in score or label (n_1 + n_2 - n_3 of them),
  so  S = n_c - n_d = 2 n_c - n_0 + n_1 + n_2 - n_3:  only n_c needs an order; n_1, n_2,
  n_3 are counts of cells (hash aggregates, no sort).
  No O(n^2) pair list. k_i = the position of row i's label among its group's labels (1..L).
  n_c = sum_i C_i, C_i = rows of the group with a lower label scored strictly lower:
  window path (groups of at most `window_levels` + 1 labels): the group's rows in one sort by
  (score asc, k desc) and, per level t, a running count of the rows with k <= t so far
  (ROWS frame); C_i is the count for t = k_i - 1 at row i. The rows of i's score that come
  before it have a higher k (excluded); rows of equal score and k are interchangeable (not
  counted), so the count does not depend on how such rows are ordered among themselves.
  many-label path (more labels, at most max_label_levels): R_i = rank() by score among the
  rows with label <= y_i (each row joined with its group's levels u >= y_i, about n L / 2
  rows), a_i = rank() - 1 by score in the group, e_i = the same within the label:
  S = sum_i (2 R_i - 2 - e_i - a_i).
  Groups with more than max_label_levels distinct labels are refused by the Python layer
  before the query (InvalidDataError), and give NULL here.
  Cost: one sort of n rows (window path) plus hash aggregates; the many-label path adds the
  n L / 2 joined rows and their sort for its groups only.
  All counts are exact integers (pair counts doubled: 2 n_0 = n (n - 1), so no integer
  division); only the last division is floating point (by sqrt of the product of the two
  doubles: a perfect order gives exactly 1), clamped to [-1, 1].
  Undefined: n_0 = n_1 (all scores equal, or fewer than 2 rows) or n_0 = n_2 (all labels
  equal) -> the group is left out; no group left -> NULL (NaN + UndefinedMetricWarning).
  With group=: tau = mean_g tau_g, uniform over the groups left (n_groups of them).
  Output: one row per slice; columns kendall_tau, n_groups.
  Oracle: tests/oracle/correlation.py::kendall_tau (every pair counted; checked against
  scipy.stats.kendalltau in tests/test_correlation.py).
#}
{% macro kendall_tau_kernel(relation, by, columns, options, entries) -%}
{% set keys = partition_by(by, ['grp']) %}
{% set window_levels = 7 %}
{% set on_slices %}{% for col in by %}{{ '{0}' }}.slice_{{ loop.index0 }} is not distinct from {{ '{1}' }}.slice_{{ loop.index0 }} and {% endfor %}{% endset %}
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
        row_number() over ({{ keys }} order by y) as k
    from source
    {{ group_by(by, ['grp', 'y']) }}
),
leveled as (
    select
        {{ slice_cols_of('s', by) }}
        s.grp,
        s.x,
        s.y,
        l.k,
        l.n_levels
    from source as s
    join levels as l
        on {{ on_slices.format('s', 'l') }}s.grp = l.grp and s.y = l.u
),
-- window path: per row, running counts of the rows with k <= t in (score asc, k desc) order
running as (
    select
        {{ slice_cols(by) }}
        grp,
        case k
{% for t in range(1, window_levels + 1) %}
            when {{ t + 1 }} then sum(case when k <= {{ t }} then 1 else 0 end) over (
                {{ keys }} order by x, k desc rows between unbounded preceding and current row)
{% endfor %}
            else 0
        end as c
    from leveled
    where n_levels <= {{ window_levels + 1 }}
),
concordant as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(c as {{ exact_int() }})) as n_c
    from running
    {{ group_by(by, ['grp']) }}
),
-- ties: (score, label) cells, then score cells from them
xy_cells as (
    select
        {{ slice_cols(by) }}
        grp,
        x,
        count(*) as t
    from source
    {{ group_by(by, ['grp', 'x', 'y']) }}
),
x_cells as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(t as {{ exact_int() }})) as t,
        sum(cast(t as {{ exact_int() }}) * (t - 1)) as n_3x2
    from xy_cells
    {{ group_by(by, ['grp', 'x']) }}
),
ties as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(t * (t - 1)) as n_1x2,
        sum(n_3x2) as n_3x2
    from x_cells
    {{ group_by(by, ['grp']) }}
),
label_ties as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(n_u as {{ exact_int() }}) * (n_u - 1)) as n_2x2,
        sum(cast(n_u as {{ exact_int() }})) as n,
        max(n_levels) as n_levels
    from levels
    {{ group_by(by, ['grp']) }}
),
-- many-label path (groups of more than window_levels + 1 labels): rank windows and the rows
-- joined with the group's levels u >= y (sets "label <= u")
ranked as (
    select
        {{ slice_cols(by) }}
        grp,
        x,
        y,
        rank() over ({{ keys }} order by x) - 1 as a,
        rank() over ({{ partition_by(by, ['grp', 'y']) }} order by x) - 1 as e
    from leveled
    where n_levels > {{ window_levels + 1 }} and n_levels <= {{ options.max_label_levels }}
),
many_counts as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(a + e as {{ exact_int() }})) as a_plus_e
    from ranked
    {{ group_by(by, ['grp']) }}
),
expanded as (
    select
        {{ slice_cols_of('r', by) }}
        r.grp,
        r.x,
        r.y,
        l.u
    from ranked as r
    join levels as l
        on {{ on_slices.format('r', 'l') }}r.grp = l.grp
        and l.u >= r.y
),
set_ranks as (
    select
        {{ slice_cols(by) }}
        grp,
        y,
        u,
        rank() over ({{ partition_by(by, ['grp', 'u']) }} order by x) as r
    from expanded
),
set_counts as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(2 * r - 2 as {{ exact_int() }})) as two_r
    from set_ranks
    where u = y
    {{ group_by(by, ['grp']) }}
),
per_group_counts as (
    select
        {{ slice_cols_of('l', by) }}
        l.grp,
        case
            when l.n_levels <= {{ window_levels + 1 }}
            then 4 * coalesce(c.n_c, 0) - l.n * (l.n - 1) + t.n_1x2 + l.n_2x2 - t.n_3x2
            else 2 * (g.two_r - m.a_plus_e)
        end as two_s,
        t.n_1x2,
        l.n_2x2,
        l.n * (l.n - 1) as n_0x2,
        l.n_levels
    from label_ties as l
    join ties as t
        on {{ on_slices.format('l', 't') }}l.grp = t.grp
    left join concordant as c
        on {{ on_slices.format('l', 'c') }}l.grp = c.grp
    left join many_counts as m
        on {{ on_slices.format('l', 'm') }}l.grp = m.grp
    left join set_counts as g
        on {{ on_slices.format('l', 'g') }}l.grp = g.grp
),
per_group as (
    select
        {{ slice_cols(by) }}
        grp,
        case
            when n_levels <= {{ options.max_label_levels }}
                and n_0x2 > n_1x2 and n_0x2 > n_2x2
            then greatest(cast(-1 as {{ float_type() }}), least(cast(1 as {{ float_type() }}),
                cast(two_s as {{ float_type() }}) / sqrt(
                    cast(n_0x2 - n_1x2 as {{ float_type() }})
                    * cast(n_0x2 - n_2x2 as {{ float_type() }})
                )
            ))
        end as tau
    from per_group_counts
),
final as (
{{ correlation_mean(by, 'tau', entries) }}
)
select * from final
{{ order_by(by) }}
{%- endmacro %}
