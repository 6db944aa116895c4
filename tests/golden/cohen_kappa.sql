with source as (
    select
        "country" as slice_0,
        "label" as y,
        "prediction" as y_hat,
        1 as w
    from "events"
),
contrib as (
    select
        slice_0,
        y as class,
        case when y = y_hat then w else 0 end as tp,
        w as n_true,
        0 as n_pred
    from source
    union all
    select
        slice_0,
        y_hat as class,
        0 as tp,
        0 as n_true,
        w as n_pred
    from source
),
class_sums as (
    select
        slice_0,
        class,
        sum(tp) as tp,
        sum(n_true) as n_true,
        sum(n_pred) as n_pred
    from contrib
    group by slice_0, class
),
-- the slice's exponents of the per-class sums: aggregates joined back (sql/_macros/shared/common.sql)
per_class_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(tp)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as tp_exp,
        nullif(least(ceil(ln(nullif(max(abs(n_true)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as n_true_exp,
        nullif(least(ceil(ln(nullif(max(abs(n_pred)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as n_pred_exp
    from class_sums
    group by slice_0
),
per_class as (
    select
        class_sums.*,
        per_class_exponents.tp_exp,
        per_class_exponents.n_true_exp,
        per_class_exponents.n_pred_exp
    from class_sums
    join per_class_exponents on (slice_0 is not distinct from e_slice_0)
),
cells as (
    select
        slice_0,
        y,
        y_hat,
        cast(sum(w) as double) as c
    from source
    group by slice_0, y, y_hat
),
classes as (
    select
        slice_0,
        class,
        cast(n_true as double) as t,
        cast(n_pred as double) as p
    from per_class
),
totals as (
    select
        slice_0,
        cast(sum(n_true) as double) as s,
        count(*) as n_classes
    from per_class
    group by slice_0
),
observed as (
    select
cells.slice_0 as slice_0,
        cast(case when ci.class = cj.class then 0 else 1 end as double) * cells.c as term
    from cells
    inner join classes as ci
        on (cells.slice_0 is not distinct from ci.slice_0) and ci.class = cells.y
    inner join classes as cj
        on (cells.slice_0 is not distinct from cj.slice_0) and cj.class = cells.y_hat
),
expected as (
    select
ci.slice_0 as slice_0,
        cast(case when ci.class = cj.class then 0 else 1 end as double) * ci.t * cj.p / nullif(totals.s, 0) as term
    from classes as ci
    inner join classes as cj on (ci.slice_0 is not distinct from cj.slice_0)
    inner join totals on (ci.slice_0 is not distinct from totals.slice_0)
),
terms as (
    select slice_0,  term as o, cast(0 as double) as e from observed
    union all
    select slice_0,  cast(0 as double) as o, term as e from expected
),
-- the slice's exponents of the terms: per-slice aggregates joined back (sql/_macros/shared/common.sql)
scaled_terms_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(o)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as o_exp,
        nullif(least(ceil(ln(nullif(max(abs(e)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as e_exp
    from terms
    group by slice_0
),
scaled_terms as (
    select
        terms.*,
        scaled_terms_exponents.o_exp,
        scaled_terms_exponents.e_exp
    from terms
    join scaled_terms_exponents on (slice_0 is not distinct from e_slice_0)
),
sums as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((o) * power(cast(2.0e0 as double), 80 - greatest(o_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(o_exp, -940)) - 80), sum(o)) as o_sum,
        coalesce(cast(sum(cast(round((e) * power(cast(2.0e0 as double), 80 - greatest(e_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(e_exp, -940)) - 80), sum(e)) as e_sum
    from scaled_terms
    group by slice_0
),
final as (
    select
totals.slice_0 as slice_0,
        1 - sums.o_sum / nullif(sums.e_sum, 0) as cohen_kappa,
        totals.n_classes as n_classes
    from totals
    left join sums on (totals.slice_0 is not distinct from sums.slice_0)
)
select * from final
order by slice_0 nulls last
