with source as (
    select
        "country" as slice_0,
        case when "label" = "prediction" then 0 else 1 end as miss,
        cast(1 as double) as w
    from "events"
),
scaled_rows as (
    select
        source.*,
        w * miss as wmiss
    from source
),
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
scaled_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp
    from scaled_rows
    group by slice_0
),
scaled as (
    select
        scaled_rows.*,
        scaled_exponents.w_exp
    from scaled_rows
    join scaled_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((wmiss) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(wmiss)) / nullif(coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)), 0) as hamming_loss,
        coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)) as n
    from scaled
    group by slice_0
)
select * from final
order by slice_0 nulls last
