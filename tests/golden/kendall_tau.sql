with source as (
select
        "country" as slice_0,
        0 as grp,
        "score" as x,
        cast("label" as double) as y
    from "events"
),
-- per row: a (le) = rows of the group scored lower (at most as high); rank() and count(*)
-- give ties alike whatever their order
ranked as (
    select
        slice_0,
        grp,
        x,
        y,
        rank() over (partition by slice_0, grp order by x) - 1 as a,
        count(*) over (partition by slice_0, grp order by x) as le
    from source
),
-- one row per (group, label level): its row count, the rows of lower labels, its sums
levels as (
    select
        slice_0,
        grp,
        y as u,
        count(*) as n_u,
        sum(cast(a + le as hugeint)) as a_le,
        sum(cast(le - a - 1 as hugeint)) as score_ties
    from ranked
    group by slice_0, grp, y
),
level_bounds as (
    select
        slice_0,
        grp,
        u,
        n_u,
        a_le,
        score_ties,
        sum(n_u) over (partition by slice_0, grp order by u rows between unbounded preceding and current row) - n_u as n_below,
        min(u) over (partition by slice_0, grp) as lo,
        count(*) over (partition by slice_0, grp) as n_levels
    from levels
),
-- each row of a label y above its group's lowest, in the sets "label >= u" for the levels
-- u <= y above the lowest (the highest level's set: the rows of that label alone)
expanded as (
    select
        r.slice_0 as slice_0,
        r.grp as grp,
        r.x as x,
        r.y as y,
        l.u as u
    from source as r
    join level_bounds as l
        on ((r.slice_0 is not distinct from l.slice_0)) and r.grp = l.grp
        and l.u <= r.y
    where l.u > l.lo and l.n_levels <= 1000
),
set_ranks as (
    select
        slice_0,
        grp,
        y,
        u,
        rank() over (partition by slice_0, grp, u order by x) - 1
            + count(*) over (partition by slice_0, grp, u order by x) as ge
    from expanded
),
set_counts as (
    select
        slice_0,
        grp,
        sum(cast(ge as hugeint)) as ge
    from set_ranks
    where u = y
    group by slice_0, grp
),
per_group_counts as (
    select
        slice_0,
        grp,
        sum(case when u = lo then 0 else a_le - cast(n_u as hugeint) * n_below end) as s_part,
        sum(score_ties) as n_1x2,
        sum(cast(n_u as hugeint) * (n_u - 1)) as n_2x2,
        cast(sum(n_u) as hugeint) * (sum(n_u) - 1) as n_0x2,
        max(n_levels) as n_levels
    from level_bounds
    group by slice_0, grp
),
per_group as (
    select
        c.slice_0 as slice_0,
        c.grp as grp,
        case
            when c.n_levels <= 1000
                and c.n_0x2 > c.n_1x2 and c.n_0x2 > c.n_2x2
            then greatest(cast(-1 as double), least(cast(1 as double),
                cast(2 * (c.s_part - coalesce(g.ge, 0)) as double) / sqrt(
                    cast(c.n_0x2 - c.n_1x2 as double)
                    * cast(c.n_0x2 - c.n_2x2 as double)
                )
            ))
        end as tau
    from per_group_counts as c
    left join set_counts as g
        on ((c.slice_0 is not distinct from g.slice_0)) and c.grp = g.grp
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
