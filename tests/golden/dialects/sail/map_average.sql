with source as (
    select
        `group` as grp,
        `item` as item,
        (`score` + 0) as score,
        cast(`label` as double) as label
    from `events`
),
labelled as (
    select
        grp,
        item,
        score,
        label
    from source
),
-- tie groups: n = tied items, r = relevant among them; upto = items scored >= this one
tied as (
    select
        grp,
        score,
        case when label >= 1 then 1 else 0 end as relevant,
        row_number() over (partition by grp order by score desc, item desc) as pos,
        count(*) over (partition by grp order by score desc) as upto,
        sum(case when label >= 1 then cast(1.0e0 as double) else cast(0.0e0 as double) end) over (
            partition by grp order by score desc
        ) as rel_upto,
        count(*) over (partition by grp, score) as tie_n,
        sum(case when label >= 1 then cast(1.0e0 as double) else cast(0.0e0 as double) end) over (
            partition by grp, score
        ) as tie_r,
        -- summed in label order: the same bits whatever the input order
        avg((power(cast(2.0e0 as double), label) - 1)) over (
            partition by grp, score order by label
            rows between unbounded preceding and unbounded following
        ) as tie_gain
    from labelled
),
-- t = offset of pos in its tie group; rel_above = relevant items scored strictly higher
tie_terms as (
    select
        grp,
        score,
        pos,
        tie_n,
        tie_r,
        tie_gain,
        relevant,
        rel_upto - tie_r as rel_above,
        pos - (upto - tie_n) - 1 as t,
        (tie_n - tie_r - (pos - (upto - tie_n) - 1)) / (tie_n - (pos - (upto - tie_n) - 1))
            as miss
    from tied
),
ranked as (
    select
        grp,
        pos,
        relevant,
        tie_r / tie_n as rel,
        tie_gain as gain,
        ln(cast(2.0e0 as double)) / ln(pos + cast(1.0e0 as double)) as disc,
        tie_r / tie_n * (1 + rel_above)
            + case when tie_n > 1 then t * tie_r * (tie_r - 1) / (tie_n * (tie_n - 1)) else 0 end
            as ap_term,
        case
            when rel_above = 0 and tie_r > 0 and coalesce(zero_before, 0) = 0
                then exp(coalesce(ln_miss_before, 0)) * tie_r / (tie_n - t)
            else cast(0.0e0 as double)
        end as p_first,
        miss
    from (
        -- over the whole group in position order: tie groups above the first one holding a
        -- relevant item have miss = 1 (ln 0), so for the rows where p_first can be > 0 this
        -- is the product over the earlier positions of their own tie group. Being the last
        -- window, it also hands each group's rows to run_groups in position order, so the
        -- per-group float sums are the same whatever the input order.
        select
            sum(ln(case when miss > 0 then miss else cast(1.0e0 as double) end)) over (
                partition by grp order by pos rows between unbounded preceding and 1 preceding
            ) as ln_miss_before,
            sum(case when miss <= 0 then 1 else 0 end) over (
                partition by grp order by pos rows between unbounded preceding and 1 preceding
            ) as zero_before,
            tie_terms.*
        from tie_terms
    ) as survival
),
run_groups as (
    select
        grp,
        sum(relevant) as n_rel,
        coalesce(cast(sum((cast(cast(floor((round((case when pos <= 10 then ap_term / pos else 0 end) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((case when pos <= 10 then ap_term / pos else 0 end) * power(cast(2.0e0 as double), 80))) - floor((round((case when pos <= 10 then ap_term / pos else 0 end) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), -80), sum(case when pos <= 10 then ap_term / pos else 0 end)) as map_ap_sum,
        count(*) as n_ret
    from ranked
    group by grp
),
per_group as (
    select
        run_groups.*
    from run_groups
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
        case when count(*) > 0 then coalesce(cast(sum((cast(cast(floor((round((coalesce(map_ap_sum / nullif(n_rel, 0), 0)) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((coalesce(map_ap_sum / nullif(n_rel, 0), 0)) * power(cast(2.0e0 as double), 80))) - floor((round((coalesce(map_ap_sum / nullif(n_rel, 0), 0)) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), -80), sum(coalesce(map_ap_sum / nullif(n_rel, 0), 0))) / count(*) end
            as map,
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
        aggregated.map,
        coalesce(aggregated.n_groups, 0) as n_groups,
        counted.n_empty as n_empty
    from counted
    cross join aggregated
)
select * from final
