{#
  evaluate: several metrics at once, per slice, in one select (sqlmetrics.evaluate).

  {{ sqlmetrics.evaluate(ref('predictions'), metrics=['auc', 'gauc', 'ndcg@10'],
                         label='click', score='pctr', group='user_id', item='item_id',
                         by=['country']) }}

  Arguments as Python's evaluate: relation (a ref, a source or any SQL after `from`),
  metrics (names as sqlmetrics.metric_names() lists them, `@k` for a cut-off), the columns
  label='label', score='score', group, item, weight, group_weight, prediction, qrels (a relation of
  judgments for the ranking metrics), by (a column or a list), and the metrics' options as
  keyword arguments (threshold=, weighting=, ties=, gain=, ...), each checked as in Python
  with the same messages. Output: the slice columns under their own names, one column per
  metric named as requested, n_rows and, when GAUC or a ranking metric is requested,
  n_groups; one row per slice, ordered by the slices (one row without by).
  convention= (a tool's name) sets the options as in Python (conventions.fill).
  Not done here (Python does it on the data): the data checks (NULLs, label domain,
  duplicate (group, item) pairs: test them with dbt's own tests), empty='error' and
  missing='error' (refused), the UndefinedMetricWarning (an undefined value is NULL).
#}
{% macro evaluate(relation, metrics, label='label', score='score', group=none, item=none, qrels=none, by=none, weight=none, group_weight=none, prediction=none, train=none) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set caller_name = 'evaluate' -%}
{%- set texts = [metrics] if metrics is string else metrics -%}
{%- if not texts -%}
{{ sqlmetrics.sqlmetrics_fail("evaluate: metrics= is empty; ask for at least one metric") }}
{%- endif -%}
{%- set requests = [] -%}
{%- set seen = [] -%}
{%- for text in texts -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(text, caller_name) -%}
{%- if req.text in seen -%}
{{ sqlmetrics.sqlmetrics_fail("evaluate: metric " ~ sqlmetrics.sqlmetrics_repr(req.text) ~ " is requested twice") }}
{%- endif -%}
{%- do seen.append(req.text) -%}
{%- do requests.append(req) -%}
{%- endfor -%}
{# _check_name_params: an option passed that a metric's name fixes otherwise is refused #}
{%- for req in requests -%}
{%- for name, fixed in req.params.items() -%}
{%- set given = kwargs.get(name) -%}
{%- if given is not none and sqlmetrics.sqlmetrics_repr(given) != sqlmetrics.sqlmetrics_repr(fixed) -%}
{%- set base = namespace(value='') -%}
{%- for ir_name, metric in facts.ir_measures.names.items() if metric == req.name -%}{%- set base.value = ir_name -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_fail(caller_name ~ ": " ~ name ~ "=" ~ sqlmetrics.sqlmetrics_repr(given) ~ " conflicts with metric " ~ sqlmetrics.sqlmetrics_repr(req.text) ~ ", whose name fixes " ~ name ~ "=" ~ sqlmetrics.sqlmetrics_repr(fixed) ~ " (ir_measures' definition of " ~ base.value ~ "); write the parameter in the name (e.g. 'P(rel=2)@5', \"nDCG(dcg='exp-log2')@10\") or leave " ~ name ~ "= out") }}
{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{# cutoff_options: a convention's options at a cut-off (ir_measures' RR@k: msmarco's ties),
   for that metric alone, under what its name fixes #}
{%- set convention = kwargs.get('convention') -%}
{%- if convention is string and convention in facts.conventions -%}
{%- for req in requests if req.k is not none -%}
{%- set own = {} -%}
{%- for option, value in facts.conventions[convention].with_cutoff.get(req.name, {}).items() if kwargs.get(option) is none -%}{%- do own.update({option: value}) -%}{%- endfor -%}
{%- do own.update(req.params) -%}
{%- do req.update({'params': own}) -%}
{%- endfor -%}
{%- endif -%}
{# convention= applied as conventions.fill applies it (macros/core/conventions.sql) #}
{%- set options = sqlmetrics.sqlmetrics_fill_convention(caller_name, requests, kwargs) -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by(caller_name, by) -%}
{%- set columns = {'label': label, 'score': score, 'weight': weight, 'group': group, 'item': item, 'prediction': prediction, 'group_weight': group_weight} -%}
{# _check_options: every option is taken by a requested metric, and passes its check #}
{%- set accepted = [] -%}
{%- for req in requests -%}{%- for p in facts.metrics[req.name].params -%}{%- if p != 'k' and p not in accepted -%}{%- do accepted.append(p) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
{%- for name, value in options.items() -%}
{%- if name not in accepted -%}
{{ sqlmetrics.sqlmetrics_fail("evaluate: option " ~ name ~ "= is accepted by none of the requested metrics (" ~ requests | map(attribute='text') | join(', ') ~ ")" ~ (" (write the cut-off into the name, e.g. 'ndcg@10')" if name == 'k' else '') ~ "; options they accept: " ~ (accepted | sort | join(', ') or 'none')) }}
{%- endif -%}
{%- set first = namespace(text=none) -%}
{%- for req in requests -%}{%- if first.text is none and name in facts.metrics[req.name].params -%}{%- set first.text = req.text -%}{%- endif -%}{%- endfor -%}
{%- do sqlmetrics.sqlmetrics_check_option(first.text, name, value) -%}
{%- endfor -%}
{# _check_prediction #}
{%- if prediction is not none and 'threshold' in options -%}
{%- set users = [] -%}
{%- for req in requests -%}{%- if 'threshold' in facts.metrics[req.name].params -%}{%- do users.append(req.text) -%}{%- endif -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_fail("evaluate: threshold=" ~ sqlmetrics.sqlmetrics_repr(options.threshold) ~ " and prediction=" ~ sqlmetrics.sqlmetrics_repr(prediction) ~ " both given; the threshold metrics (" ~ users | join(', ') ~ ") use the prediction column with prediction=, or score >= threshold without it: pass one of them, not both") }}
{%- endif -%}
{# _check_column_args #}
{%- for req in requests -%}
{%- set spec = facts.metrics[req.name] -%}
{%- set roles = spec.roles + ([{'name': 'label', 'kind': 'relevance', 'required': true}] if spec.kernel == 'ranking_kernel' else []) -%}
{%- for role in roles -%}
{%- if role.required and columns.get(role.name) is none -%}
{{ sqlmetrics.sqlmetrics_fail("evaluate: " ~ sqlmetrics.sqlmetrics_repr(req.text) ~ " needs " ~ role.name ~ "=, the " ~ role.name ~ " column") }}
{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{%- for arg in ['weight', 'prediction', 'item', 'group_weight'] -%}
{%- set used = namespace(value=false) -%}
{%- for req in requests -%}{%- for role in facts.metrics[req.name].roles -%}{%- if role.name == arg -%}{%- set used.value = true -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
{%- if columns[arg] is not none and not used.value -%}
{{ sqlmetrics.sqlmetrics_fail("evaluate: " ~ arg ~ "=" ~ sqlmetrics.sqlmetrics_repr(columns[arg]) ~ " is used by none of the requested metrics (" ~ requests | map(attribute='text') | join(', ') ~ ")") }}
{%- endif -%}
{%- endfor -%}
{{ return(sqlmetrics.sqlmetrics_plan_sql(caller_name, relation, requests, columns, by_cols, options, qrels, none, train)) }}
{%- endmacro %}
