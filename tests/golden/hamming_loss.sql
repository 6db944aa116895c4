with source as (
    select
        "country" as slice_0,
        case when "label" = "prediction" then 0 else 1 end as miss,
        cast(1 as double) as w
    from "events"
),
scaled as (
    select
        source.*,
        w * miss as wmiss,
        nullif(least(ceil(ln(nullif(max(abs(w)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp
    from source
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
