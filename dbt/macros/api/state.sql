{#
  Exact mergeable states in dbt (sqlmetrics.state and sqlmetrics.merge; README "Daily
  partitions: mergeable states"; the schema: sql/_macros/state.sql).

  evaluate_state: the state of one partition (a day), e.g. in an incremental model that
  appends each day's state:
    {{ sqlmetrics.evaluate_state(ref('predictions'), metrics=['auc', 'log_loss'],
                                 label='click', score='pctr', by='country') }}
  merge_states: evaluate's select over the rows a relation of states stands for (e.g. the
  last N days of that model), with the arguments the states were made with:
    {{ sqlmetrics.merge_states(ref('daily_states'), metrics=['auc', 'log_loss'],
                               label='click', score='pctr', by='country') }}
  Arguments as sqlmetrics.evaluate (checked by it, with its messages). The columns of the
  state: sqlmetrics_state (1), sqlmetrics_args (JSON as Python's state writes it), the slice
  columns, the columns the metrics read, sqlmetrics_n. Not done here: merge_states does not
  read back the version and arguments each state recorded (Python's merge checks them).
#}

{# the state's data columns: the slices, then each column the metrics read (plan.used) #}
{% macro sqlmetrics_state_columns(who, metrics, columns, by, has_qrels) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set keys = [] -%}
{%- for col in sqlmetrics.sqlmetrics_normalize_by(who, by) -%}{%- if col not in keys -%}{%- do keys.append(col) -%}{%- endif -%}{%- endfor -%}
{%- for text in ([metrics] if metrics is string else metrics) -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(text, who) -%}
{%- set spec = facts.metrics[req.name] -%}
{%- if spec.state is none -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": " ~ sqlmetrics.sqlmetrics_repr(req.text) ~ " has no mergeable state (its value is not a function of the counts of its rows); evaluate it on the whole data, or leave it out of metrics=") }}
{%- endif -%}
{%- for role in spec.roles -%}
{%- set col = sqlmetrics.sqlmetrics_role_column(spec, role, columns, has_qrels) -%}
{%- if col and col not in keys -%}{%- do keys.append(col) -%}{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{%- for col in keys -%}
{%- if col in ['sqlmetrics_state', 'sqlmetrics_args', 'sqlmetrics_n'] -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": column " ~ sqlmetrics.sqlmetrics_repr(col) ~ " has the name of a state column (sqlmetrics_state, sqlmetrics_args, sqlmetrics_n); rename it in the data (e.g. select " ~ col ~ " as " ~ col ~ "_)") }}
{%- endif -%}
{%- endfor -%}
{%- set quoted = [] -%}
{%- for col in keys -%}{%- do quoted.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{{ return(quoted) }}
{%- endmacro %}

{% macro evaluate_state(relation, metrics, label='label', score='score', group=none, item=none, qrels=none, by=none, weight=none, prediction=none, train=none) -%}
{# evaluate's checks of the metrics, columns and options, with its messages #}
{%- do sqlmetrics.evaluate(relation, metrics, label=label, score=score, group=group, item=item, qrels=qrels, by=by, weight=weight, prediction=prediction, train=train, **kwargs) -%}
{%- set columns = {'label': label, 'score': score, 'weight': weight, 'group': group, 'item': item, 'prediction': prediction} -%}
{%- set quoted = sqlmetrics.sqlmetrics_state_columns('state', metrics, columns, by, qrels is not none) -%}
{%- set record = {'metrics': [metrics] if metrics is string else metrics | list, 'by': sqlmetrics.sqlmetrics_normalize_by('state', by), 'qrels': qrels is not none, 'train': train is not none, 'options': kwargs} -%}
{%- do record.update(columns) -%}
{{ return(sqlmetrics.state_compose(relation, quoted, 1, tojson(record, sort_keys=true))) }}
{%- endmacro %}

{% macro merge_states(relation, metrics, label='label', score='score', group=none, item=none, qrels=none, by=none, weight=none, prediction=none, train=none) -%}
{%- set columns = {'label': label, 'score': score, 'weight': weight, 'group': group, 'item': item, 'prediction': prediction} -%}
{%- set quoted = sqlmetrics.sqlmetrics_state_columns('merge', metrics, columns, by, qrels is not none) -%}
with sqlmetrics_replayed as (
{{ sqlmetrics.state_rows(relation, quoted) | indent(4, true) }}
)
select * from (
{{ sqlmetrics.evaluate('sqlmetrics_replayed', metrics, label=label, score=score, group=group, item=item, qrels=qrels, by=by, weight=weight, prediction=prediction, train=train, **kwargs) }}
) as merged
{%- endmacro %}
