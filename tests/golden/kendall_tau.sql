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
        row_number() over (partition by slice_0, grp order by y) as k
    from source
    group by slice_0, grp, y
),
leveled as (
    select
        s.slice_0,
        s.grp,
        s.x,
        s.y,
        l.k,
        l.n_levels
    from source as s
    join levels as l
        on s.slice_0 is not distinct from l.slice_0 and s.grp = l.grp and s.y = l.u
),
-- window path: per row, running counts of the rows with k <= t in (score asc, k desc) order
running as (
    select
        slice_0,
        grp,
        case k
            when 2 then sum(case when k <= 1 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            when 3 then sum(case when k <= 2 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            when 4 then sum(case when k <= 3 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            when 5 then sum(case when k <= 4 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            when 6 then sum(case when k <= 5 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            when 7 then sum(case when k <= 6 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            when 8 then sum(case when k <= 7 then 1 else 0 end) over (
                partition by slice_0, grp order by x, k desc rows between unbounded preceding and current row)
            else 0
        end as c
    from leveled
    where n_levels <= 8
),
concordant as (
    select
        slice_0,
        grp,
        sum(cast(c as hugeint)) as n_c
    from running
    group by slice_0, grp
),
-- ties: (score, label) cells, then score cells from them
xy_cells as (
    select
        slice_0,
        grp,
        x,
        count(*) as t
    from source
    group by slice_0, grp, x, y
),
x_cells as (
    select
        slice_0,
        grp,
        sum(cast(t as hugeint)) as t,
        sum(cast(t as hugeint) * (t - 1)) as n_3x2
    from xy_cells
    group by slice_0, grp, x
),
ties as (
    select
        slice_0,
        grp,
        sum(t * (t - 1)) as n_1x2,
        sum(n_3x2) as n_3x2
    from x_cells
    group by slice_0, grp
),
label_ties as (
    select
        slice_0,
        grp,
        sum(cast(n_u as hugeint) * (n_u - 1)) as n_2x2,
        sum(cast(n_u as hugeint)) as n,
        max(n_levels) as n_levels
    from levels
    group by slice_0, grp
),
-- many-label path (groups of more than window_levels + 1 labels): rank windows and the rows
-- joined with the group's levels u >= y (sets "label <= u")
ranked as (
    select
        slice_0,
        grp,
        x,
        y,
        rank() over (partition by slice_0, grp order by x) - 1 as a,
        rank() over (partition by slice_0, grp, y order by x) - 1 as e
    from leveled
    where n_levels > 8 and n_levels <= 1000
),
many_counts as (
    select
        slice_0,
        grp,
        sum(cast(a + e as hugeint)) as a_plus_e
    from ranked
    group by slice_0, grp
),
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
per_group_counts as (
    select
        l.slice_0,
        l.grp,
        case
            when l.n_levels <= 8
            then 4 * coalesce(c.n_c, 0) - l.n * (l.n - 1) + t.n_1x2 + l.n_2x2 - t.n_3x2
            else 2 * (g.two_r - m.a_plus_e)
        end as two_s,
        t.n_1x2,
        l.n_2x2,
        l.n * (l.n - 1) as n_0x2,
        l.n_levels
    from label_ties as l
    join ties as t
        on l.slice_0 is not distinct from t.slice_0 and l.grp = t.grp
    left join concordant as c
        on l.slice_0 is not distinct from c.slice_0 and l.grp = c.grp
    left join many_counts as m
        on l.slice_0 is not distinct from m.slice_0 and l.grp = m.grp
    left join set_counts as g
        on l.slice_0 is not distinct from g.slice_0 and l.grp = g.grp
),
per_group as (
    select
        slice_0,
        grp,
        case
            when n_levels <= 1000
                and n_0x2 > n_1x2 and n_0x2 > n_2x2
            then greatest(cast(-1 as double), least(cast(1 as double),
                cast(two_s as double) / sqrt(
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
