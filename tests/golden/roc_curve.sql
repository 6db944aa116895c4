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
neighbours as (
    select
        slice_0,
        score, tp, fp, n_pos, n_neg,
        case when row_number() over (partition by slice_0 order by score desc) = 1 then null else lag(tp) over (partition by slice_0 order by score desc) end as prev_tp,
        case when row_number() over (partition by slice_0 order by score desc) = count(*) over (partition by slice_0) then null else lead(tp) over (partition by slice_0 order by score desc) end as next_tp,
        case when row_number() over (partition by slice_0 order by score desc) = 1 then null else lag(fp) over (partition by slice_0 order by score desc) end as prev_fp,
        case when row_number() over (partition by slice_0 order by score desc) = count(*) over (partition by slice_0) then null else lead(fp) over (partition by slice_0 order by score desc) end as next_fp
    from cumulated
),
kept as (
    select slice_0,  score, tp, fp, n_pos, n_neg
    from neighbours
    where prev_tp is null
        or next_tp is null
        or (next_fp - fp) - (fp - prev_fp) <> 0
        or (next_tp - tp) - (tp - prev_tp) <> 0
),
thinned as (
    select * from kept
)
,
totals as (
    select
        slice_0,
        max(n_pos) as n_pos,
        max(n_neg) as n_neg
    from cumulated
    group by slice_0
),
curve as (
    select
        slice_0,
        cast('Infinity' as double) as threshold,
        0 as tp,
        0 as fp,
        n_pos,
        n_neg
    from totals
    union all
    select slice_0,  cast(score as double) as threshold, tp, fp, n_pos, n_neg
    from thinned
),
final as (
    select
        slice_0,
        threshold,
        cast(fp as double) / nullif(cast(n_neg as double), 0) as fpr,
        cast(tp as double) / nullif(cast(n_pos as double), 0) as tpr,
        tp,
        fp,
        n_neg - fp as tn,
        n_pos - tp as fn
    from curve
)
select * from final
order by slice_0 nulls last, threshold desc, fp, tp
