-- The multiclass metrics that read class scores (multiclass_auc, top_k_accuracy,
-- multilabel_average_precision) take a long table: one group per prediction row (row_id),
-- one item per class ('0', '1', '2'), the model's score of that class and whether it is the
-- row's true class (segment). Scores: closeness of pctr to a class centre, blurred by the
-- item id, so that the classes overlap. Deterministic from the seed.
with rows as (
    select
        row_number() over (order by user_id, item_id, day, country, click, pctr) as row_id,
        country,
        item_id,
        pctr,
        weight,
        segment
    from {{ ref('predictions') }}
),

classes as (
    select '0' as class, 0.1 as centre
    union all select '1', 0.3
    union all select '2', 0.5
)

select
    r.row_id,
    r.country,
    c.class,
    1.0 - abs(r.pctr - c.centre) + cast(mod(r.item_id, 5) as {{ sqlmetrics.float_type() }}) / 25.0 as class_score,
    case when r.segment = c.class then 1 else 0 end as is_true,
    r.weight
from rows as r
cross join classes as c
