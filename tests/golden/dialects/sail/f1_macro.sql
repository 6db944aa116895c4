with source_rows as (
    select
        `country` as slice_0,
        `label` as y,
        `prediction` as y_hat,
        cast(`w` as double) as w
    from `events`
),
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
source_exponents as (
    select
        slice_0 as e_slice_0,
        nullif(least(ceil(ln(nullif(max(abs(w)), 0)) / ln(cast(2.0e0 as double))), 2000), 2000) as w_exp
    from source_rows
    group by slice_0
),
source as (
    select /*+ BROADCAST(source_exponents) */
        source_rows.*,
        source_exponents.w_exp
    from source_rows
    join source_exponents on (slice_0 <=> e_slice_0)
),
contrib as (
    select
        slice_0,
        y as class,
        case when y = y_hat then w else cast(0.0e0 as double) end as tp,
        w as n_true,
        cast(0.0e0 as double) as n_pred,
        w_exp
    from source
    union all
    select
        slice_0,
        y_hat as class,
        cast(0.0e0 as double) as tp,
        cast(0.0e0 as double) as n_true,
        w as n_pred,
        w_exp
    from source
),
class_sums as (
    select
        slice_0,
        class,
        coalesce(cast(sum((cast(cast(floor((round((tp) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((tp) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) - floor((round((tp) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(tp)) as tp,
        coalesce(cast(sum((cast(cast(floor((round((n_true) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((n_true) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) - floor((round((n_true) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(n_true)) as n_true,
        coalesce(cast(sum((cast(cast(floor((round((n_pred) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((n_pred) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) - floor((round((n_pred) * power(cast(2.0e0 as double), 80 - greatest(w_exp, -940)))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), max(greatest(w_exp, -940)) - 80), sum(n_pred)) as n_pred
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
    select /*+ BROADCAST(per_class_exponents) */
        class_sums.*,
        per_class_exponents.tp_exp,
        per_class_exponents.n_true_exp,
        per_class_exponents.n_pred_exp
    from class_sums
    join per_class_exponents on (slice_0 <=> e_slice_0)
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
        cast((1 + cast(1.0e0 as double)) * tp as double) / nullif(cast(cast(1.0e0 as double) * n_true + n_pred as double), 0) as r_f1,
        coalesce(cast((1 + cast(1.0e0 as double)) * tp as double) / nullif(cast(cast(1.0e0 as double) * n_true + n_pred as double), 0), cast(1.0e0 as double)) as v_f1
    from per_class
),
final as (
    select
        slice_0,
        coalesce(cast(sum((cast(cast(floor((round((v_f1) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) as bigint) as decimal(38, 0)) * 1099511627776 + cast(cast((round((v_f1) * power(cast(2.0e0 as double), 80))) - floor((round((v_f1) * power(cast(2.0e0 as double), 80))) * power(cast(2.0e0 as double), -40)) * power(cast(2.0e0 as double), 40) as bigint) as decimal(38, 0)))) as double) * power(cast(2.0e0 as double), -80), sum(v_f1)) / nullif(count(v_f1), 0) as f1_macro,
        count(*) as n_classes,
        count(*) - count(r_f1) as n_undefined
    from valued
    group by slice_0
)
select * from final
order by slice_0 nulls last
