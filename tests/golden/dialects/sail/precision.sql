with source as (
    select
        `country` as slice_0, `day` as slice_1,
        case when cast(`label` as string) = 'yes' then 1 else 0 end as label,
        case when (`score` + 0) >= cast(0.3e0 as double) then 1 else 0 end as predicted,
        1 as w
    from `events`
),
counts as (
    select
        slice_0, slice_1,
        sum(case when label = 1 and predicted = 1 then w else 0 end) as tp,
        sum(case when label = 0 and predicted = 1 then w else 0 end) as fp,
        sum(case when label = 0 and predicted = 0 then w else 0 end) as tn,
        sum(case when label = 1 and predicted = 0 then w else 0 end) as fn
    from source
    group by slice_0, slice_1
),
final as (
    select
        slice_0, slice_1,
        cast(tp as double) / nullif(cast(tp + fp as double), 0) as precision,
        tp, fp, tn, fn
    from counts
)
select * from final
order by slice_0 nulls last, slice_1 nulls last
