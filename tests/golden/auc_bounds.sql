with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as score
    from "events"
),
extent as (
    -- read from the relation itself, not from `source`: `source` is then used once and
    -- streamed instead of materialised, and min/max may come from file statistics
    select
        "country" as e_slice_0,
        min(cast("score" as double)) / 2 as lo_half,
        max(cast("score" as double)) / 2 - min(cast("score" as double)) / 2 as width_half
    from "events"
    group by "country"
),
bucketed as (
    select
        slice_0,
        label,
        case
            when width_half = 0 then 0
            else least(
                cast(floor((score / 2 - lo_half) / width_half * 65536) as bigint),
                65535
            )
        end as bucket
    from source
    join extent
        on (slice_0 is not distinct from e_slice_0)
),
per_bucket as (
    select
        slice_0,
        bucket,
        sum(label) as pos_b,
        count(*) - sum(label) as neg_b
    from bucketed
    group by slice_0, bucket
),
ranked as (
    select
        slice_0,
        pos_b,
        neg_b,
        sum(neg_b) over (
            partition by slice_0 order by bucket rows between unbounded preceding and current row
        ) - neg_b as neg_below
    from per_bucket
),
per_slice as (
    select
        slice_0,
        sum(pos_b) as pos_sum,
        sum(neg_b) as neg_sum,
        sum(pos_b * neg_below) as pairs_diff,
        sum(pos_b * neg_b) as pairs_same
    from ranked
    group by slice_0
),
final as (
    select
        slice_0,
        cast(2 * pairs_diff + pairs_same as double) / nullif(cast(2 * pos_sum * neg_sum as double), 0) as auc_bounds,
        cast(pairs_diff as double) / nullif(cast(pos_sum * neg_sum as double), 0) as lower,
        cast(pairs_diff + pairs_same as double) / nullif(cast(pos_sum * neg_sum as double), 0) as upper,
        cast(pos_sum as double) as n_pos,
        cast(neg_sum as double) as n_neg
    from per_slice
)
select * from final
order by slice_0 nulls last
