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
        count(*) over (partition by slice_0, grp) as n_levels
    from source
    group by slice_0, grp, y
),
-- per row: a = rows of the group scored lower, le = rows scored at most as high, e = rows
-- of its own label scored lower (rank() counts ties once: no tie order is needed)
ranked as (
    select
        slice_0,
        grp,
        x,
        y,
        rank() over (partition by slice_0, grp order by x) - 1 as a,
        count(*) over (partition by slice_0, grp order by x) as le,
        rank() over (partition by slice_0, grp, y order by x) - 1 as e,
        min(y) over (partition by slice_0, grp) as lo
    from source
),
counts as (
    select
        slice_0,
        grp,
        sum(cast(case when y > lo then a - e else e - a end as hugeint)) as s_two,
        sum(cast(a + e as hugeint)) as a_plus_e,
        sum(cast(le - a - 1 as hugeint)) as n_1x2,
        count(*) as n
    from ranked
    group by slice_0, grp
),
-- groups of more than two labels: each row in every set "label <= u" it belongs to
expanded as (
    select
        r.slice_0,
        r.grp,
        r.x,
        r.y,
        l.u
    from ranked as r
    join levels as l
        on r.slice_0 is not distinct from l.slice_0 and r.grp = l.grp
        and l.u >= r.y
    where l.n_levels > 2 and l.n_levels <= 1000
),
set_ranks as (
    select
        slice_0,
        grp,
        y,
        u,
        rank() over (partition by slice_0, grp, u order by x) as r
    from expanded
),
set_counts as (
    select
        slice_0,
        grp,
        sum(cast(2 * r - 2 as hugeint)) as two_r
    from set_ranks
    where u = y
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
per_group_counts as (
    select
        c.slice_0,
        c.grp,
        case when l.n_levels <= 2 then c.s_two else g.two_r - c.a_plus_e end as s,
        c.n_1x2,
        l.n_2x2,
        cast(c.n as hugeint) * (c.n - 1) as n_0x2,
        l.n_levels
    from counts as c
    join label_ties as l
        on c.slice_0 is not distinct from l.slice_0 and c.grp = l.grp
    left join set_counts as g
        on c.slice_0 is not distinct from g.slice_0 and c.grp = g.grp
),
per_group as (
    select
        slice_0,
        grp,
        case
            when n_levels <= 1000
                and n_0x2 > n_1x2 and n_0x2 > n_2x2
            then greatest(cast(-1 as double), least(cast(1 as double),
                cast(2 * s as double) / sqrt(
                    cast(n_0x2 - n_1x2 as double)
                    * cast(n_0x2 - n_2x2 as double)
                )
            ))
        end as tau
    from per_group_counts
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
