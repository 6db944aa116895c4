with points_source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as s
    from "events"
),
per_score as (
    select
        slice_0,
        s,
        cast(sum(label) as double) as pos,
        cast(sum(1 - label) as double) as neg
    from points_source
    group by slice_0, s
),
cumulated as (
    select
        per_score.*,
        sum(pos) over (partition by slice_0 order by s desc rows between unbounded preceding and current row) as tp,
        sum(neg) over (partition by slice_0 order by s desc rows between unbounded preceding and current row) as fp
    from per_score
),
totals as (
    select
        cumulated.*,
        max(tp) over (partition by slice_0) as p_total,
        max(fp) over (partition by slice_0) as n_total
    from cumulated
),
rates as (
    select
        totals.*,
        tp / nullif(p_total, 0) as tpr,
        fp / nullif(n_total, 0) as fpr
    from totals
),
points as (
    select
        rates.*,
        coalesce(lag(tpr) over (partition by slice_0 order by s desc), cast(0 as double)) as prev_tpr,
        coalesce(lag(fpr) over (partition by slice_0 order by s desc), cast(0 as double)) as prev_fpr
    from rates
),
tpr_at_fpr_ranked as (
    select
        points.*,
        case when tp > 0 and fpr <= cast(0.1e0 as double) then 1 else 0 end as eligible,
        row_number() over (partition by slice_0 order by case when tp > 0 and fpr <= cast(0.1e0 as double) then 0 else 1 end, tp desc, -fp desc, s desc) as best_rank
    from points
),
tpr_at_fpr_best as (
    select
        slice_0,
        max(p_total) as tpr_at_fpr_p,
        max(n_total) as tpr_at_fpr_n,
        max(case when best_rank = 1 and eligible = 1 then tpr end) as tpr_at_fpr_v,
        max(case when best_rank = 1 and eligible = 1 then s end) as tpr_at_fpr_threshold
    from tpr_at_fpr_ranked
    group by slice_0
),
final as (
    select
        slice_0,
        case when tpr_at_fpr_p > 0 and tpr_at_fpr_n > 0 then coalesce(tpr_at_fpr_v, cast(0 as double)) end as tpr_at_fpr,
        tpr_at_fpr_threshold
    from tpr_at_fpr_best
)
select * from final
order by slice_0 nulls last
