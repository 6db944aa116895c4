with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as s
    from "events"
),
ranked as (
    select
        source.*,
        rank() over (partition by slice_0 order by s desc) - 1 as higher,
        count(*) over (partition by slice_0) as n_slice,
        sum(label) over (partition by slice_0) as p_slice
    from source
),
binned as (
    select
        ranked.*,
        1 + cast(floor(cast(higher * 10 as double) / cast(n_slice as double)) as integer) as bin
    from ranked
),
per_bin as (
    select
        slice_0,
        bin,
        count(*) as n,
        sum(label) as n_pos,
        min(s) as min_score,
        max(s) as max_score,
        max(n_slice) as n_slice,
        max(p_slice) as p_slice
    from binned
    group by slice_0, bin
),
cumulated as (
    select
        per_bin.*,
        sum(n) over (partition by slice_0 order by bin rows between unbounded preceding and current row) as cumulative_n,
        sum(n_pos) over (partition by slice_0 order by bin rows between unbounded preceding and current row) as cumulative_pos
    from per_bin
),
final as (
    select
        slice_0,
        bin,
        n,
        n_pos,
        min_score,
        max_score,
        cast(n_pos as double) / nullif(cast(n as double), 0) as response_rate,
        cast(cast(n_pos as double) / nullif(cast(n as double), 0) as double) / nullif(cast(cast(p_slice as double) / nullif(cast(n_slice as double), 0) as double), 0) as lift,
        cumulative_n,
        cumulative_pos,
        cast(cumulative_pos as double) / nullif(cast(p_slice as double), 0) as gain,
        cast(cast(cumulative_pos as double) / nullif(cast(cumulative_n as double), 0) as double) / nullif(cast(cast(p_slice as double) / nullif(cast(n_slice as double), 0) as double), 0) as cumulative_lift
    from cumulated
)
select * from final
order by slice_0 nulls last, bin
