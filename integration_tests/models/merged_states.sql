-- The click model's metrics over the last N days (var state_days, default 2), merged from
-- their daily states: exactly sqlmetrics.evaluate over those days' rows.
{%- set last_days -%}
(select * from (
    select daily_states.*, dense_rank() over (order by day desc) as day_rank
    from {{ ref('daily_states') }} as daily_states
) as ranked where day_rank <= {{ var('state_days', 2) | int }}) as last_days
{%- endset %}
{{ sqlmetrics.merge_states(last_days, metrics=var('state_metrics'), label='click', score='pctr', group='user_id', by='country', threshold=0.3) }}
