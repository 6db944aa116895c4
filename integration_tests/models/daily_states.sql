-- Each day's exact mergeable state of the click model's metrics (README, "Daily partitions:
-- mergeable states"), appended by an incremental model: a run adds the state of each day
-- not yet in the table, one sqlmetrics.evaluate_state per day, with the day in front.
-- var state_last_day (a date, optional) holds the later days back: tests/test_dbt.py builds
-- the first day alone, then lets an incremental run add the next (the is_incremental branch).
{{ config(materialized='incremental') }}
{%- set days = [] -%}
{%- if execute -%}
{%- set query -%}
select distinct cast(day as {{ sqlmetrics.string_type() }}) as day from {{ ref('predictions') }}
where 1 = 1
{%- if is_incremental() %} and day > (select max(day) from {{ this }}){% endif %}
{%- if var('state_last_day', none) %} and day <= cast({{ sqlmetrics.string_literal(var('state_last_day') ~ '') }} as date){% endif %}
order by day
{%- endset -%}
{%- set days = run_query(query).columns[0].values() -%}
{%- endif -%}
{%- if days | length == 0 %}
-- no new day: an empty select of the table's columns
select * from {{ this if is_incremental() else ref('predictions') }} where 1 = 0
{%- endif %}
{%- for day in days %}
{%- set one_day = "(select * from " ~ ref('predictions') ~ " where day = cast(" ~ sqlmetrics.string_literal(day) ~ " as date)) as one_day" %}
select cast({{ sqlmetrics.string_literal(day) }} as date) as day, state.*
from (
{{ sqlmetrics.evaluate_state(one_day, metrics=var('state_metrics'), label='click', score='pctr', group='user_id', by='country', threshold=0.3) }}
) as state
{{ 'union all' if not loop.last }}
{%- endfor %}
