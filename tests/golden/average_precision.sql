with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        "score" as score,
        1 as w
    from "events"
),
per_score as (
    select
        slice_0,
        score,
        sum(label) as w_pos,
        count(*) - sum(label) as w_neg
    from source
    group by slice_0, score
),
cumulative as (
    select
        slice_0,
        score,
        w_pos,
        w_neg,
        sum(w_pos) over (
            partition by slice_0 order by score desc rows between unbounded preceding and current row
        ) as tp,
        sum(w_neg) over (
            partition by slice_0 order by score desc rows between unbounded preceding and current row
        ) as fp
    from per_score
),
cumulated as (
    select
        slice_0,
        score,
        w_pos,
        w_neg,
        tp,
        fp,
        max(tp) over (partition by slice_0) as n_pos,
        max(fp) over (partition by slice_0) as n_neg,
        nullif(least(ceil(ln(nullif(max(abs(w_pos)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_pos_exp
    from cumulative
),
per_slice as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((w_pos * (cast(tp as double) / nullif(cast(tp + fp as double), 0))) * power(cast(2.0e0 as double), 80 - greatest(w_pos_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_pos_exp, -940)) - 80), sum(w_pos * (cast(tp as double) / nullif(cast(tp + fp as double), 0))))
            as ap_sum,
        max(n_pos) as n_pos,
        max(n_neg) as n_neg
    from cumulated
    group by slice_0
),
final as (
    select
        slice_0,
        cast(ap_sum as double) / nullif(cast(n_pos as double), 0) as average_precision,
        n_pos,
        n_neg
    from per_slice
)
select * from final
order by slice_0 nulls last
