with source as (
    select
        "country" as slice_0,
        "group" as g,
        "item" as c,
        cast("score" as double) as s,
        case when cast("label" as boolean) then 1 else 0 end as y,
        cast(1 as double) as w
    from "events"
),
ranked as (
    select
        source.*,
        row_number() over (partition by slice_0, g order by s desc, c desc) as pos
    from source
),
per_row as (
    select
        slice_0,
        g,
        max(w) as w,
        max(case when y = 1 and pos <= 10 then 1 else 0 end) as hit_0,
        count(*) as n_classes
    from ranked
    group by slice_0, g
),
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
scaled_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp
    from per_row
    group by slice_0
),
scaled as (
    select
        per_row.*,
        scaled_exponents.w_exp
    from per_row
    join scaled_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((w * hit_0) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w * hit_0)) / nullif(coalesce(cast(sum(cast(round((w) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(w)), 0) as top_k_accuracy,
        count(*) as n_rows
    from scaled
    group by slice_0
)
select * from final
order by slice_0 nulls last
