{#
  The options of metric_anomalies (sqlmetrics/_evaluate/monitor.py::check_options) for the dbt
  test metric_anomaly (dbt/macros/tests/metric_anomaly.sql): the same checks in the same
  order, with Python's messages (generated: sqlmetrics_checks().anomalies, python -m
  tools.dbt), the same defaults (given: the options passed; the others take the Python
  function's defaults), and the same default direction (the registry's `better`).
  Returns the options of the SQL macro metric_anomalies less z (sqlmetrics_anomaly_z: the
  normal factor of ci_level, computed by the warehouse) and with ci_level.
#}

{# monitor.default_direction: drop for a metric where higher is better, rise for a loss,
   both for a name the registry does not know (or whose direction is neither) #}
{% macro sqlmetrics_anomaly_direction(metric) -%}
{%- set spec = sqlmetrics.sqlmetrics_registry().metrics.get(metric.split('@')[0].strip().lower()) -%}
{%- if spec is none or spec.better == 'neither' -%}{{ return('both') }}{%- endif -%}
{{ return('drop' if spec.better == 'higher' else 'rise') }}
{%- endmacro %}

{% macro sqlmetrics_anomaly_options(metric, given) -%}
{%- set facts = sqlmetrics.sqlmetrics_checks().anomalies -%}
{%- set say = facts.messages -%}
{%- set o = {} -%}
{%- for name, default in facts.defaults.items() -%}{%- do o.update({name: given.get(name, default)}) -%}{%- endfor -%}
{%- if metric is not string or not metric -%}
{{ sqlmetrics.sqlmetrics_fail(say.metric.replace('{value}', sqlmetrics.sqlmetrics_repr(metric))) }}
{%- endif -%}
{%- if o.seasonality is not none and o.seasonality not in facts.seasonalities -%}
{{ sqlmetrics.sqlmetrics_fail(say.seasonality.replace('{value}', sqlmetrics.sqlmetrics_repr(o.seasonality))) }}
{%- endif -%}
{%- if o.direction is not none and o.direction not in facts.directions -%}
{{ sqlmetrics.sqlmetrics_fail(sqlmetrics.sqlmetrics_fill(say.direction, {'value': sqlmetrics.sqlmetrics_repr(o.direction), 'default': sqlmetrics.sqlmetrics_repr(sqlmetrics.sqlmetrics_anomaly_direction(metric)), 'name': sqlmetrics.sqlmetrics_repr(metric)})) }}
{%- endif -%}
{%- if not sqlmetrics.sqlmetrics_is_real(o.threshold) or not o.threshold > 0 -%}
{{ sqlmetrics.sqlmetrics_fail(say.threshold.replace('{value}', sqlmetrics.sqlmetrics_repr(o.threshold))) }}
{%- endif -%}
{%- if not sqlmetrics.sqlmetrics_is_real(o.ci_level) or not (o.ci_level > 0 and o.ci_level < 1) -%}
{{ sqlmetrics.sqlmetrics_fail(say.ci_level.replace('{value}', sqlmetrics.sqlmetrics_repr(o.ci_level))) }}
{%- endif -%}
{%- for name, low in facts.lowest.items() -%}
{%- if o[name] is not integer or o[name] < low -%}
{{ sqlmetrics.sqlmetrics_fail(say[name].replace('{value}', sqlmetrics.sqlmetrics_repr(o[name]))) }}
{%- endif -%}
{%- endfor -%}
{%- set flag = o.direction or sqlmetrics.sqlmetrics_anomaly_direction(metric) -%}
{{ return({
    'window': o.window,
    'weekday': o.seasonality == 'weekday',
    'delay': o.delay,
    'min_rows': o.min_rows,
    'min_history': o.min_history,
    'threshold': o.threshold | float,
    'flagged': ['drop', 'rise'] if flag == 'both' else [flag],
    'ci_level': o.ci_level | float,
}) }}
{%- endmacro %}

{# z = two_sided_normal(ci_level), the half width of the table's intervals in standard
   errors: AS241 as the warehouse computes it (ci_normal_factor, CPython's order of
   operations: Python's double where the engine's ln is the C library's, DuckDB and
   PostgreSQL), read back as its shortest text. Jinja has no logarithm. #}
{% macro sqlmetrics_anomaly_z(level) -%}
{%- if not execute -%}{{ return(1.0) }}{%- endif -%}
{%- set found = run_query('select cast(' ~ sqlmetrics.ci_normal_factor(level) ~ ' as ' ~ sqlmetrics.string_type() ~ ') as z') -%}
{{ return(found.rows[0][0] | string | float) }}
{%- endmacro %}
