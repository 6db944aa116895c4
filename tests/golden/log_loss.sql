with source as (
    select
        "country" as slice_0,
        case when cast("label" as boolean) then 1 else 0 end as label,
        cast("score" as double) as p,
        cast(1 as double) as w
    from "events"
),
per_row as (
    select
        slice_0,
        w,
        w * -ln(
            case
                when label = 1 then greatest(least(p, cast(0.9999999999999998e0 as double)), cast(2.220446049250313e-16 as double))
                else greatest(least(1 - p, cast(0.9999999999999998e0 as double)), cast(2.220446049250313e-16 as double))
            end
        ) as wloss
    from source
),
-- the slice's exponents of w and wloss: per-slice aggregates joined back (sql/_macros/shared/common.sql)
scaled_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp,
        nullif(least(ceil(ln(nullif(max(abs(wloss)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as wloss_exp
    from per_row
    group by slice_0
),
scaled as (
    select
        per_row.*,
        scaled_exponents.w_exp,
        scaled_exponents.wloss_exp
    from per_row
    join scaled_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((wloss) * power(cast(2.0e0 as double), 80 - greatest(wloss_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(wloss_exp, -940)) - 80), sum(wloss))
            / nullif(coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)), 0) as log_loss,
        coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)) as n
    from scaled
    group by slice_0
)
select * from final
order by slice_0 nulls last
