with source as (
select
        "country" as slice_0,
        "item" as item
    from "events"
),
item_counts as (
select
        slice_0,
        item,
        count(*) as c,
        sum(count(*)) over (partition by slice_0) as n
    from source
    group by slice_0, item
),
final as (
    select
        slice_0,
        -coalesce(cast(sum(cast(round((cast(c as double) / n * ln(cast(c as double) / n)) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(cast(c as double) / n * ln(cast(c as double) / n)))
            / ln(cast(2 as double)) as distributional_coverage,
        count(*) as n_items
    from item_counts
    group by slice_0
)
select * from final
order by slice_0 nulls last
