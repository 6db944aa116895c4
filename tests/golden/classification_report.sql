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
        class,
        tp,
        n_true,
        n_pred,
        tp_exp,
        n_true_exp,
        n_pred_exp,
        cast(tp as double) / nullif(cast(n_pred as double), 0) as precision,
        cast(tp as double) / nullif(cast(n_true as double), 0) as recall,
        cast((1 + cast(1.0e0 as double)) * tp as double) / nullif(cast(cast(1.0e0 as double) * n_true + n_pred as double), 0) as fbeta
    from per_class
),
averages as (
    select
        slice_0,
        cast(sum(tp) as double) / nullif(cast(sum(n_pred) as double), 0) as micro_precision,
        coalesce(cast(sum(cast(round((precision) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(precision)) / nullif(count(precision), 0) as macro_precision,
        coalesce(
            coalesce(cast(sum(cast(round((case when precision is not null then n_true * precision end) * power(cast(2.0e0 as double), 80 - greatest(n_true_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(n_true_exp, -940)) - 80), sum(case when precision is not null then n_true * precision end))
                / nullif(sum(case when precision is not null then n_true end), 0),
            coalesce(cast(sum(cast(round((precision) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(precision)) / nullif(count(precision), 0)
        ) as weighted_precision,
        cast(sum(tp) as double) / nullif(cast(sum(n_true) as double), 0) as micro_recall,
        coalesce(cast(sum(cast(round((recall) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(recall)) / nullif(count(recall), 0) as macro_recall,
        coalesce(
            coalesce(cast(sum(cast(round((case when recall is not null then n_true * recall end) * power(cast(2.0e0 as double), 80 - greatest(n_true_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(n_true_exp, -940)) - 80), sum(case when recall is not null then n_true * recall end))
                / nullif(sum(case when recall is not null then n_true end), 0),
            coalesce(cast(sum(cast(round((recall) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(recall)) / nullif(count(recall), 0)
        ) as weighted_recall,
        cast((1 + cast(1.0e0 as double)) * sum(tp) as double) / nullif(cast(cast(1.0e0 as double) * sum(n_true) + sum(n_pred) as double), 0) as micro_fbeta,
        coalesce(cast(sum(cast(round((fbeta) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(fbeta)) / nullif(count(fbeta), 0) as macro_fbeta,
        coalesce(
            coalesce(cast(sum(cast(round((case when fbeta is not null then n_true * fbeta end) * power(cast(2.0e0 as double), 80 - greatest(n_true_exp, -940))) as hugeint)) as double) * power(cast(2.0e0 as double), max(greatest(n_true_exp, -940)) - 80), sum(case when fbeta is not null then n_true * fbeta end))
                / nullif(sum(case when fbeta is not null then n_true end), 0),
            coalesce(cast(sum(cast(round((fbeta) * power(cast(2.0e0 as double), 80)) as hugeint)) as double) * power(cast(2.0e0 as double), -80), sum(fbeta)) / nullif(count(fbeta), 0)
        ) as weighted_fbeta,
        sum(n_true) as support
    from valued
    group by slice_0
),
final as (
    select
        slice_0,
        class,
        cast(null as varchar) as average,
        0 as row_order,
        precision, recall, fbeta,
        n_true as support
    from valued
    union all
    select
        slice_0,
        null as class,
        'micro' as average,
        1 as row_order,
        micro_precision, micro_recall, micro_fbeta,
        support
    from averages
    union all
    select
        slice_0,
        null as class,
        'macro' as average,
        2 as row_order,
        macro_precision, macro_recall, macro_fbeta,
        support
    from averages
    union all
    select
        slice_0,
        null as class,
        'weighted' as average,
        3 as row_order,
        weighted_precision, weighted_recall, weighted_fbeta,
        support
    from averages
)
select slice_0,  class, average, precision, recall, fbeta, support
from final
order by slice_0 nulls last, row_order, class
