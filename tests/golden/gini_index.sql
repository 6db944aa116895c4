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
catalog_slices as (
    select distinct
        slice_0,
        n
    from item_counts
),
-- every catalog item in every slice: the recommended ones with their counts, the others 0
catalog as (
    select
        s.slice_0 as slice_0,
        t.item as item,
        0 as c,
        s.n as n
    from catalog_slices as s
    cross join (
        select distinct
            "item" as item
        from "train_events"
    ) as t
    union all
    select
        slice_0,
        item,
        c,
        n
    from item_counts
),
items as (
    select
        slice_0,
        item,
        max(c) as c,
        max(n) as n
    from catalog
    group by slice_0, item
),
ordered as (
    select
        slice_0,
        c,
        n,
        row_number() over (partition by slice_0 order by c, item) as j,
        count(*) over (partition by slice_0) as m
    from items
),
final as (
    select
        slice_0,
        cast(sum(cast(2 * j - m - 1 as hugeint) * c) as double)
            / nullif(cast(max(m) - 1 as double) * max(n), 0) as gini_index,
        count(*) as n_items
    from ordered
    group by slice_0
)
select * from final
order by slice_0 nulls last
