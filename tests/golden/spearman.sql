with source as (
select
        "country" as slice_0,
        0 as grp,
        "score" as x,
        cast("label" as double) as y
    from "events"
),
-- doubled average ranks centred on n + 1: integers, 2 (r - m)
ranked as (
    select
        slice_0,
        grp,
        cast(rank() over (partition by slice_0, grp order by x) + count(*) over (partition by slice_0, grp order by x)
            - count(*) over (partition by slice_0, grp) - 1 as hugeint) as dx,
        cast(rank() over (partition by slice_0, grp order by y) + count(*) over (partition by slice_0, grp order by y)
            - count(*) over (partition by slice_0, grp) - 1 as hugeint) as dy
    from source
),
sums as (
    select
        slice_0,
        grp,
        sum(dx * dy) as sxy,
        sum(dx * dx) as sxx,
        sum(dy * dy) as syy
    from ranked
    group by slice_0, grp
),
per_group as (
    select
        slice_0,
        grp,
        case
            when sxx > 0 and syy > 0 then greatest(cast(-1 as double), least(
                cast(1 as double),
                cast(sxy as double)
                    / sqrt(cast(sxx as double) * cast(syy as double))
            ))
        end as rho
    from sums
),
final as (
select
        slice_0,
        coalesce(cast(sum(cast(round((rho) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(rho)) / nullif(count(rho), 0) as spearman,
        count(rho) as n_groups
    from per_group
    group by slice_0
)
select * from final
order by slice_0 nulls last
