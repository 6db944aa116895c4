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
    select slice_0,  cast(score as double) as threshold, tp, fp, n_pos
    from thinned
    union all
    select
        slice_0,
        cast('Infinity' as double) as threshold,
        0 as tp,
        0 as fp,
        n_pos
    from totals
),
final as (
    select
        slice_0,
        threshold,
        coalesce(cast(tp as double) / nullif(cast(tp + fp as double), 0), cast(1.0e0 as double)) as precision,
        cast(tp as double) / nullif(cast(n_pos as double), 0) as recall,
        tp,
        fp,
        n_pos - tp as fn
    from curve
)
select * from final
order by slice_0 nulls last, threshold, fp desc, tp desc
