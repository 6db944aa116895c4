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
segments as (
    select
        slice_0,
        p_total,
        n_total,
        case
            when fpr <= cast(1.0e0 as double)
                then (fpr - prev_fpr) * (tpr + prev_tpr) / 2
            when prev_fpr < cast(1.0e0 as double)
                then (cast(1.0e0 as double) - prev_fpr) * (
                    prev_tpr + (
                        ((tpr - prev_tpr) / (fpr - prev_fpr)) * (cast(1.0e0 as double) - prev_fpr) + prev_tpr
                    )
                ) / 2
            else cast(0 as double)
        end as area
    from points
),
areas as (
    select
        slice_0,
        max(p_total) as n_pos,
        max(n_total) as n_neg,
        coalesce(cast(sum(cast(round((area) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(area)) as area
    from segments
    group by slice_0
),
final as (
    select
        slice_0,
        case when n_pos > 0 and n_neg > 0 then area end as partial_auc,
        n_pos,
        n_neg
    from areas
)
select * from final
order by slice_0 nulls last
