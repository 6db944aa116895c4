with source as (
    select
        "country" as slice_0,
        "group" as grp,
        "item" as item,
        ("score" + 0) as score,
        cast("label" as Float64) as label
    from "events"
),
labelled as (
    select
        slice_0,
        grp,
        item,
        score,
        label
    from source
),
-- one sort per group: score desc, then item (item_desc): a total order
ordered as (
    select
        slice_0,
        grp,
        case when label >= 1 then 1 else 0 end as relevant,
        (power(cast(2.0e0 as Float64), label) - 1) as gain,
        nullif(least(ceil(ln(nullif(max(abs((power(cast(2.0e0 as Float64), label) - 1))) over (partition by slice_0, grp order by score desc, item desc rows between unbounded preceding and unbounded following), 0)) / ln(cast(2.0e0 as Float64))), 2000), 2000)
            as gain_exp,
        row_number() over (partition by slice_0, grp order by score desc, item desc) as pos
    from labelled
),
ranked as (
    select
        slice_0,
        grp,
        pos,
        relevant,
        cast(relevant as Float64) as rel,
        gain,
        gain_exp,
        ln(cast(2.0e0 as Float64)) / ln(pos + cast(1.0e0 as Float64)) as disc,
        cast(1.0e0 as Float64) - relevant as miss
    from ordered
),
run_groups as (
    select
        slice_0,
        grp,
        sum(relevant) as n_rel,
        coalesce(cast(sum(if((round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940)))) is null, NULL, cast(cast(floor(ifNotFinite(round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940))), 0) - floor(ifNotFinite(round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), max(greatest(gain_exp, -940)) - 80), sum(case when pos <= 10 then gain * disc else 0 end)) as ndcg_dcg,
        count(*) as n_ret
    from ranked
    group by slice_0, grp
),
-- the judged items of positive gain in ideal order (label desc, then item: a total order)
ideal as (
    select
        slice_0,
        grp,
        (power(cast(2.0e0 as Float64), label) - 1) as gain,
        nullif(least(ceil(ln(nullif(max(abs((power(cast(2.0e0 as Float64), label) - 1))) over (partition by slice_0, grp order by label desc, item rows between unbounded preceding and unbounded following), 0)) / ln(cast(2.0e0 as Float64))), 2000), 2000)
            as gain_exp,
        row_number() over (
            partition by slice_0, grp order by label desc, item
        ) as ipos
    from source
    where label > 0
),
ideal_groups as (
    select
        slice_0 as i_slice_0,
        coalesce(cast(sum(if((round((case when ipos <= 10 then gain * ln(cast(2.0e0 as Float64)) / ln(ipos + cast(1.0e0 as Float64)) else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940)))) is null, NULL, cast(cast(floor(ifNotFinite(round((case when ipos <= 10 then gain * ln(cast(2.0e0 as Float64)) / ln(ipos + cast(1.0e0 as Float64)) else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((case when ipos <= 10 then gain * ln(cast(2.0e0 as Float64)) / ln(ipos + cast(1.0e0 as Float64)) else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940))), 0) - floor(ifNotFinite(round((case when ipos <= 10 then gain * ln(cast(2.0e0 as Float64)) / ln(ipos + cast(1.0e0 as Float64)) else 0 end) * power(cast(2.0e0 as Float64), 80 - greatest(gain_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), max(greatest(gain_exp, -940)) - 80), sum(case when ipos <= 10 then gain * ln(cast(2.0e0 as Float64)) / ln(ipos + cast(1.0e0 as Float64)) else 0 end)) as ndcg_idcg,
        grp as i_grp
    from ideal
    group by slice_0, grp
),
per_group as (
    select
        run_groups.*,
        ideal_groups.*
    from run_groups
    left join ideal_groups on ((run_groups.slice_0 is not distinct from ideal_groups.i_slice_0)) and run_groups.grp = ideal_groups.i_grp
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
        case when count(*) > 0 then coalesce(cast(sum(if((round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as Float64), 80))) is null, NULL, cast(cast(floor(ifNotFinite(round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as Float64), 80)), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as Float64), 80)), 0) - floor(ifNotFinite(round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as Float64), 80)), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), -80), sum(coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0))) / count(*) end
            as ndcg,
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
        aggregated.ndcg,
        coalesce(aggregated.n_groups, 0) as n_groups,
        counted.n_empty as n_empty
    from counted
    left join aggregated on ((counted.slice_0 is not distinct from aggregated.slice_0))
)
select * from final
order by slice_0 nulls last
