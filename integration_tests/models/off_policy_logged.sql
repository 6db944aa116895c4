-- Logged bandit feedback for the off-policy estimators (issue 43), from the click log: a
-- logging propensity and a target policy's probability of the logged action (both from the
-- model's pctr and the item, deterministic), the reward model's estimate (pctr) and its
-- expectation under the target policy.
select
    country,
    click,
    pctr,
    0.2 + 0.6 * cast(mod(item_id, 5) as {{ sqlmetrics.float_type() }}) / 4.0 as pscore,
    cast(mod(item_id * 7 + user_id, 11) as {{ sqlmetrics.float_type() }}) / 10.0 as target,
    (pctr + 0.1) / 1.2 as pctr_target
from {{ ref('predictions') }}
