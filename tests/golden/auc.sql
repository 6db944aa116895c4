with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        "score" as score
    from "events"
),
ranked as (
    select
        slice_0,
        label,
        rank() over (partition by slice_0 order by score) as rank_lo,
        count(*) over (partition by slice_0 order by score) as rank_hi
    from source
),
rank_sums as (
    select
        slice_0,
        cast(sum(label) as double) as n_pos,
        cast(count(*) - sum(label) as double) as n_neg,
        cast(
            sum(case when label = 1 then rank_lo + rank_hi else 0 end) - sum(label) * (sum(label) + 1)
            as double
        ) as u2
    from ranked
    group by slice_0
),
final as (
    select
        slice_0,
        u2 / 2 / nullif(n_pos * n_neg, 0) as auc,
        n_pos,
        n_neg
    from rank_sums
)
select * from final
order by slice_0 nulls last
