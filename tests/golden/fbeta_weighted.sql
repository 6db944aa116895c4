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
valued as (
    select
        slice_0,
        tp,
        n_true,
        n_pred,
        tp_exp,
        n_true_exp,
        n_pred_exp,
        cast((1 + cast(1.0e0 as double)) * tp as double) / nullif(cast(cast(1.0e0 as double) * n_true + n_pred as double), 0) as r_fbeta,
        cast((1 + cast(1.0e0 as double)) * tp as double) / nullif(cast(cast(1.0e0 as double) * n_true + n_pred as double), 0) as v_fbeta
    from per_class
),
final as (
    select
        slice_0,
        coalesce(
            coalesce(cast(sum(cast(round((case when v_fbeta is not null then n_true * v_fbeta end) * power(cast(2.0e0 as double), 80 - greatest(n_true_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(n_true_exp, -940)) - 80), sum(case when v_fbeta is not null then n_true * v_fbeta end))
                / nullif(sum(case when v_fbeta is not null then n_true end), 0),
            coalesce(cast(sum(cast(round((v_fbeta) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(v_fbeta)) / nullif(count(v_fbeta), 0)
        ) as fbeta_weighted,
        count(*) as n_classes,
        count(*) - count(r_fbeta) as n_undefined
    from valued
    group by slice_0
)
select * from final
order by slice_0 nulls last
