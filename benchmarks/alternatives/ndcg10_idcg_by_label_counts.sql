with source as (
    select
        "query_id" as grp,
        "item_id" as item,
        cast("score" as double) as score,
        cast("rel" as double) as label
    from read_parquet('{path}')
),
labelled as (
    select
        grp,
        item,
        score,
        label
    from source
),
-- one sort per group: score desc, then item (item_desc): a total order
ordered as (
    select
        grp,
        case when label >= 1 then 1 else 0 end as relevant,
        label as gain,
        row_number() over (partition by grp order by score desc, item desc) as pos
    from labelled
),
ranked as (
    select
        grp,
        pos,
        relevant,
        cast(relevant as double) as rel,
        gain,
        ln(2.0) / ln(pos + 1.0) as disc,
        1.0 - relevant as miss
    from ordered
),
run_groups as (
    select
        grp,
        sum(relevant) as n_rel,
        sum(case when pos <= 10 then gain * disc else 0 end) as m0_dcg,
        count(*) as n_ret
    from ranked
    group by grp
),
-- the judged items of positive gain in ideal order (label desc, then item: a total order)
label_counts as (
    select grp, label as gain, count(*) as c from source where label > 0 group by grp, label
),
ideal_runs as (
    select grp, gain, c,
        sum(c) over (partition by grp order by gain desc rows between unbounded preceding and current row) - c as start
    from label_counts
),
ideal_groups as (
    select grp, sum(gain * (case when least(start + c, 10) = 0 then 0.0 when least(start + c, 10) = 1 then ln(2.0) / ln(2.0) when least(start + c, 10) = 2 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) when least(start + c, 10) = 3 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) when least(start + c, 10) = 4 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) when least(start + c, 10) = 5 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) when least(start + c, 10) = 6 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) when least(start + c, 10) = 7 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) when least(start + c, 10) = 8 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) + ln(2.0) / ln(9.0) when least(start + c, 10) = 9 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) + ln(2.0) / ln(9.0) + ln(2.0) / ln(10.0) when least(start + c, 10) = 10 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) + ln(2.0) / ln(9.0) + ln(2.0) / ln(10.0) + ln(2.0) / ln(11.0) end - case when least(start, 10) = 0 then 0.0 when least(start, 10) = 1 then ln(2.0) / ln(2.0) when least(start, 10) = 2 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) when least(start, 10) = 3 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) when least(start, 10) = 4 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) when least(start, 10) = 5 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) when least(start, 10) = 6 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) when least(start, 10) = 7 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) when least(start, 10) = 8 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) + ln(2.0) / ln(9.0) when least(start, 10) = 9 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) + ln(2.0) / ln(9.0) + ln(2.0) / ln(10.0) when least(start, 10) = 10 then ln(2.0) / ln(2.0) + ln(2.0) / ln(3.0) + ln(2.0) / ln(4.0) + ln(2.0) / ln(5.0) + ln(2.0) / ln(6.0) + ln(2.0) / ln(7.0) + ln(2.0) / ln(8.0) + ln(2.0) / ln(9.0) + ln(2.0) / ln(10.0) + ln(2.0) / ln(11.0) end)) as m0_idcg
    from ideal_runs group by grp
),
per_group as (
    select *
    from run_groups
    left join ideal_groups using (grp)
),
flagged as (
    select
        per_group.*,
        case when coalesce(n_ret, 0) = 0 or n_rel = 0 then 1 else 0 end as is_empty
    from per_group
),
kept as (
    select *
    from flagged
    where is_empty = 0
),
aggregated as (
    select
        case when count(*) > 0 then sum(coalesce(m0_dcg / nullif(m0_idcg, 0), 0) order by coalesce(m0_dcg / nullif(m0_idcg, 0), 0)) / count(*) end
            as ndcg,
        count(*) as n_groups
    from kept
),
counted as (
    select
        sum(is_empty) as n_empty
    from flagged
),
final as (
    select
        aggregated.ndcg,
        coalesce(aggregated.n_groups, 0) as n_groups,
        counted.n_empty
    from counted
    cross join aggregated
)
select * from final
