with source as (
    select
        `country` as slice_0,
        case when cast(`label` as boolean) then 1 else 0 end as label,
        (`score` + 0) as score,
        cast(`w` as double) as w
    from `events`
),
-- w_exp = ceil(log2 max w) per slice: an aggregate joined back (no window over the slice)
exponents as (
    select
slice_0 as e_slice_0,
        coalesce(nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000), 0) as w_exp
    from source
    group by slice_0
),
-- weights scaled by 2^-w_exp (exact): scaled weights lie in [0, 1]
scaled as (
    select /*+ BROADCAST(exponents) */
        slice_0,
        label,
        score,
        w * power(cast(2.0e0 as double), floor((-w_exp) / cast(2.0e0 as double))) * power(cast(2.0e0 as double), (-w_exp) - floor((-w_exp) / cast(2.0e0 as double))) as w,
        w_exp
    from source
    join exponents on (slice_0 <=> e_slice_0)
),
-- per score: scaled weights in fixed point, integer units of 2^-80 (as exact_sum(., 0))
per_score as (
    select
        slice_0,
        score,
        max(w_exp) as w_exp,
        sum((cast(cast(floor((round(case when label = 1 then w else 0 end * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round(case when label = 1 then w else 0 end * power(cast(2.0e0 as double), 80))) - floor((round(case when label = 1 then w else 0 end * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as pos,
        sum((cast(cast(floor((round(case when label = 0 then w else 0 end * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round(case when label = 0 then w else 0 end * power(cast(2.0e0 as double), 80))) - floor((round(case when label = 0 then w else 0 end * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as neg
    from scaled
    group by slice_0, score
),
bucket_bounds as (
    select
slice_0 as q_slice_0,
        array(percentile_approx(score, cast(0.015625e0 as double), 1000), percentile_approx(score, cast(0.03125e0 as double), 1000), percentile_approx(score, cast(0.046875e0 as double), 1000), percentile_approx(score, cast(0.0625e0 as double), 1000), percentile_approx(score, cast(0.078125e0 as double), 1000), percentile_approx(score, cast(0.09375e0 as double), 1000), percentile_approx(score, cast(0.109375e0 as double), 1000), percentile_approx(score, cast(0.125e0 as double), 1000), percentile_approx(score, cast(0.140625e0 as double), 1000), percentile_approx(score, cast(0.15625e0 as double), 1000), percentile_approx(score, cast(0.171875e0 as double), 1000), percentile_approx(score, cast(0.1875e0 as double), 1000), percentile_approx(score, cast(0.203125e0 as double), 1000), percentile_approx(score, cast(0.21875e0 as double), 1000), percentile_approx(score, cast(0.234375e0 as double), 1000), percentile_approx(score, cast(0.25e0 as double), 1000), percentile_approx(score, cast(0.265625e0 as double), 1000), percentile_approx(score, cast(0.28125e0 as double), 1000), percentile_approx(score, cast(0.296875e0 as double), 1000), percentile_approx(score, cast(0.3125e0 as double), 1000), percentile_approx(score, cast(0.328125e0 as double), 1000), percentile_approx(score, cast(0.34375e0 as double), 1000), percentile_approx(score, cast(0.359375e0 as double), 1000), percentile_approx(score, cast(0.375e0 as double), 1000), percentile_approx(score, cast(0.390625e0 as double), 1000), percentile_approx(score, cast(0.40625e0 as double), 1000), percentile_approx(score, cast(0.421875e0 as double), 1000), percentile_approx(score, cast(0.4375e0 as double), 1000), percentile_approx(score, cast(0.453125e0 as double), 1000), percentile_approx(score, cast(0.46875e0 as double), 1000), percentile_approx(score, cast(0.484375e0 as double), 1000), percentile_approx(score, cast(0.5e0 as double), 1000), percentile_approx(score, cast(0.515625e0 as double), 1000), percentile_approx(score, cast(0.53125e0 as double), 1000), percentile_approx(score, cast(0.546875e0 as double), 1000), percentile_approx(score, cast(0.5625e0 as double), 1000), percentile_approx(score, cast(0.578125e0 as double), 1000), percentile_approx(score, cast(0.59375e0 as double), 1000), percentile_approx(score, cast(0.609375e0 as double), 1000), percentile_approx(score, cast(0.625e0 as double), 1000), percentile_approx(score, cast(0.640625e0 as double), 1000), percentile_approx(score, cast(0.65625e0 as double), 1000), percentile_approx(score, cast(0.671875e0 as double), 1000), percentile_approx(score, cast(0.6875e0 as double), 1000), percentile_approx(score, cast(0.703125e0 as double), 1000), percentile_approx(score, cast(0.71875e0 as double), 1000), percentile_approx(score, cast(0.734375e0 as double), 1000), percentile_approx(score, cast(0.75e0 as double), 1000), percentile_approx(score, cast(0.765625e0 as double), 1000), percentile_approx(score, cast(0.78125e0 as double), 1000), percentile_approx(score, cast(0.796875e0 as double), 1000), percentile_approx(score, cast(0.8125e0 as double), 1000), percentile_approx(score, cast(0.828125e0 as double), 1000), percentile_approx(score, cast(0.84375e0 as double), 1000), percentile_approx(score, cast(0.859375e0 as double), 1000), percentile_approx(score, cast(0.875e0 as double), 1000), percentile_approx(score, cast(0.890625e0 as double), 1000), percentile_approx(score, cast(0.90625e0 as double), 1000), percentile_approx(score, cast(0.921875e0 as double), 1000), percentile_approx(score, cast(0.9375e0 as double), 1000), percentile_approx(score, cast(0.953125e0 as double), 1000), percentile_approx(score, cast(0.96875e0 as double), 1000), percentile_approx(score, cast(0.984375e0 as double), 1000)) as q
    from per_score
    where rand(0) * 64 < 1
    group by slice_0
),
bucketed as (
    select /*+ BROADCAST(bucket_bounds) */
        per_score.*,
        case when q[31] < score then case when q[47] < score then case when q[55] < score then case when q[59] < score then case when q[61] < score then case when q[62] < score then 63 else 62 end else case when q[60] < score then 61 else 60 end end else case when q[57] < score then case when q[58] < score then 59 else 58 end else case when q[56] < score then 57 else 56 end end end else case when q[51] < score then case when q[53] < score then case when q[54] < score then 55 else 54 end else case when q[52] < score then 53 else 52 end end else case when q[49] < score then case when q[50] < score then 51 else 50 end else case when q[48] < score then 49 else 48 end end end end else case when q[39] < score then case when q[43] < score then case when q[45] < score then case when q[46] < score then 47 else 46 end else case when q[44] < score then 45 else 44 end end else case when q[41] < score then case when q[42] < score then 43 else 42 end else case when q[40] < score then 41 else 40 end end end else case when q[35] < score then case when q[37] < score then case when q[38] < score then 39 else 38 end else case when q[36] < score then 37 else 36 end end else case when q[33] < score then case when q[34] < score then 35 else 34 end else case when q[32] < score then 33 else 32 end end end end end else case when q[15] < score then case when q[23] < score then case when q[27] < score then case when q[29] < score then case when q[30] < score then 31 else 30 end else case when q[28] < score then 29 else 28 end end else case when q[25] < score then case when q[26] < score then 27 else 26 end else case when q[24] < score then 25 else 24 end end end else case when q[19] < score then case when q[21] < score then case when q[22] < score then 23 else 22 end else case when q[20] < score then 21 else 20 end end else case when q[17] < score then case when q[18] < score then 19 else 18 end else case when q[16] < score then 17 else 16 end end end end else case when q[7] < score then case when q[11] < score then case when q[13] < score then case when q[14] < score then 15 else 14 end else case when q[12] < score then 13 else 12 end end else case when q[9] < score then case when q[10] < score then 11 else 10 end else case when q[8] < score then 9 else 8 end end end else case when q[3] < score then case when q[5] < score then case when q[6] < score then 7 else 6 end else case when q[4] < score then 5 else 4 end end else case when q[1] < score then case when q[2] < score then 3 else 2 end else case when q[0] < score then 1 else 0 end end end end end end as bucket
    from per_score
    left join bucket_bounds on (slice_0 <=> q_slice_0)
),
bucket_totals as (
    select
        slice_0,
        bucket,
        sum(neg) as neg_b,
        sum(pos) as pos_b,
        count(*) as n_scores
    from bucketed
    group by slice_0, bucket
),
bucket_prefix as (
    select
slice_0 as p_slice_0,
        bucket as p_bucket,
        coalesce(sum(neg_b) over (
            partition by slice_0 order by bucket asc rows between unbounded preceding and 1 preceding
        ), 0) as neg_before_bucket,
        sum(neg_b) over (partition by slice_0) as neg_total,
        coalesce(sum(pos_b) over (
            partition by slice_0 order by bucket asc rows between unbounded preceding and 1 preceding
        ), 0) as pos_before_bucket,
        sum(pos_b) over (partition by slice_0) as pos_total,
        row_number() over (partition by slice_0 order by bucket asc) > 1 as has_prev_bucket
    from bucket_totals
),
prefixed as (
    select /*+ BROADCAST(bucket_prefix) */
        bucketed.*,
        neg_before_bucket + coalesce(sum(neg) over (
            partition by slice_0, bucket order by score asc rows between unbounded preceding and 1 preceding
        ), 0) as neg_before,
        neg_total,
        pos_before_bucket + coalesce(sum(pos) over (
            partition by slice_0, bucket order by score asc rows between unbounded preceding and 1 preceding
        ), 0) as pos_before,
        pos_total,
        has_prev_bucket
    from bucketed
    join bucket_prefix
        on (slice_0 <=> p_slice_0) and bucket = p_bucket
),
ranked as (
    select
        slice_0,
        w_exp,
        cast(pos as double) / power(cast(2.0e0 as double), 80) as w_pos,
        cast(neg as double) / power(cast(2.0e0 as double), 80) as w_neg,
        cast(neg_before as double) / power(cast(2.0e0 as double), 80) as w_neg_below,
        cast(pos_total as double) / power(cast(2.0e0 as double), 80) as n_pos,
        cast(neg_total as double) / power(cast(2.0e0 as double), 80) as n_neg,
        -- each term w_pos (w_neg_below + w_neg / 2) <= n_pos n_neg
        nullif(least(ceil(ln(nullif(cast(pos_total as double) / power(cast(2.0e0 as double), 80), 0)) / ln(cast(2.0e0 as double))), 2000), 2000)
            + nullif(least(ceil(ln(nullif(cast(neg_total as double) / power(cast(2.0e0 as double), 80), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as pairs_exp
    from prefixed
),
per_slice as (
    select
        slice_0,
        max(w_exp) as w_exp,
        max(n_pos) as pos_sum,
        max(n_neg) as neg_sum,
        coalesce(cast(sum((cast(cast(floor((round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as double), 80 - greatest(pairs_exp, -940)))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as double), 80 - greatest(pairs_exp, -940)))) - floor((round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as double), 80 - greatest(pairs_exp, -940)))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), max(greatest(pairs_exp, -940)) - 80), sum(w_pos * (w_neg_below + w_neg / 2))) as pairs
    from ranked
    group by slice_0
),
final as (
    select
        slice_0,
        pairs / nullif(pos_sum * neg_sum, 0) as auc,
        pos_sum * power(cast(2.0e0 as double), floor((w_exp) / cast(2.0e0 as double))) * power(cast(2.0e0 as double), (w_exp) - floor((w_exp) / cast(2.0e0 as double))) as n_pos,
        neg_sum * power(cast(2.0e0 as double), floor((w_exp) / cast(2.0e0 as double))) * power(cast(2.0e0 as double), (w_exp) - floor((w_exp) / cast(2.0e0 as double))) as n_neg
    from per_slice
)
select * from final
order by slice_0 nulls last
