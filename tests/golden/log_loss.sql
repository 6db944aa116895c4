with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as p,
        cast(1 as double) as w
    from "events"
),
per_row as (
    select
        slice_0,
        w,
        w * -ln(
            case
                when label = 1 then greatest(least(p, cast(0.9999999999999998 as double)), cast(2.220446049250313e-16 as double))
                else greatest(least(1 - p, cast(0.9999999999999998 as double)), cast(2.220446049250313e-16 as double))
            end
        ) as wloss
    from source
),
final as (
    select
        slice_0,
        sum(wloss order by wloss) / nullif(sum(w order by w), 0) as log_loss,
        sum(w order by w) as n
    from per_row
    group by slice_0
)
select * from final
order by slice_0
