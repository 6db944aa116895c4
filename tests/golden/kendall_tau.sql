with source as (
select
        "country" as slice_0,
        0 as grp,
        "score" as x,
        cast("label" as double) as y
    from "events"
),
levels as (
    select
        slice_0,
        grp,
        y as u,
        count(*) as n_u,
        count(*) over (partition by slice_0, grp) as n_levels,
        min(y) over (partition by slice_0, grp) as u_first
    from source
    group by slice_0, grp, y
),
-- every row with every label level of its group (groups within max_label_levels only)
expanded as (
    select
        s.slice_0,
        s.grp,
        s.x,
        s.y,
        l.u,
        l.u_first
    from source as s
    join levels as l
        on s.slice_0 is not distinct from l.slice_0 and s.grp = l.grp
    where l.n_levels > 2 and l.n_levels <= 1000
),
-- one sort per (group, level) by score; RANGE frames take all rows of equal score at once,
-- so no tie order is needed: below = level-u rows scored lower, t = rows of equal score
running as (
    select
        slice_0,
        grp,
        case when y > u then 1 when y < u then -1 else 0 end * (
            sum(case when y = u then 1 else 0 end) over (
                partition by slice_0, grp, u order by x
                range between unbounded preceding and current row
            )
            - sum(case when y = u then 1 else 0 end) over (
                partition by slice_0, grp, u order by x
                range between current row and current row
            )
        ) as s_term,
        case when u = u_first then 1 else 0 end as first_copy,
        case when u = u_first then count(*) over (
            partition by slice_0, grp, u order by x
            range between current row and current row
        ) - 1 else 0 end as tied_x
    from expanded
),
counts as (
    select
        slice_0,
        grp,
        sum(cast(s_term as hugeint)) as s,
        sum(cast(tied_x as hugeint)) as n_1x2,
        sum(first_copy) as n
    from running
    group by slice_0, grp
),
label_ties as (
    select
        slice_0,
        grp,
        sum(cast(n_u as hugeint) * (n_u - 1)) as n_2x2,
        max(n_levels) as n_levels
    from levels
    group by slice_0, grp
),
-- fast path (<= 2 labels in the group): counts per (group, score, label) cell
cells as (
    select
        slice_0,
        grp,
        x,
        y,
        count(*) as c
    from source
    group by slice_0, grp, x, y
),
cell_levels as (
    select
        slice_0,
        grp,
        x,
        y,
        c,
        min(y) over (partition by slice_0, grp) as lo,
        max(y) over (partition by slice_0, grp) as hi
    from cells
),
cell_running as (
    select
        slice_0,
        grp,
        y,
        c,
        lo,
        hi,
        sum(case when y = lo then c else 0 end) over (
            partition by slice_0, grp order by x range between unbounded preceding and current row
        ) as lo_le,
        sum(case when y = lo then c else 0 end) over (
            partition by slice_0, grp order by x range between current row and current row
        ) as lo_eq,
        sum(c) over (
            partition by slice_0, grp order by x range between current row and current row
        ) as t,
        sum(case when y = lo then c else 0 end) over (partition by slice_0, grp) as n_lo
    from cell_levels
),
binary_counts as (
    select
        slice_0,
        grp,
        sum(case when y = hi and hi > lo
            then cast(c as hugeint) * (2 * lo_le - lo_eq - n_lo) else 0 end) as s,
        sum(cast(c as hugeint) * (t - 1)) as n_1x2,
        sum(cast(c as hugeint)) as n,
        max(cast(n_lo as hugeint)) as n_lo,
        sum(case when y > lo and y < hi then 1 else 0 end) as n_middle
    from cell_running
    group by slice_0, grp
),
per_group as (
    select
        slice_0,
        grp,
        case
            when n * (n - 1) > n_1x2
                and n * (n - 1) > n_lo * (n_lo - 1) + (n - n_lo) * (n - n_lo - 1)
            then greatest(cast(-1 as double), least(cast(1 as double),
                cast(2 * s as double) / sqrt(
                    cast(n * (n - 1) - n_1x2 as double)
                    * cast(n * (n - 1) - n_lo * (n_lo - 1) - (n - n_lo) * (n - n_lo - 1)
                        as double)
                )
            ))
        end as tau
    from binary_counts
    where n_middle = 0
    union all
    select
        l.slice_0,
        l.grp,
        case
            when l.n_levels <= 1000
                and cast(c.n as hugeint) * (c.n - 1) > c.n_1x2
                and cast(c.n as hugeint) * (c.n - 1) > l.n_2x2
            then greatest(cast(-1 as double), least(cast(1 as double),
                cast(2 * c.s as double) / sqrt(
                    cast(cast(c.n as hugeint) * (c.n - 1) - c.n_1x2 as double)
                    * cast(cast(c.n as hugeint) * (c.n - 1) - l.n_2x2 as double)
                )
            ))
        end as tau
    from label_ties as l
    left join counts as c
        on l.slice_0 is not distinct from c.slice_0 and l.grp = c.grp
    where l.n_levels > 2
),
final as (
select
        slice_0,
        coalesce(cast(sum(cast(round((tau) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(tau)) / nullif(count(tau), 0) as kendall_tau,
        count(tau) as n_groups
    from per_group
    group by slice_0
)
select * from final
order by slice_0 nulls last
