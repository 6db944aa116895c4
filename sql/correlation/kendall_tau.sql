{#
  kendall_tau: Kendall's tau-b between score and label (Kendall 1945), overall or as the mean
  over groups; scipy.stats.kendalltau(variant="b").
  Per group g (the whole slice without group=), over its n rows:
     tau_b = (n_c - n_d) / sqrt((n_0 - n_1)(n_0 - n_2))
     n_c, n_d = pairs ordered the same way / the opposite way by score and by label (a pair
                tied in either counts in neither)
     n_0 = n (n - 1) / 2, n_1 = sum over tied score values of t (t - 1) / 2,
     n_2 = the same over tied label values.
  No O(n^2) pair list, from rank windows as AUC's. Per row i of label y_i:
     a_i = rows of the group scored strictly lower (rank() - 1 by score),
     e_i = rows of its own label scored strictly lower (rank() - 1 by score within the label),
     R_i = rank() by score among the rows with label <= y_i (so R_i - 1 - e_i = rows of a
           lower label scored lower: the concordant pairs counted from i),
  and a_i - e_i - (R_i - 1 - e_i) = rows of a higher label scored lower (discordant from i):
     S = n_c - n_d = sum_i (2 R_i - 2 - e_i - a_i),
  each pair counted once, from its row of the higher score. For a group with at most two
  labels R_i needs no extra window (R_i = e_i + 1 for its lower label, a_i + 1 for its
  higher): S = sum over high-label rows of (a_i - e_i) - sum over low-label rows of (a_i - e_i).
  With L > 2 labels, R_i comes from the rows joined with the label levels u >= y_i of their
  group (set "label <= u", about n L / 2 rows) and one rank() per (group, u) by score.
  2 n_1 = sum over rows of (t_i - 1), t_i the rows of equal score (count(*) up to the row's
  score, RANGE frame, minus a_i); 2 n_2 = sum over the group's labels of n_u (n_u - 1).
  Cost O(n log n) sorts plus the n L / 2 joined rows for groups of more than two labels;
  groups with more than max_label_levels distinct labels are refused by the Python layer
  before the query (InvalidDataError), and give NULL here.
  All counts are exact integers (pair counts doubled: 2 n_0 = n (n - 1), so no integer
  division); only the last division is floating point (by sqrt of the product of the two
  doubles: a perfect order gives exactly 1), clamped to [-1, 1]. Both cases give the same
  bits for the same group (exact integer S).
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
        count(*) over ({{ keys }}) as n_levels
    from source
    {{ group_by(by, ['grp', 'y']) }}
),
-- per row: a = rows of the group scored lower, le = rows scored at most as high, e = rows
-- of its own label scored lower (rank() counts ties once: no tie order is needed)
ranked as (
    select
        {{ slice_cols(by) }}
        grp,
        x,
        y,
        rank() over ({{ keys }} order by x) - 1 as a,
        count(*) over ({{ keys }} order by x) as le,
        rank() over ({{ partition_by(by, ['grp', 'y']) }} order by x) - 1 as e,
        min(y) over ({{ keys }}) as lo
    from source
),
counts as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(case when y > lo then a - e else e - a end as {{ exact_int() }})) as s_two,
        sum(cast(a + e as {{ exact_int() }})) as a_plus_e,
        sum(cast(le - a - 1 as {{ exact_int() }})) as n_1x2,
        count(*) as n
    from ranked
    {{ group_by(by, ['grp']) }}
),
-- groups of more than two labels: each row in every set "label <= u" it belongs to
expanded as (
    select
        {{ slice_cols_of('r', by) }}
        r.grp,
        r.x,
        r.y,
        l.u
    from ranked as r
    join levels as l
        on {% for col in by %}r.slice_{{ loop.index0 }} is not distinct from l.slice_{{ loop.index0 }} and {% endfor %}r.grp = l.grp
        and l.u >= r.y
    where l.n_levels > 2 and l.n_levels <= {{ options.max_label_levels }}
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
label_ties as (
    select
        {{ slice_cols(by) }}
        grp,
        sum(cast(n_u as {{ exact_int() }}) * (n_u - 1)) as n_2x2,
        max(n_levels) as n_levels
    from levels
    {{ group_by(by, ['grp']) }}
),
per_group_counts as (
    select
        {{ slice_cols_of('c', by) }}
        c.grp,
        case when l.n_levels <= 2 then c.s_two else g.two_r - c.a_plus_e end as s,
        c.n_1x2,
        l.n_2x2,
        cast(c.n as {{ exact_int() }}) * (c.n - 1) as n_0x2,
        l.n_levels
    from counts as c
    join label_ties as l
        on {% for col in by %}c.slice_{{ loop.index0 }} is not distinct from l.slice_{{ loop.index0 }} and {% endfor %}c.grp = l.grp
    left join set_counts as g
        on {% for col in by %}c.slice_{{ loop.index0 }} is not distinct from g.slice_{{ loop.index0 }} and {% endfor %}c.grp = g.grp
),
per_group as (
    select
        {{ slice_cols(by) }}
        grp,
        case
            when n_levels <= {{ options.max_label_levels }}
                and n_0x2 > n_1x2 and n_0x2 > n_2x2
            then greatest(cast(-1 as {{ float_type() }}), least(cast(1 as {{ float_type() }}),
                cast(2 * s as {{ float_type() }}) / sqrt(
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
