with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        ("score" + 0) as score,
        cast("w" as Float64) as w
    from "events"
),
-- weights scaled by 2^-w_exp (exact), w_exp = ceil(log2 max w): scaled weights lie in [0, 1]
scaled as (
    select
        slice_0,
        label,
        score,
        w * power(cast(2.0e0 as Float64), floor((-w_exp) / cast(2.0e0 as Float64))) * power(cast(2.0e0 as Float64), (-w_exp) - floor((-w_exp) / cast(2.0e0 as Float64))) as w,
        w_exp
    from (
        select
            source.*,
            coalesce(nullif(least(ceil(ln(nullif(max(abs(w)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as Float64))), 2000), 2000), 0) as w_exp
        from source
    ) as exponents
),
-- per (slice, score, label): the label's weights as a fixed-point sum (units 2^-80, as
-- exact_sum(w, 0); without its plain-sum fallback, which only a group of NULL terms reaches
-- and which is then NULL too); w_exp is constant per slice, so a key, not an aggregate
per_label as (
    select
        slice_0,
        score,
        label,
        w_exp,
        cast(sum(if((round((w) * power(cast(2.0e0 as Float64), 80))) is null, NULL, cast(cast(floor(ifNotFinite(round((w) * power(cast(2.0e0 as Float64), 80)), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((w) * power(cast(2.0e0 as Float64), 80)), 0) - floor(ifNotFinite(round((w) * power(cast(2.0e0 as Float64), 80)), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), -80) as w_sum
    from scaled
    group by slice_0, score, label, w_exp
),
-- per (slice, score): the one positive and the one negative sum (x + 0 = x, exactly); two
-- narrow aggregates instead of one with two 128-bit sums: DuckDB 2.0.1 reserves memory for
-- a hash aggregate in proportion to its row width and no longer caps that reservation at
-- memory_limit, so the wide one ran out of memory at 40 MB on 2M scores (tests/test_numerics.py)
per_score as (
    select
        slice_0,
        score,
        w_exp,
        sum(case when label = 1 then w_sum else 0 end) as w_pos,
        sum(case when label = 0 then w_sum else 0 end) as w_neg
    from per_label
    group by slice_0, score, w_exp
),
cumulative as (
    select
        slice_0,
        w_exp,
        w_pos,
        w_neg,
        sum(w_neg) over (
            partition by slice_0 order by score rows between unbounded preceding and current row
        ) as w_neg_upto
    from per_score
),
ranked as (
    select
        slice_0,
        w_exp,
        w_pos,
        w_neg,
        w_neg_upto - w_neg as w_neg_below,
        nullif(least(ceil(ln(nullif(max(abs(w_pos)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as Float64))), 2000), 2000) as pos_exp,
        nullif(least(ceil(ln(nullif(max(abs(w_neg)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as Float64))), 2000), 2000) as neg_exp,
        nullif(least(ceil(ln(nullif(max(abs(w_pos * w_neg_upto)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as Float64))), 2000), 2000) as pairs_exp
    from cumulative
),
per_slice as (
    select
        slice_0,
        max(w_exp) as w_exp,
        coalesce(cast(sum(if((round((w_pos) * power(cast(2.0e0 as Float64), 80 - greatest(pos_exp, -940)))) is null, NULL, cast(cast(floor(ifNotFinite(round((w_pos) * power(cast(2.0e0 as Float64), 80 - greatest(pos_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((w_pos) * power(cast(2.0e0 as Float64), 80 - greatest(pos_exp, -940))), 0) - floor(ifNotFinite(round((w_pos) * power(cast(2.0e0 as Float64), 80 - greatest(pos_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), max(greatest(pos_exp, -940)) - 80), sum(w_pos)) as pos_sum,
        coalesce(cast(sum(if((round((w_neg) * power(cast(2.0e0 as Float64), 80 - greatest(neg_exp, -940)))) is null, NULL, cast(cast(floor(ifNotFinite(round((w_neg) * power(cast(2.0e0 as Float64), 80 - greatest(neg_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((w_neg) * power(cast(2.0e0 as Float64), 80 - greatest(neg_exp, -940))), 0) - floor(ifNotFinite(round((w_neg) * power(cast(2.0e0 as Float64), 80 - greatest(neg_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), max(greatest(neg_exp, -940)) - 80), sum(w_neg)) as neg_sum,
        coalesce(cast(sum(if((round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as Float64), 80 - greatest(pairs_exp, -940)))) is null, NULL, cast(cast(floor(ifNotFinite(round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as Float64), 80 - greatest(pairs_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) as Int64) as Int128) * 1099511627776 + cast(cast(ifNotFinite(round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as Float64), 80 - greatest(pairs_exp, -940))), 0) - floor(ifNotFinite(round((w_pos * (w_neg_below + w_neg / 2)) * power(cast(2.0e0 as Float64), 80 - greatest(pairs_exp, -940))), 0) * power(cast(2.0e0 as Float64), -40)) * power(cast(2.0e0 as Float64), 40) as Int64) as Int128))) as Float64) * power(cast(2.0e0 as Float64), max(greatest(pairs_exp, -940)) - 80), sum(w_pos * (w_neg_below + w_neg / 2))) as pairs
    from ranked
    group by slice_0
),
final as (
    select
        slice_0,
        pairs / nullif(pos_sum * neg_sum, 0) as auc,
        pos_sum * power(cast(2.0e0 as Float64), floor((w_exp) / cast(2.0e0 as Float64))) * power(cast(2.0e0 as Float64), (w_exp) - floor((w_exp) / cast(2.0e0 as Float64))) as n_pos,
        neg_sum * power(cast(2.0e0 as Float64), floor((w_exp) / cast(2.0e0 as Float64))) * power(cast(2.0e0 as Float64), (w_exp) - floor((w_exp) / cast(2.0e0 as Float64))) as n_neg
    from per_slice
)
select * from final
order by slice_0 nulls last
