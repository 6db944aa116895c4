-- exact AUC as histogram (pairs in different buckets) + exact rank sums inside each bucket
-- (partition by bucket): same value as sql/classification/auc.sql; measured slower (see README)
with source as (
    select cast(label as integer) as label, cast(score as double) as score from read_parquet(['{path}'])
),
extent as (
    select min(score) / 2 as lo_half, max(score) / 2 - min(score) / 2 as width_half from read_parquet(['{path}'])
),
bucketed as (
    select label, score, least(cast(floor((score / 2 - lo_half) / width_half * 65536) as bigint), 65535) as bucket from source cross join extent
),
ranked as (
    select
        bucket,
        label,
        rank() over (partition by bucket order by score) as rank_lo,
        count(*) over (partition by bucket order by score) as rank_hi
    from bucketed
),
per_bucket as (
    select
        bucket,
        cast(sum(label) as double) as pos_b,
        cast(count(*) - sum(label) as double) as neg_b,
        sum(case when label = 1 then (rank_lo + rank_hi) / 2.0 else 0 end) as rank_sum_pos
    from ranked
    group by bucket
),
cumulative as (
    select
        pos_b,
        neg_b,
        rank_sum_pos,
        sum(neg_b) over (order by bucket rows between unbounded preceding and current row)
            - neg_b as neg_below
    from per_bucket
)
select
    (sum(pos_b * neg_below) + sum(rank_sum_pos - pos_b * (pos_b + 1) / 2))
        / (sum(pos_b) * sum(neg_b)) as auc
from cumulative
