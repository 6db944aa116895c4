{#
  Writes each failing row of a quality gate to dbt's log when the test runs, so the failing
  slices are named in dbt's output (not only counted): `<test>: slice country='FR':
  metric auc, value 0.61, reason below min 0.7`.
#}
{% macro sqlmetrics_log_failures(test, failing, by_cols) -%}
{%- if execute -%}
{%- set rows = run_query(failing) -%}
{%- for row in rows -%}
{%- set parts = [] -%}
{%- for col in by_cols -%}{%- do parts.append(col ~ '=' ~ sqlmetrics.sqlmetrics_repr(row[loop.index0])) -%}{%- endfor -%}
{%- set cells = [] -%}
{%- for name in row.keys()[by_cols | length:] -%}{%- do cells.append(name ~ ' ' ~ row[name]) -%}{%- endfor -%}
{{ log(test ~ ' failed in slice ' ~ (parts | join(', ') or '(all rows)') ~ ': ' ~ cells | join(', '), info=true) }}
{%- endfor -%}
{%- endif -%}
{%- endmacro %}
