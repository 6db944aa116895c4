with source as (
    select
        "country" as slice_0,
        cast(case when cast("label" as boolean) then 1 else 0 end as double) as label,
        cast("score" as double) as p,
        cast(1 as double) as w
    from "events"
),
per_row as (
    select
        slice_0,
        w,
        w * (p - label) * (p - label) as wsq
    from source
),
final as (
    select
        slice_0,
        sum(wsq order by wsq) / nullif(sum(w order by w), 0) as brier_score,
        sum(w order by w) as n
    from per_row
    group by slice_0
)
select * from final
order by slice_0
