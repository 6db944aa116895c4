-- exact AUC from three rank() windows, no framed count():
--   rank() over (order by score)        = 1 + PB + NB      (PB, NB: positives, negatives strictly below)
--   rank() over (order by score, label) = 1 + PB + NB + n_g for a positive (tied negatives first)
--   rank() among the positives only     = 1 + PB
--   U = sum over positives of (r_all + r_sl) / 2 - r_pos = sum of (NB + n_g / 2)
-- same value as sql/classification/auc.sql; the positives-only sort is small when P << N
with source as (
    select cast(label as integer) as label, cast(score as double) as score
    from read_parquet(['{path}'])
),
ranked as (
    select
        label,
        rank() over (order by score) as r_all,
        rank() over (order by score, label) as r_sl
    from source
),
positives as (
    select sum(r_pos) as rank_sum_pos
    from (select rank() over (order by score) as r_pos from source where label = 1) as p
),
per_slice as (
    select
        cast(sum(label) as double) as n_pos,
        cast(count(*) - sum(label) as double) as n_neg,
        sum(case when label = 1 then (r_all + r_sl) / 2.0 else 0 end) as half_sum
    from ranked
)
select (half_sum - rank_sum_pos) / (n_pos * n_neg) as auc
from per_slice
cross join positives
