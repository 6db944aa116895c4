-- The seeded click series' exact mergeable states, day among the slices, appended by an
-- incremental model (each run adds the days not yet in the table): what the anomaly test
-- reads with states: true (sqlmetrics.metric_anomaly replays each day's rows)
{{ config(materialized='incremental') }}
{%- set new_rows -%}
(select * from {{ ref('anomaly_rows') }}{% if is_incremental() %} where day > (select max(day) from {{ this }}){% endif %}) as new_rows
{%- endset %}
{{ sqlmetrics.evaluate_state(new_rows, metrics=['auc'], label='click', score='pctr', by=['day', 'segment']) }}
