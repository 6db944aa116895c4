with source as (
    select
        "country" as slice_0,
        "label" as y,
        "prediction" as y_hat,
        cast("w" as float) as w,
        nullif(least(ceil(ln(nullif(max(abs(cast("w" as float))) over (partition by "country"), 0)) / ln(cast(2.0e0 as float))), 2000), 2000) as w_exp
    from "events"
),
contrib as (
    select
        slice_0,
        y as class,
        case when y = y_hat then w else cast(0.0e0 as float) end as tp,
        w as n_true,
        cast(0.0e0 as float) as n_pred,
        w_exp
    from source
    union all
    select
        slice_0,
        y_hat as class,
        cast(0.0e0 as float) as tp,
        cast(0.0e0 as float) as n_true,
        w as n_pred,
        w_exp
    from source
),
class_sums as (
    select
        slice_0,
        class,
        coalesce(cast(sum(cast(round((tp) * power(cast(2.0e0 as float), 80 - greatest(w_exp, -940))) as number(38, 0))) as float) * power(cast(2.0e0 as float), max(greatest(w_exp, -940)) - 80), sum(tp)) as tp,
        coalesce(cast(sum(cast(round((n_true) * power(cast(2.0e0 as float), 80 - greatest(w_exp, -940))) as number(38, 0))) as float) * power(cast(2.0e0 as float), max(greatest(w_exp, -940)) - 80), sum(n_true)) as n_true,
        coalesce(cast(sum(cast(round((n_pred) * power(cast(2.0e0 as float), 80 - greatest(w_exp, -940))) as number(38, 0))) as float) * power(cast(2.0e0 as float), max(greatest(w_exp, -940)) - 80), sum(n_pred)) as n_pred
    from contrib
    group by slice_0, class
),
per_class as (
    select
        class_sums.*,
        nullif(least(ceil(ln(nullif(max(abs(tp)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as float))), 2000), 2000) as tp_exp,
        nullif(least(ceil(ln(nullif(max(abs(n_true)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as float))), 2000), 2000) as n_true_exp,
        nullif(least(ceil(ln(nullif(max(abs(n_pred)) over (partition by slice_0), 0)) / ln(cast(2.0e0 as float))), 2000), 2000) as n_pred_exp
    from class_sums
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
        cast((1 + cast(1.0e0 as float)) * tp as float) / nullif(cast(cast(1.0e0 as float) * n_true + n_pred as float), 0) as raw_value,
        coalesce(cast((1 + cast(1.0e0 as float)) * tp as float) / nullif(cast(cast(1.0e0 as float) * n_true + n_pred as float), 0), cast(1.0e0 as float)) as value
    from per_class
),
final as (
    select
        slice_0,
        coalesce(cast(sum(cast(round((value) * power(cast(2.0e0 as float), 80)) as number(38, 0))) as float) * power(cast(2.0e0 as float), -80), sum(value)) / nullif(count(value), 0) as f1_macro,
        count(*) as n_classes,
        count(*) - count(raw_value) as n_undefined
    from valued
    group by slice_0
)
select * from final
order by slice_0 nulls last
