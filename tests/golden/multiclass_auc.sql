with source as (
    select
        "country" as slice_0,
        "group" as g,
        "item" as c,
        cast("score" as double) as s,
        case when cast("label" as boolean) then 1 else 0 end as y
    from "events"
),
ranked as (
select
        slice_0,
c,
        y,
        2 * rank() over (partition by slice_0, c order by s)
            + count(*) over (partition by slice_0, c, s) - 1 as rank2
    from source
),
per_part as (
select
        slice_0,
c,
        cast(sum(case when y = 1 then rank2 else 0 end) as double) / 2 as r,
        cast(sum(y) as double) as p,
        cast(count(*) - sum(y) as double) as n
    from ranked
    group by slice_0, c
),
per_pair as (
    select
        per_part.*,
        case when p > 0 and n > 0 then (r - p * (p + 1) / 2) / (p * n) end as value,
        p as n_ab
    from per_part
),
scored_rows as (
    select
        per_pair.*,
        n_ab * value as wv
    from per_pair
),
-- wv_exp: the slice's exponent of wv, a per-slice aggregate joined back (sql/_macros/shared/common.sql)
scored_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(wv)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as wv_exp
    from scored_rows
    group by slice_0
),
scored as (
    select
        scored_rows.*,
        scored_exponents.wv_exp
    from scored_rows
    join scored_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        case when count(value) = count(*) then coalesce(cast(sum(cast(round((value) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(value)) / nullif(count(*), 0) end as multiclass_auc,
        count(*) as n_parts
    from scored
    group by slice_0
)
select * from final
order by slice_0 nulls last
