with source as (
    select
        "country" as slice_0,
        "group" as grp,
        "item" as item,
        "score" as score,
        cast("label" as double) as label
    from "events"
),
labelled as (
    select
        slice_0,
        grp,
        item,
        score,
        label
    from source
),
-- one sort per group: score desc, then item (item_desc): a total order
ordered as (
    select
        slice_0,
        grp,
        case when label >= 1 then 1 else 0 end as relevant,
        (power(cast(2.0e0 as double), label) - 1) as gain,
        row_number() over (partition by slice_0, grp order by score desc, item desc) as pos
    from labelled
),
ranked as (
    select
        slice_0,
        grp,
        pos,
        relevant,
        cast(relevant as double) as rel,
        gain,
        ln(cast(2.0e0 as double)) / ln(pos + cast(1.0e0 as double)) as disc,
        cast(1.0e0 as double) - relevant as miss
    from ordered
),
run_groups as (
    select
        slice_0,
        grp,
        sum(relevant) as n_rel,
        coalesce(cast(1.0e0 as double) / min(case when relevant = 1 and pos <= 10 then pos end), cast(0.0e0 as double)) as mrr_rr,
        count(*) as n_ret
    from ranked
    group by slice_0, grp
),
per_group as (
    select
        run_groups.*
    from run_groups
),
flagged as (
    select
        per_group.*,
        case when n_rel = 0 then 1 else 0 end as is_empty
    from per_group
),
kept as (
    select *
    from flagged
    where is_empty = 0
),
aggregated as (
    select
        slice_0,
        case when count(*) > 0 then coalesce(cast(sum(cast(round((coalesce(mrr_rr, 0)) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(coalesce(mrr_rr, 0))) / count(*) end
            as mrr,
        count(*) as n_groups
    from kept
    group by slice_0
),
counted as (
    select
        slice_0,
        sum(is_empty) as n_empty
    from flagged
    group by slice_0
),
final as (
    select
        counted.slice_0 as slice_0,
        aggregated.mrr,
        coalesce(aggregated.n_groups, 0) as n_groups,
        counted.n_empty as n_empty
    from counted
    left join aggregated on ((counted.slice_0 is not distinct from aggregated.slice_0))
)
select * from final
order by slice_0 nulls last
