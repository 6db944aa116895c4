with source as (
select
        "country" as slice_0,
        "item" as item
    from "events"
),
catalog as (
    select
        count(distinct "item") as n_catalog
    from "train_events"
),
covered as (
    select
        slice_0,
        count(distinct item) as n_covered
    from source
    group by slice_0
),
final as (
    select
        slice_0,
        cast(n_covered as double) / nullif(cast(n_catalog as double), 0) as catalog_coverage,
        n_covered
    from covered
    cross join catalog
)
select * from final
order by slice_0 nulls last
