with source as (
    select
        "country" as slice_0,
        "group" as g,
        "item" as c,
        cast("score" as double) as s,
        case when cast("label" as boolean) then 1 else 0 end as y
    from "events"
),
per_score as (
    select
        slice_0,
c,
        s,
        sum(y) as pos,
        count(*) as cnt
    from source
    group by slice_0, c, s
),
cumulated as (
    select
        per_score.*,
        sum(pos) over (partition by slice_0, c order by s desc rows between unbounded preceding and current row) as tp,
        sum(cnt) over (partition by slice_0, c order by s desc rows between unbounded preceding and current row) as n_at
    from per_score
),
terms as (
    select
        cumulated.*,
        cast(pos as double) * tp / n_at as term
    from cumulated
),
scaled as (
    select
        terms.*,
        nullif(least(ceil(ln(nullif(max(abs(term)) over (partition by slice_0, c), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as term_exp
    from terms
),
per_part as (
    select
        slice_0,
        sum(pos) as p_total,
        coalesce(cast(sum(cast(round((term) * power(cast(2.0e0 as double), 80 - greatest(term_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(term_exp, -940)) - 80), sum(term)) / nullif(cast(sum(pos) as double), 0) as value
    from scaled
    group by slice_0, c
),
weighted_rows as (
    select
        per_part.*,
        p_total * value as wv
    from per_part
),
-- wv_exp: the slice's exponent of wv, a per-slice aggregate joined back (sql/_macros/shared/common.sql)
weighted_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(wv)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as wv_exp
    from weighted_rows
    group by slice_0
),
weighted as (
    select
        weighted_rows.*,
        weighted_exponents.wv_exp
    from weighted_rows
    join weighted_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        case when count(value) = count(*) then coalesce(cast(sum(cast(round((value) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(value)) / nullif(count(*), 0) end as multilabel_average_precision,
        count(*) as n_parts
    from weighted
    group by slice_0
)
select * from final
order by slice_0 nulls last
