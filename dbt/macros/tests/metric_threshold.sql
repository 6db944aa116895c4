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

  With ci= (a level, e.g. 0.95; ci_method=, n_boot=, seed= as for the metric macros) the
  gate knows its uncertainty: it computes the metric's interval in the warehouse and checks
  a bound of it, named by on= (write it "on": in YAML, which reads a bare on as true):
    on: upper   fail only when the upper bound is below min (or above max): the whole
                interval is past a min, the metric is significantly below it
    on: lower   fail only when the lower bound is below min (or above max)
    on: point   check the value itself (the interval is reported in the failing rows)
  Without on=, ci= checks min on the upper bound and max on the lower bound: the gate fails
  only when the whole interval is beyond the threshold. A slice whose bound is undefined
  fails (reason 'undefined'). The failing rows add lo, hi and the bound checked.

  With states: true the model is a table of sqlmetrics.evaluate_state's states (e.g. an
  incremental model of daily states; dbt's where: config picks the days): the gate checks
  the rows they stand for, replayed as merge_states replays them, so its value is
  merge_states' (evaluate's over the union of the days, bit for bit) and its interval the
  one of those rows (the bootstrap keys rows by their values, DeLong reads their multiset).
  The gate's columns and metric must be among those the states were made with.
  champion_challenger has no states= mode: a state holds one score column, not the pairs
  of two models' scores on the same row that its paired tests need.
#}
{% test metric_threshold(model, metric, min=none, max=none, by=none, ci=none, on=none, states=false) %}
{%- if min is none and max is none -%}
{{ exceptions.raise_compiler_error("metric_threshold: give min= or max= (or both); got neither") }}
{%- endif -%}
{%- for bound in [min, max] -%}
{%- if bound is not none and not sqlmetrics.sqlmetrics_is_real(bound) -%}
{{ exceptions.raise_compiler_error("metric_threshold: min= and max= must be finite numbers; got " ~ sqlmetrics.sqlmetrics_repr(bound)) }}
{%- endif -%}
{%- endfor -%}
{%- if on is not none and on not in ['point', 'lower', 'upper'] -%}
{{ exceptions.raise_compiler_error("metric_threshold: on= must be 'point', 'lower' or 'upper' (the value or a bound of its ci= interval); got " ~ sqlmetrics.sqlmetrics_repr(on)) }}
{%- endif -%}
{%- if on in ['lower', 'upper'] and ci is none -%}
{{ exceptions.raise_compiler_error("metric_threshold: on=" ~ sqlmetrics.sqlmetrics_repr(on) ~ " checks a bound of the interval: give ci= too (a level, e.g. ci=0.95)") }}
{%- endif -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by('metric_threshold', by) -%}
{%- if states not in [true, false] -%}
{{ exceptions.raise_compiler_error("metric_threshold: states= must be true (the model holds sqlmetrics.evaluate_state's states) or false; got " ~ sqlmetrics.sqlmetrics_repr(states)) }}
{%- endif -%}
{%- if states -%}
{#- the rows the states stand for, as merge_states replays them: the gate's numbers are
    evaluate's over the union of the partitions, with or without ci= -#}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(metric, 'metric_threshold') -%}
{%- set columns = sqlmetrics.sqlmetrics_columns(req.name, kwargs) -%}
{%- set quoted = sqlmetrics.sqlmetrics_state_columns('metric_threshold', [metric], columns, by_cols, 'qrels' in kwargs) -%}
{%- do sqlmetrics.sqlmetrics_check_state_counts('metric_threshold', model ~ '', quoted) -%}
{%- set replayed = sqlmetrics.state_rows(model ~ '', quoted) -%}
{%- set model = 'sqlmetrics_replayed' -%}
{%- elif ci is not none -%}
{#- dbt's where: config hands the test an aliased subquery, which the interval's SQL cannot
    alias again (it reads its relation as `relation as t`): read the model through a CTE -#}
{%- set replayed = 'select * from ' ~ model -%}
{%- set model = 'sqlmetrics_gate_source' -%}
{%- endif -%}
{%- set slices = [] -%}
{%- for col in by_cols -%}{%- do slices.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- if ci is none -%}
{%- set value = sqlmetrics.sqlmetrics_quote(metric) -%}
{%- set min_on = value -%}
{%- set max_on = value -%}
{%- set evaluated = sqlmetrics.evaluate(model, [metric], by=by_cols, **kwargs) -%}
{%- else -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(metric, 'metric_threshold') -%}
{%- set args = {'ci': ci} -%}
{%- do args.update(kwargs) -%}
{%- if req.k is not none -%}{%- do args.update({'k': req.k}) -%}{%- endif -%}
{%- set evaluated = sqlmetrics.sqlmetrics_metric(req.name, model, by_cols, args) -%}
{%- set value = sqlmetrics.sqlmetrics_quote(req.name) -%}
{%- set lo = sqlmetrics.sqlmetrics_quote(req.name ~ '_lo') -%}
{%- set hi = sqlmetrics.sqlmetrics_quote(req.name ~ '_hi') -%}
{%- set pick = {'point': value, 'lower': lo, 'upper': hi} -%}
{%- set min_on = pick[on or 'upper'] -%}
{%- set max_on = pick[on or 'lower'] -%}
{%- endif -%}
{%- set reason -%}
case
    when {{ value }} is null then 'undefined'
{% if min is not none %}    when {{ min_on }} is null then 'undefined interval'
    when {{ min_on }} < {{ sqlmetrics.float_literal(min) }} then 'below min {{ min }}{{ " (" ~ (on or "upper") ~ " bound of the " ~ ci ~ " interval)" if ci is not none and (on or "upper") != "point" }}'
{% endif %}
{% if max is not none %}    when {{ max_on }} is null then 'undefined interval'
    when {{ max_on }} > {{ sqlmetrics.float_literal(max) }} then 'above max {{ max }}{{ " (" ~ (on or "lower") ~ " bound of the " ~ ci ~ " interval)" if ci is not none and (on or "lower") != "point" }}'
{% endif %}
end
{%- endset -%}
{%- set failing -%}
{% if states or ci is not none %}
with {{ model }} as (
{{ replayed | indent(4, true) }}
)
{% endif %}
select
    {% for col in slices %}{{ col }}, {% endfor %}
    '{{ metric | replace("'", "''") }}' as metric,
    {{ value }} as value,
{% if ci is not none %}
    {{ lo }} as lo,
    {{ hi }} as hi,
{% endif %}
    {{ reason }} as reason
from (
{{ evaluated | indent(4, true) }}
) as evaluated
where {{ reason }} is not null
{%- endset -%}
{{ sqlmetrics.sqlmetrics_log_failures('metric_threshold', failing, by_cols) }}
{{ failing }}
{% endtest %}
