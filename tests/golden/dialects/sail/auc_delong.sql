select * from (
    select
bounds.slice_0 as slice_0,
        bounds.auc,
        case when bounds.auc is not null then bounds.lo end as `auc_lo`,
        case when bounds.auc is not null then bounds.hi end as `auc_hi`
    from (
        select
        slice_0,
            auc,
            case when auc - half < 0 then cast(0.0e0 as double) when auc - half > 1 then cast(1.0e0 as double) else auc - half end as lo,
            case when auc + half < 0 then cast(0.0e0 as double) when auc + half > 1 then cast(1.0e0 as double) else auc + half end as hi
        from (
            select
                normal_inner.*,
                (cast(1.9599639845400536e0 as double)) * sqrt(case when var < 0 then cast(0.0e0 as double) else var end) as half
            from (
                with source as (
                    select
                        `country` as slice_0,
                        case when cast(`label` as boolean) then 1 else 0 end as label,
                        (`score` + 0) as score
                    from `events`
                ),
                per_score as (
                    select
                        slice_0,
                        score,
                        sum(label) as pos,
                        count(*) - sum(label) as neg,
                        1 as one
                    from source
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
                running as (
                    select
                        slice_0,
                        score,
                        pos,
                        neg,
                        cast(neg_before as double) as neg_below,
                        cast(pos_before as double) as pos_below,
                        cast(neg_total as double) as neg_total,
                        cast(pos_total as double) as pos_total
                    from prefixed
                ),
                placements as (
                    select
                        slice_0,
                        score,
                        cast(pos as double) as pos,
                        cast(neg as double) as neg,
                        neg_below,
                        pos_below,
                        neg_total,
                        pos_total,
                        neg_below + neg / cast(2.0e0 as double) as a,
                        pos_below + pos / cast(2.0e0 as double) as x
                    from running
                ),
                per_slice as (
                    select
                        slice_0,
                        sum(pos) as n_pos,
                        sum(neg) as n_neg,
                        -- twice the Mann-Whitney terms: exact integers
                        cast(sum(pos * (2 * neg_below + neg)) as double) as u2,
                        sum(pos * (a / nullif(neg_total, 0)) * (a / nullif(neg_total, 0))) as s10,
                        sum(neg * ((pos_total - x) / nullif(pos_total, 0)) * ((pos_total - x) / nullif(pos_total, 0))) as s01
                    from placements
                    group by slice_0
                ),
                final as (
                    select
                        slice_0,
                        u2 / 2 / nullif(n_pos * n_neg, 0) as auc,
                        (s10 - n_pos * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_pos - 1, 0) / nullif(n_pos, 0)
                            + (s01 - n_neg * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_neg - 1, 0) / nullif(n_neg, 0)
                            as var,
                        n_pos,
                        n_neg
                    from per_slice
                )
                select * from final
                order by slice_0 nulls last
            ) as normal_inner
        ) as normal_half
    ) as bounds
) as rendered
order by slice_0 nulls last
