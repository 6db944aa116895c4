with source as (
    select
        "country" as slice_0,
        "group" as grp,
        case when cast("label" as boolean) then 1 else 0 end as label,
        "score" as score
    from "events"
),
ranked as (
    select
        slice_0, grp,
        label,
        rank() over (partition by slice_0, grp order by score) as rank_lo,
        count(*) over (partition by slice_0, grp order by score) as rank_hi
    from source
),
rank_sums as (
    select
        slice_0,
        cast(sum(label) as double) as n_pos,
        cast(count(*) - sum(label) as double) as n_neg,
        cast(
            sum(case when label = 1 then rank_lo + rank_hi else 0 end) - sum(label) * (sum(label) + 1)
            as double
        ) as u2
    from ranked
    group by slice_0, grp
),
scored_rows as (
    select
        slice_0,
        n_pos + n_neg as v,
        u2 / 2 / nullif(n_pos * n_neg, 0) as auc
    from rank_sums
    where n_pos > 0 and n_neg > 0
),
-- v_exp: the slice's ceil(log2 max v), an aggregate joined back (sql/_macros/shared/common.sql)
scored_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(v)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as v_exp
    from scored_rows
    group by slice_0
),
scored as (
    select
        scored_rows.*,
        scored_exponents.v_exp
    from scored_rows
    join scored_exponents on (slice_0 is not distinct from e_slice_0)
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((v * auc) * power(cast(2.0e0 as double), 80 - greatest(v_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(v_exp, -940)) - 80), sum(v * auc)) / nullif(sum(v), 0) as gauc,
        count(*) as n_groups
    from scored
    group by slice_0
)
select * from final
order by slice_0 nulls last
