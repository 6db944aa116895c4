with source as (
select
        "country" as slice_0,
        "item" as item
    from "events"
),
popularity as (
    select
        "item" as item,
        -ln(cast(count(*) as double) / sum(count(*)) over ())
            / ln(cast(2 as double)) as novelty
    from "train_events"
    group by "item"
),
scored as (
    select
        s.slice_0 as slice_0,
        coalesce(p.novelty, 0) as novelty
    from source as s
    left join popularity as p on p.item = s.item
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((novelty) * power(cast(2.0e0 as double), 74)) as hugeint)) as double) * power(cast(2.0e0 as double), -74), sum(novelty)) / count(*) as novelty,
        count(*) as n_recommendations
    from scored
    group by slice_0
)
select * from final
order by slice_0 nulls last
