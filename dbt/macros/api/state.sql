{#
  Exact mergeable states in dbt (sqlmetrics.state and sqlmetrics.merge; README "Daily
  partitions: mergeable states"; the schema: sql/_macros/shared/state.sql).

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

  round= (as Python's state and merge, README "Rounded states"): evaluate_state keeps the
  score to `round` decimals (state_round, sql/_macros/shared/state.sql) and records it;
  merge_states, given the same round=, adds after evaluate's columns `<metric>_lower` and
  `<metric>_upper` for each AUC and GAUC, the certified bounds on the exact value
  (state_auc_bounds, state_gauc_bounds).
  The same refusals as Python, with its messages (sqlmetrics_check_round).
#}

{# Python's _check_round: None, or decimals 0..15 with auc the only metric reading the score #}
{% macro sqlmetrics_check_round(who, round, metrics, columns, by, has_qrels) -%}
{%- if round is not none -%}
{%- if round is not integer -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": round=" ~ sqlmetrics.sqlmetrics_repr(round) ~ " is not a number of decimals; pass an integer from 0 to 15 (e.g. round=3 keeps scores to 3 decimals), or leave round= out for the exact state") }}
{%- endif -%}
{%- if round < 0 or round > 15 -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": round=" ~ round ~ " is outside 0..15 decimals; pass an integer from 0 to 15 (e.g. round=3), or leave round= out for the exact state") }}
{%- endif -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- for text in ([metrics] if metrics is string else metrics) -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(text, who) -%}
{%- set spec = facts.metrics[req.name] -%}
{%- set reads = [] -%}
{%- for role in spec.roles -%}
{%- if role.name == 'score' and sqlmetrics.sqlmetrics_role_column(spec, role, columns, has_qrels) -%}{%- do reads.append(1) -%}{%- endif -%}
{%- endfor -%}
{%- if reads and req.name not in ['auc', 'gauc'] -%}
{%- set why = "a threshold metric: rounding moves scores across its threshold, and its exact state keeps only two score values anyway" if spec.state == 'confusion' else "its value changes with the rounded scores, and no bound on its exact value is certified (only AUC's and GAUC's are)" -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": round=" ~ round ~ " with " ~ sqlmetrics.sqlmetrics_repr(req.text) ~ " (" ~ why ~ "); leave round= out, or make " ~ sqlmetrics.sqlmetrics_repr(req.text) ~ " a state of its own without round=") }}
{%- endif -%}
{%- endfor -%}
{%- if columns.weight is not none -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": round=" ~ round ~ " with weight=" ~ sqlmetrics.sqlmetrics_repr(columns.weight) ~ ": the certified AUC bounds of a rounded state count rows, not weights; leave round= or weight= out") }}
{%- endif -%}
{%- if columns.score in sqlmetrics.sqlmetrics_normalize_by(who, by) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": round=" ~ round ~ " with the score column " ~ sqlmetrics.sqlmetrics_repr(columns.score) ~ " in by=: a slice is not rounded; leave round= out, or slice by another column") }}
{%- endif -%}
{%- endif -%}
{%- endmacro %}

{#
  Python's _check_counts (sqlmetrics/_evaluate/state.py), with its message, at execution
  time (dbt's `execute`: a query of the states, state_bad_counts): a state row whose
  sqlmetrics_n is not a positive integer (0, negative, fractional or NULL) is refused, naming
  the row; the replay (state_rows) would drop it or count it wrongly, silently.
#}
{% macro sqlmetrics_check_state_counts(who, relation, quoted) -%}
{%- if execute -%}
{%- set bad = run_query(sqlmetrics.state_bad_counts(relation, quoted)) -%}
{%- if bad.rows | length -%}
{%- set row = bad.rows[0] -%}
{%- set names = bad.column_names -%}
{%- set values = [] -%}
{%- for name in names[:-2] -%}{%- do values.append(name ~ '=' ~ sqlmetrics.sqlmetrics_repr(row[loop.index0])) -%}{%- endfor -%}
{%- set count = row[names | length - 2] -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": " ~ row[names | length - 1] ~ " state row(s) have sqlmetrics_n not a positive integer, e.g. sqlmetrics_n=" ~ ('NULL' if count is none else count) ~ " in the row (" ~ values | join(', ') ~ "); a state row counts the rows of the data holding its values, at least 1 (merge does not subtract a state, or read a count of 0, a negative or a NULL one): drop those rows, or recompute the states with sqlmetrics.evaluate_state") }}
{%- endif -%}
{%- endif -%}
{%- endmacro %}

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

