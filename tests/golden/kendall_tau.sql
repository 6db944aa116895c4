with source as (
select
        "country" as slice_0,
        0 as grp,
        "score" as x,
        cast("label" as double) as y
    from "events"
),
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
levels as (
    select
        slice_0,
        grp,
        y as u,
        sum(c) as n_u,
        count(*) over (partition by slice_0, grp) as n_levels
    from cells
    group by slice_0, grp, y
),
-- every cell with every label level of its group (groups within max_label_levels only)
expanded as (
    select
        cells.slice_0,
        cells.grp,
        cells.x,
        cells.y,
        cells.c,
        levels.u
    from cells
    join levels
        on cells.slice_0 is not distinct from levels.slice_0 and cells.grp = levels.grp
    where levels.n_levels <= 1000
),
running as (
    select
        slice_0,
        grp,
        c * case when y > u then 1 when y < u then -1 else 0 end * sum(
            case when y = u then c else 0 end
        ) over (
            partition by slice_0, grp, u
            order by x, case when y = u then 1 else 0 end, y
            rows between unbounded preceding and current row
        ) as s_term
    from expanded
),
concordance as (
    select
        slice_0,
        grp,
        sum(cast(s_term as hugeint)) as s
    from running
    group by slice_0, grp
),
score_ties as (
    select
        slice_0,
        grp,
        sum(cast(t as hugeint) * (t - 1)) as n_1x2,
        sum(t) as n
    from (
        select
            slice_0,
            grp,
            sum(c) as t
        from cells
        group by slice_0, grp, x
    ) as by_score
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
per_group as (
    select
        t.slice_0,
        t.grp,
        case
            when l.n_levels <= 1000
                and cast(t.n as hugeint) * (t.n - 1) > t.n_1x2
                and cast(t.n as hugeint) * (t.n - 1) > l.n_2x2
            then greatest(cast(-1 as double), least(cast(1 as double),
                cast(2 * coalesce(k.s, 0) as double) / sqrt(
                    cast(cast(t.n as hugeint) * (t.n - 1) - t.n_1x2 as double)
                    * cast(cast(t.n as hugeint) * (t.n - 1) - l.n_2x2 as double)
                )
            ))
        end as tau
    from score_ties as t
    join label_ties as l
        on t.slice_0 is not distinct from l.slice_0 and t.grp = l.grp
    left join concordance as k
        on t.slice_0 is not distinct from k.slice_0 and t.grp = k.grp
),
final as (
select
        slice_0,
        coalesce(cast(sum(cast(round((tau) * power(2.0, 80)) as hugeint)) as double) * power(2.0, -80), sum(tau)) / nullif(count(tau), 0) as kendall_tau,
        count(tau) as n_groups
    from per_group
    group by slice_0
)
select * from final
order by slice_0
