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
  pair once from its lower-label row (u above it, scored lower). below_u is one running count
  per level u over the rows in score order: the distinct (score, label) cells (with counts c)
  are joined with the group's L levels and summed in a window partitioned by level, ordered by
  score, then the level's own cell last (so a cell's running count excludes the level-u cell
  of the same score), then label: a total order. Cost O(n log n + n L) (n L joined rows, one
  sort of them); groups with more than max_label_levels distinct labels are refused by the
  Python layer before the query (InvalidDataError), and give NULL here.
  All counts are exact integers (pair counts doubled: 2 n_0 = n (n - 1), 2 n_1 = sum t (t - 1),
  so no integer division); only the last division is floating point (by sqrt of the product of the two
  doubles: a perfect order gives exactly 1), clamped to [-1, 1].
  Undefined: n_0 = n_1 (all scores equal, or fewer than 2 rows) or n_0 = n_2 (all labels
  equal) -> the group is left out; no group left -> NULL (NaN + UndefinedMetricWarning).
  With group=: tau = mean_g tau_g, uniform over the groups left (n_groups of them).
  Output: one row per slice; columns kendall_tau, n_groups.
  Oracle: tests/oracle/correlation.py::kendall_tau (every pair counted; checked against
  scipy.stats.kendalltau in tests/test_correlation.py).
#}
{% macro kendall_tau_kernel(relation, by, columns, options, entries) -%}
with source as (
{{ correlation_source(relation, by, columns) }}
),
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
levels as (
    select
        {{ slice_cols(by) }}
        grp,
        y as u,
        sum(c) as n_u,
        count(*) over ({{ partition_by(by, ['grp']) }}) as n_levels
    from cells
    {{ group_by(by, ['grp', 'y']) }}
),
-- every cell with every label level of its group (groups within max_label_levels only)
expanded as (
    select
        {{ slice_cols_of('cells', by) }}
        cells.grp,
        cells.x,
        cells.y,
        cells.c,
        levels.u
    from cells
    join levels
        on {% for col in by %}cells.slice_{{ loop.index0 }} is not distinct from levels.slice_{{ loop.index0 }} and {% endfor %}cells.grp = levels.grp
    where levels.n_levels <= {{ options.max_label_levels }}
),
running as (
    select
        {{ slice_cols(by) }}
        grp,
        c * case when y > u then 1 when y < u then -1 else 0 end * sum(
            case when y = u then c else 0 end
        ) over (
            {{ partition_by(by, ['grp', 'u']) }}
            order by x, case when y = u then 1 else 0 end, y
            rows between unbounded preceding and current row
        ) as s_term
    from expanded
),
concordance as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(s_term as {{ exact_int() }})) as s
    from running
    {{ group_by(by, ['grp']) }}
),
score_ties as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(t as {{ exact_int() }}) * (t - 1)) as n_1x2,
        sum(t) as n
    from (
        select
            {{ slice_cols(by) }}
            grp,
            sum(c) as t
        from cells
        {{ group_by(by, ['grp', 'x']) }}
    ) as by_score
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
per_group as (
    select
        {{ slice_cols_of('t', by) }}
        t.grp,
        case
            when l.n_levels <= {{ options.max_label_levels }}
                and cast(t.n as {{ exact_int() }}) * (t.n - 1) > t.n_1x2
                and cast(t.n as {{ exact_int() }}) * (t.n - 1) > l.n_2x2
            then greatest(cast(-1 as {{ float_type() }}), least(cast(1 as {{ float_type() }}),
                cast(2 * coalesce(k.s, 0) as {{ float_type() }}) / sqrt(
                    cast(cast(t.n as {{ exact_int() }}) * (t.n - 1) - t.n_1x2 as {{ float_type() }})
                    * cast(cast(t.n as {{ exact_int() }}) * (t.n - 1) - l.n_2x2 as {{ float_type() }})
                )
            ))
        end as tau
    from score_ties as t
    join label_ties as l
        on {% for col in by %}t.slice_{{ loop.index0 }} is not distinct from l.slice_{{ loop.index0 }} and {% endfor %}t.grp = l.grp
    left join concordance as k
        on {% for col in by %}t.slice_{{ loop.index0 }} is not distinct from k.slice_{{ loop.index0 }} and {% endfor %}t.grp = k.grp
),
final as (
{{ correlation_mean(by, 'tau', entries) }}
)
select * from final
{{ order_by(by) }}
{%- endmacro %}