{% macro evaluate_state(relation, metrics, label='label', score='score', group=none, item=none, qrels=none, by=none, weight=none, prediction=none, train=none, round=none) -%}
{# evaluate's checks of the metrics, columns and options, with its messages #}
{%- do sqlmetrics.evaluate(relation, metrics, label=label, score=score, group=group, item=item, qrels=qrels, by=by, weight=weight, prediction=prediction, train=train, **kwargs) -%}
{%- set columns = {'label': label, 'score': score, 'weight': weight, 'group': group, 'item': item, 'prediction': prediction} -%}
{%- set quoted = sqlmetrics.sqlmetrics_state_columns('state', metrics, columns, by, qrels is not none) -%}
{%- set record = {'metrics': [metrics] if metrics is string else metrics | list, 'by': sqlmetrics.sqlmetrics_normalize_by('state', by), 'qrels': qrels is not none, 'train': train is not none, 'options': kwargs} -%}
{%- do record.update(columns) -%}
{%- do sqlmetrics.sqlmetrics_check_round('state', round, metrics, columns, by, qrels is not none) -%}
{%- set score_q = sqlmetrics.sqlmetrics_quote(score) -%}
{%- if round is not none and score_q in quoted -%}
{%- do record.update({'round': round}) -%}
{%- set cols = [] -%}
{%- for col in quoted -%}{%- do cols.append(sqlmetrics.state_round(col, round) ~ ' as ' ~ col if col == score_q else col) -%}{%- endfor -%}
{%- set relation = '(select ' ~ cols | join(', ') ~ ' from ' ~ relation ~ ') as sqlmetrics_rounded' -%}
{%- elif round is not none -%}
{%- do record.update({'round': round}) -%}
{%- endif -%}
{{ return(sqlmetrics.state_compose(relation, quoted, 1, tojson(record, sort_keys=true))) }}
{%- endmacro %}

{% macro merge_states(relation, metrics, label='label', score='score', group=none, item=none, qrels=none, by=none, weight=none, prediction=none, train=none, round=none) -%}
{%- set columns = {'label': label, 'score': score, 'weight': weight, 'group': group, 'item': item, 'prediction': prediction} -%}
{%- set quoted = sqlmetrics.sqlmetrics_state_columns('merge', metrics, columns, by, qrels is not none) -%}
{%- do sqlmetrics.sqlmetrics_check_round('merge', round, metrics, columns, by, qrels is not none) -%}
{%- set bounded = [] -%}
{%- if round is not none -%}
{%- for text in ([metrics] if metrics is string else metrics) -%}
{%- set name = sqlmetrics.sqlmetrics_parse_metric(text, 'merge').name -%}
{%- if name in ['auc', 'gauc'] -%}{%- do bounded.append((text, name)) -%}{%- endif -%}
{%- endfor -%}
{%- endif -%}
{%- set slices = [] -%}
{%- for col in sqlmetrics.sqlmetrics_normalize_by('merge', by) -%}{%- do slices.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{#- evaluate's checks (no query) before the counts' (a query of the states) -#}
{%- set merged = sqlmetrics.evaluate('sqlmetrics_replayed', metrics, label=label, score=score, group=group, item=item, qrels=qrels, by=by, weight=weight, prediction=prediction, train=train, **kwargs) -%}
{%- do sqlmetrics.sqlmetrics_check_state_counts('merge', relation, quoted) -%}
with sqlmetrics_replayed as (
{{ sqlmetrics.state_rows(relation, quoted) | indent(4, true) }}
)
select {{ 'merged.*' if bounded else '*' }}{% for text, name in bounded %}, bounds_{{ loop.index }}.lower as {{ sqlmetrics.sqlmetrics_quote(text ~ '_lower') }}, bounds_{{ loop.index }}.upper as {{ sqlmetrics.sqlmetrics_quote(text ~ '_upper') }}{% endfor %} from (
{{ merged }}
) as merged
{%- for text, name in bounded %}
left join (
{%- if name == 'auc' %}
{{ sqlmetrics.state_auc_bounds(relation, quoted, slices, sqlmetrics.sqlmetrics_quote(label), sqlmetrics.sqlmetrics_quote(score), kwargs.get('pos_label')) }}
{%- else %}
{{ sqlmetrics.state_gauc_bounds(relation, quoted, slices, sqlmetrics.sqlmetrics_quote(group), sqlmetrics.sqlmetrics_quote(label), sqlmetrics.sqlmetrics_quote(score), kwargs.get('pos_label'), kwargs.get('weighting', 'samples')) }}
{%- endif %}
) as bounds_{{ loop.index }}
{%- set outer = loop.index %}
    on {% for col in slices %}{{ sqlmetrics.null_safe_equal('merged.' ~ col, 'bounds_' ~ outer ~ '.slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}{{ '1 = 1' if not slices }}
{%- endfor %}
{%- endmacro %}
