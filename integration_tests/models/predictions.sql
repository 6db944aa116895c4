-- The click log with what the metrics need besides: a sample weight, a challenger score, and
-- a 3-class label/prediction pair for the multiclass metrics. Deterministic from the seed.
-- Types through the package's dialect macros (float_type, string_type: adapter.dispatch).
select
    user_id,
    item_id,
    country,
    day,
    click,
    pctr,
    -- a challenger model: the champion's score blurred by the item id
    (pctr + cast(mod(item_id, 7) as {{ sqlmetrics.float_type() }}) / 20.0) / 1.3 as pctr_challenger,
    1.0 + cast(mod(item_id, 3) as {{ sqlmetrics.float_type() }}) / 2.0 as weight,
    cast(mod(user_id, 3) as {{ sqlmetrics.string_type() }}) as segment,
    case when pctr < 0.2 then '0' when pctr < 0.4 then '1' else '2' end as segment_predicted
from {{ ref('ctr') }}
