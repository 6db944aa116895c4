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
        label,
        sum(case when label >= 1 then 1 else 0 end) over (partition by slice_0, grp) as n_rel
    from source
),
-- one sort per group: score desc, then item (item_desc): a total order
ordered as (
    select
        slice_0,
        grp,
        n_rel,
        case when label >= 1 then 1 else 0 end as relevant,
        (power(cast(2.0e0 as double), label) - 1) as gain,
        sum(case when label >= 1 then cast(1.0e0 as double) else cast(0.0e0 as double) end) over (
            partition by slice_0, grp order by score desc, item desc
            rows between unbounded preceding and current row
        ) as cum_rel,
        row_number() over (partition by slice_0, grp order by score desc, item desc) as pos
    from labelled
),
ranked as (
    select
        slice_0,
        grp,
        n_rel,
        pos,
        relevant,
        cast(relevant as double) as rel,
        gain,
        ln(cast(2.0e0 as double)) / ln(pos + cast(1.0e0 as double)) as disc,
        relevant * cum_rel as ap_term,
        case when relevant = 1 and cum_rel = 1 then cast(1.0e0 as double) else cast(0.0e0 as double) end as p_first,
        cast(1.0e0 as double) - relevant as miss
    from ordered
),
run_groups as (
    select
        slice_0,
        grp,
        n_rel,
        (
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.0e0 as double) * cast(n_rel as double))) + case when (cast(0.0e0 as double) * cast(n_rel as double)) - floor((cast(0.0e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.1e0 as double) * cast(n_rel as double))) + case when (cast(0.1e0 as double) * cast(n_rel as double)) - floor((cast(0.1e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.2e0 as double) * cast(n_rel as double))) + case when (cast(0.2e0 as double) * cast(n_rel as double)) - floor((cast(0.2e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.3e0 as double) * cast(n_rel as double))) + case when (cast(0.3e0 as double) * cast(n_rel as double)) - floor((cast(0.3e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.4e0 as double) * cast(n_rel as double))) + case when (cast(0.4e0 as double) * cast(n_rel as double)) - floor((cast(0.4e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.5e0 as double) * cast(n_rel as double))) + case when (cast(0.5e0 as double) * cast(n_rel as double)) - floor((cast(0.5e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.6e0 as double) * cast(n_rel as double))) + case when (cast(0.6e0 as double) * cast(n_rel as double)) - floor((cast(0.6e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.7e0 as double) * cast(n_rel as double))) + case when (cast(0.7e0 as double) * cast(n_rel as double)) - floor((cast(0.7e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.8e0 as double) * cast(n_rel as double))) + case when (cast(0.8e0 as double) * cast(n_rel as double)) - floor((cast(0.8e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(0.9e0 as double) * cast(n_rel as double))) + case when (cast(0.9e0 as double) * cast(n_rel as double)) - floor((cast(0.9e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0) +
    coalesce(max(case when relevant = 1 and ap_term >= floor((cast(1.0e0 as double) * cast(n_rel as double))) + case when (cast(1.0e0 as double) * cast(n_rel as double)) - floor((cast(1.0e0 as double) * cast(n_rel as double))) >= cast(0.5e0 as double) then 1 else 0 end then cast(ap_term as double) / pos end), 0)
) / 11 as iprec_11pt_avg_ipr11,
        count(*) as n_ret
    from ranked
    group by slice_0, grp, n_rel
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
        case when count(*) > 0 then coalesce(cast(sum(cast(round((coalesce(iprec_11pt_avg_ipr11, 0)) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(coalesce(iprec_11pt_avg_ipr11, 0))) / count(*) end
            as iprec_11pt_avg,
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
        aggregated.iprec_11pt_avg,
        coalesce(aggregated.n_groups, 0) as n_groups,
        counted.n_empty as n_empty
    from counted
    left join aggregated on ((counted.slice_0 is not distinct from aggregated.slice_0))
)
select * from final
order by slice_0 nulls last
