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
gaps as (
    select
        points.*,
        abs(tp * n_total - fp * p_total) as gap
    from points
),
best as (
    select
        gaps.*,
        max(gap) over (partition by slice_0) as max_gap
    from gaps
),
-- tp and fp do not decrease as the threshold falls, so the point of the largest threshold
-- among those of the largest gap has the smallest tpr and fpr of them: a min, no join back
at_best as (
    select
        slice_0,
        max(max_gap) / nullif(max(p_total) * max(n_total), 0) as ks,
        max(case when gap = max_gap then s end) as threshold,
        min(case when gap = max_gap then tpr end) as tpr,
        min(case when gap = max_gap then fpr end) as fpr
    from best
    group by slice_0
),
final as (
    select
        slice_0,
        ks as ks_statistic,
        threshold,
        tpr,
        fpr
    from at_best
)
select * from final
order by slice_0 nulls last
