with source as (
    select
        "country" as slice_0,
        cast(case when cast("label" as boolean) then 1 else 0 end as double) as label,
        cast("score" as double) as p,
        cast(1 as double) as w
    from "events"
),
per_row as (
    select
        slice_0,
        w,
        w * (p - label) * (p - label) as wsq
    from source
),
-- the slice's exponents of w and wsq: per-slice aggregates joined back (sql/_macros/shared/common.sql)
scaled_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp,
        nullif(least(ceil(ln(nullif(max(abs(wsq)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as wsq_exp
    from per_row
    group by slice_0
),
scaled as (
    select
        per_row.*,
        scaled_exponents.w_exp,
        scaled_exponents.wsq_exp
    from per_row
    join scaled_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((wsq) * power(cast(2.0e0 as double), 80 - greatest(wsq_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(wsq_exp, -940)) - 80), sum(wsq))
            / nullif(coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)), 0) as brier_score,
        coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)) as n
    from scaled
    group by slice_0
)
select * from final
order by slice_0 nulls last
