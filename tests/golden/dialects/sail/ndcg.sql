with source as (
    select
        `country` as slice_0,
        `group` as grp,
        `item` as item,
        (`score` + 0) as score,
        cast(`label` as double) as label
    from `events`
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
        (power(cast(2.0e0 as double), label) - 1) as gain,
        nullif(least(ceil(ln(nullif(max(abs((power(cast(2.0e0 as double), label) - 1))) over (partition by slice_0, grp order by score desc, item desc rows between unbounded preceding and unbounded following), 0)) / ln(cast(2.0e0 as double))), 2000), 2000)
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
        cast(relevant as double) as rel,
        gain,
        gain_exp,
        ln(cast(2.0e0 as double)) / ln(pos + cast(1.0e0 as double)) as disc,
        cast(1.0e0 as double) - relevant as miss
    from ordered
),
run_groups as (
    select
        slice_0,
        grp,
        sum(relevant) as n_rel,
        coalesce(cast(sum((cast(cast(floor((round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as double), 80 - greatest(gain_exp, -940)))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as double), 80 - greatest(gain_exp, -940)))) - floor((round((case when pos <= 10 then gain * disc else 0 end) * power(cast(2.0e0 as double), 80 - greatest(gain_exp, -940)))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), max(greatest(gain_exp, -940)) - 80), sum(case when pos <= 10 then gain * disc else 0 end)) as ndcg_dcg,
        count(*) as n_ret
    from ranked
    group by slice_0, grp
),
-- the judged items of positive gain counted per label: in the ideal order (label desc) each
-- label's items fill one run of positions; only the first 10 positions are needed
ideal_runs as (
    select
        slice_0,
        grp,
        gain,
        n_items,
        coalesce(sum(n_items) over (
            partition by slice_0, grp order by label desc
            rows between unbounded preceding and 1 preceding
        ), 0) as before,
        nullif(least(ceil(ln(nullif(max(abs(gain)) over (partition by slice_0, grp order by label desc rows between unbounded preceding and unbounded following), 0)) / ln(cast(2.0e0 as double))), 2000), 2000)
            as gain_exp
    from (
        select
            slice_0,
            grp,
            label,
            (power(cast(2.0e0 as double), label) - 1) as gain,
            count(*) as n_items
        from source
        where label > 0
        group by slice_0, grp, label
    ) as label_counts
),
ideal as (
    select
        r.slice_0 as slice_0,
        r.grp as grp,
        r.gain as gain,
        r.gain_exp as gain_exp,
        r.before + p.b as ipos
    from ideal_runs as r
    cross join (select b from (
    select cast(1 * d0.d + 10 * d1.d + 1 as bigint) as b
    from (select 0 as d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9) as d0 cross join (select 0 as d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9) as d1
) as digits
where b <= 10) as p
    where p.b <= r.n_items and r.before + p.b <= 10
),
ideal_groups as (
    select
        slice_0 as i_slice_0,
        coalesce(cast(sum((cast(cast(floor((round((case when ipos <= 10 then gain * ln(cast(2.0e0 as double)) / ln(ipos + cast(1.0e0 as double)) else 0 end) * power(cast(2.0e0 as double), 80 - greatest(gain_exp, -940)))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((case when ipos <= 10 then gain * ln(cast(2.0e0 as double)) / ln(ipos + cast(1.0e0 as double)) else 0 end) * power(cast(2.0e0 as double), 80 - greatest(gain_exp, -940)))) - floor((round((case when ipos <= 10 then gain * ln(cast(2.0e0 as double)) / ln(ipos + cast(1.0e0 as double)) else 0 end) * power(cast(2.0e0 as double), 80 - greatest(gain_exp, -940)))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), max(greatest(gain_exp, -940)) - 80), sum(case when ipos <= 10 then gain * ln(cast(2.0e0 as double)) / ln(ipos + cast(1.0e0 as double)) else 0 end)) as ndcg_idcg,
        grp as i_grp
    from ideal
    group by slice_0, grp
),
per_group as (
    select
        run_groups.*,
        ideal_groups.*
    from run_groups
    left join ideal_groups on ((run_groups.slice_0 <=> ideal_groups.i_slice_0)) and run_groups.grp = ideal_groups.i_grp
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
        case when count(*) > 0 then coalesce(cast(sum((cast(cast(floor((round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as double), 80))) - floor((round((coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0)) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), -80), sum(coalesce(ndcg_dcg / nullif(ndcg_idcg, 0), 0))) / count(*) end
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
    left join aggregated on ((counted.slice_0 <=> aggregated.slice_0))
)
select * from final
order by slice_0 nulls last
