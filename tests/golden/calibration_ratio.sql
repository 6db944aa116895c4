with source as (
select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as p,
        cast(1 as double) as w
    from "events"
),
scaled_rows as (
    select
        source.*,
        w * p as wp,
        w * label as wy
    from source
),
-- the slice's exponents of w, wp, wy: per-slice aggregates joined back (sql/_macros/shared/common.sql)
scaled_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp,
        nullif(least(ceil(ln(nullif(max(abs(wp)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as wp_exp,
        nullif(least(ceil(ln(nullif(max(abs(wy)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as wy_exp
    from scaled_rows
    group by slice_0
),
scaled as (
    select
        scaled_rows.*,
        scaled_exponents.w_exp,
        scaled_exponents.wp_exp,
        scaled_exponents.wy_exp
    from scaled_rows
    join scaled_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((wp) * power(cast(2.0e0 as double), 80 - greatest(wp_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(wp_exp, -940)) - 80), sum(wp)) / nullif(coalesce(cast(sum(cast(round((wy) * power(cast(2.0e0 as double), 80 - greatest(wy_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(wy_exp, -940)) - 80), sum(wy)), 0) as calibration_ratio,
        coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)) as n
    from scaled
    group by slice_0
)
select * from final
order by slice_0 nulls last
