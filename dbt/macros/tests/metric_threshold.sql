{#
  metric_threshold: a quality gate. Fails when the metric, in any slice, is below `min`,
  above `max`, or undefined (NULL: e.g. AUC of a slice with one class only).

  models:
    - name: predictions
      data_tests:
        - sqlmetrics.metric_threshold:
            metric: auc            # any name evaluate takes: auc, gauc, ndcg@10, ...
            label: click
            score: pctr
            min: 0.70
            by: [country]          # optional: one check per slice
            # any other column (group=, item=, weight=, ...) or option (threshold=, ...)

  The failing rows are the failing slices (slice columns, metric, value, min, max, reason),
  so `dbt test --store-failures` keeps them; each one is also written to dbt's log
  (`metric_threshold: auc = 0.61 in slice country='FR': below min 0.7`).
#}
{% test metric_threshold(model, metric, min=none, max=none, by=none) %}
{%- if min is none and max is none -%}
{{ exceptions.raise_compiler_error("metric_threshold: give min= or max= (or both); got neither") }}
{%- endif -%}
{%- for bound in [min, max] -%}
{%- if bound is not none and not sqlmetrics.sqlmetrics_is_real(bound) -%}
{{ exceptions.raise_compiler_error("metric_threshold: min= and max= must be finite numbers; got " ~ sqlmetrics.sqlmetrics_repr(bound)) }}
{%- endif -%}
{%- endfor -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by('metric_threshold', by) -%}
{%- set value = sqlmetrics.sqlmetrics_quote(metric) -%}
{%- set slices = [] -%}
{%- for col in by_cols -%}{%- do slices.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set reason -%}
case
    when {{ value }} is null then 'undefined'
{% if min is not none %}    when {{ value }} < {{ sqlmetrics.float_literal(min) }} then 'below min {{ min }}'
{% endif %}
{% if max is not none %}    when {{ value }} > {{ sqlmetrics.float_literal(max) }} then 'above max {{ max }}'
{% endif %}
end
{%- endset -%}
{%- set failing -%}
select
    {% for col in slices %}{{ col }}, {% endfor %}
    '{{ metric | replace("'", "''") }}' as metric,
    {{ value }} as value,
    {{ reason }} as reason
from (
{{ sqlmetrics.evaluate(model, [metric], by=by_cols, **kwargs) | indent(4, true) }}
) as evaluated
where {{ reason }} is not null
{%- endset -%}
{{ sqlmetrics.sqlmetrics_log_failures('metric_threshold', failing, by_cols) }}
{{ failing }}
{% endtest %}
