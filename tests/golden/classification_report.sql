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
per_class as (
    select
        slice_0,
        class,
        sum(tp) as tp,
        sum(n_true) as n_true,
        sum(n_pred) as n_pred
    from contrib
    group by slice_0, class
),
valued as (
    select
        slice_0,
        class,
        tp,
        n_true,
        n_pred,
        cast(tp as double) / nullif(cast(n_pred as double), 0) as precision,
        cast(tp as double) / nullif(cast(n_true as double), 0) as recall,
        cast((1 + 1.0) * tp as double) / nullif(cast(1.0 * n_true + n_pred as double), 0) as fbeta
    from per_class
),
averages as (
    select
        slice_0,
        cast(sum(tp) as double) / nullif(cast(sum(n_pred) as double), 0) as micro_precision,
        sum(precision order by precision) / nullif(count(precision), 0) as macro_precision,
        coalesce(
            sum(case when precision is not null then n_true * precision end order by case when precision is not null then n_true * precision end)
                / nullif(sum(case when precision is not null then n_true end), 0),
            sum(precision order by precision) / nullif(count(precision), 0)
        ) as weighted_precision,
        cast(sum(tp) as double) / nullif(cast(sum(n_true) as double), 0) as micro_recall,
        sum(recall order by recall) / nullif(count(recall), 0) as macro_recall,
        coalesce(
            sum(case when recall is not null then n_true * recall end order by case when recall is not null then n_true * recall end)
                / nullif(sum(case when recall is not null then n_true end), 0),
            sum(recall order by recall) / nullif(count(recall), 0)
        ) as weighted_recall,
        cast((1 + 1.0) * sum(tp) as double) / nullif(cast(1.0 * sum(n_true) + sum(n_pred) as double), 0) as micro_fbeta,
        sum(fbeta order by fbeta) / nullif(count(fbeta), 0) as macro_fbeta,
        coalesce(
            sum(case when fbeta is not null then n_true * fbeta end order by case when fbeta is not null then n_true * fbeta end)
                / nullif(sum(case when fbeta is not null then n_true end), 0),
            sum(fbeta order by fbeta) / nullif(count(fbeta), 0)
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
order by slice_0, row_order, class
