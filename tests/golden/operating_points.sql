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
recall_at_precision_ranked as (
    select
        points.*,
        case when p_total > 0 and tp / nullif(tp + fp, 0) >= cast(0.5e0 as double) then 1 else 0 end as eligible,
        row_number() over (partition by slice_0 order by case when p_total > 0 and tp / nullif(tp + fp, 0) >= cast(0.5e0 as double) then 0 else 1 end, tp desc, tp / nullif(tp + fp, 0) desc, s desc) as best_rank
    from points
),
recall_at_precision_best as (
    select
        slice_0,
        max(p_total) as recall_at_precision_p,
        max(n_total) as recall_at_precision_n,
        max(case when best_rank = 1 and eligible = 1 then tpr end) as recall_at_precision_v,
        max(case when best_rank = 1 and eligible = 1 then s end) as recall_at_precision_threshold
    from recall_at_precision_ranked
    group by slice_0
),
precision_at_recall_ranked as (
    select
        points.*,
        case when tp + fp > 0 and tpr >= cast(0.5e0 as double) then 1 else 0 end as eligible,
        row_number() over (partition by slice_0 order by case when tp + fp > 0 and tpr >= cast(0.5e0 as double) then 0 else 1 end, tp / nullif(tp + fp, 0) desc, tp desc, s desc) as best_rank
    from points
),
precision_at_recall_best as (
    select
        slice_0 as o1_slice_0,
        max(p_total) as precision_at_recall_p,
        max(n_total) as precision_at_recall_n,
        max(case when best_rank = 1 and eligible = 1 then tp / nullif(tp + fp, 0) end) as precision_at_recall_v,
        max(case when best_rank = 1 and eligible = 1 then s end) as precision_at_recall_threshold
    from precision_at_recall_ranked
    group by slice_0
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
        slice_0 as o2_slice_0,
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
        recall_at_precision_v as recall_at_precision,
        precision_at_recall_v as precision_at_recall,
        case when tpr_at_fpr_p > 0 and tpr_at_fpr_n > 0 then coalesce(tpr_at_fpr_v, cast(0 as double)) end as tpr_at_fpr,
        recall_at_precision_threshold,
        precision_at_recall_threshold,
        tpr_at_fpr_threshold
    from recall_at_precision_best
    join precision_at_recall_best on ((recall_at_precision_best.slice_0 is not distinct from precision_at_recall_best.o1_slice_0))
    join tpr_at_fpr_best on ((recall_at_precision_best.slice_0 is not distinct from tpr_at_fpr_best.o2_slice_0))
)
select * from final
order by slice_0 nulls last
