{#
  The bodies of the public per-metric macros (macros/metrics/<metric>.sql, generated from
  the registry): sqlmetrics.<metric>(relation, by=none, **kwargs), kwargs holding the
  metric's columns by role (label=, score=, group=, ...; a required role defaults to its
  conventional name, as render() does) and its options (checked as compute() checks them:
  `<metric>: unexpected option x=; options it accepts: ...`, same value checks).

  sqlmetrics_metric (a scalar metric): the row of evaluate(relation, [metric], by=...) with
  the value column named after the metric (`auc`, `ndcg`, `map`): the slices under their
  own names, the value, n_rows and, for gauc and the ranking metrics, n_groups.
  sqlmetrics_table (a curve, counts or a report): the metric's own kernel, its output
  columns as the Python function returns them (e.g. roc_curve: threshold, fpr, tpr, ...),
  after the slices under their own names.
#}

{# required roles default to their conventional names (render's ROLE_DEFAULTS) #}
{% macro sqlmetrics_columns(name, kwargs) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[name] -%}
{%- set columns = {'label': none, 'score': none, 'weight': none, 'group': none, 'item': none, 'prediction': none} -%}
{%- for role in spec.roles -%}
{%- set conventional = role.required or role.name == 'label' -%}
{%- set value = kwargs.get(role.name, role.name if conventional else none) -%}
{%- if value is not none and (value is not string or not value) -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': ' ~ role.name ~ '= must be a column name (a non-empty string); got ' ~ sqlmetrics.sqlmetrics_repr(value)) }}
{%- endif -%}
{%- do columns.update({role.name: value}) -%}
{%- endfor -%}
{%- if columns.prediction and 'threshold' in spec.params -%}
{%- if 'threshold' in kwargs -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': threshold=' ~ sqlmetrics.sqlmetrics_repr(kwargs.threshold) ~ ' and prediction=' ~ sqlmetrics.sqlmetrics_repr(columns.prediction) ~ ' both given; pass a score column with threshold=, or a 0/1 prediction column, not both') }}
{%- endif -%}
{%- if 'score' not in kwargs -%}{%- do columns.update({'score': none}) -%}{%- endif -%}
{%- endif -%}
{{ return(columns) }}
{%- endmacro %}

{# the options among kwargs (everything that is not a column role or qrels), checked #}
{% macro sqlmetrics_options(name, kwargs) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[name] -%}
{%- set roles = spec.roles | map(attribute='name') | list -%}
{%- set options = {} -%}
{%- for key, value in kwargs.items() -%}
{%- if key not in roles and key not in ('qrels', 'train') -%}{%- do options.update({key: value}) -%}{%- endif -%}
{%- endfor -%}
{%- if 'qrels' in kwargs and spec.kernel != 'ranking_kernel' -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': qrels= is used by ranking metrics only; ' ~ sqlmetrics.sqlmetrics_repr(name) ~ ' is not one') }}
{%- endif -%}
{%- if 'train' in kwargs and spec.family != 'beyond' -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': train= is used by the beyond-accuracy metrics only (catalog_coverage, novelty, gini_index); ' ~ sqlmetrics.sqlmetrics_repr(name) ~ ' is not one') }}
{%- endif -%}
{# convention= applied as conventions.resolve applies it (macros/core/conventions.sql) #}
{%- set options = sqlmetrics.sqlmetrics_resolve_convention(name, options) -%}
{%- do sqlmetrics.sqlmetrics_check_params(name, options) -%}
{{ return(options) }}
{%- endmacro %}

{% macro sqlmetrics_metric(name, relation, by, kwargs) -%}
{#- ci= (ci_method=, n_boot=, seed=): the value with its interval (core/intervals.sql) -#}
{%- set split = sqlmetrics.sqlmetrics_ci_options(kwargs) -%}
{%- set ci = sqlmetrics.sqlmetrics_check_ci(name, split[0]) -%}
{%- if ci is not none -%}
{{ return(sqlmetrics.sqlmetrics_metric_ci(name, relation, by, split[1], ci)) }}
{%- endif -%}
{%- set kwargs = split[1] -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[name] -%}
{%- set columns = sqlmetrics.sqlmetrics_columns(name, kwargs) -%}
{%- set options = sqlmetrics.sqlmetrics_options(name, kwargs) -%}
{%- set qrels = kwargs.get('qrels') -%}
{%- set k = sqlmetrics.sqlmetrics_check_option(name, 'k', options.get('k')) if spec.takes_k else none -%}
{%- set passed = {} -%}
{%- for key, value in options.items() -%}{%- if key != 'k' -%}{%- do passed.update({key: value}) -%}{%- endif -%}{%- endfor -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by(name, by) -%}
{{ return(sqlmetrics.sqlmetrics_plan_sql(name, relation, [{'text': name, 'name': name, 'k': k}], columns, by_cols, passed, qrels, [name], kwargs.get('train'))) }}
{%- endmacro %}

{# one metric's call made ready for its kernel (sqlmetrics_table, sqlmetrics_metric_ci):
   columns and options checked, the columns checked against the relation, names quoted #}
{% macro sqlmetrics_prepare(name, relation, by, kwargs) -%}
{%- set spec = sqlmetrics.sqlmetrics_registry().metrics[name] -%}
{%- set columns = sqlmetrics.sqlmetrics_columns(name, kwargs) -%}
{%- set options = sqlmetrics.sqlmetrics_options(name, kwargs) -%}
{%- set k = sqlmetrics.sqlmetrics_check_option(name, 'k', options.get('k')) if spec.takes_k else none -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by(name, by) -%}
{%- set wanted = [] -%}
{%- for role, col in columns.items() if col is not none -%}{%- do wanted.append([role, col]) -%}{%- endfor -%}
{%- for col in by_cols -%}{%- do wanted.append(['by', col]) -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_check_columns(name, relation, wanted) }}
{%- set quoted = {} -%}
{%- for role in spec.roles -%}
{%- do quoted.update({role.name: sqlmetrics.sqlmetrics_quote(columns[role.name]) if columns[role.name] else none}) -%}
{%- endfor -%}
{%- set quoted_by = [] -%}
{%- for col in by_cols -%}{%- do quoted_by.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set checked = sqlmetrics.sqlmetrics_check_params(name, options) -%}
{%- if spec.takes_k -%}{%- do checked.update({'k': k}) -%}{%- endif -%}
{%- set filled = {} -%}
{%- do filled.update(sqlmetrics.sqlmetrics_registry().kernel_defaults[spec.kernel]) -%}
{%- do filled.update(checked) -%}
{{ return({'spec': spec, 'columns': columns, 'k': k, 'by': by_cols, 'quoted': quoted, 'quoted_by': quoted_by, 'checked': checked, 'filled': filled}) }}
{%- endmacro %}

{# select the slices under their own names and `outputs` from the kernel's `sql` #}
{% macro sqlmetrics_select(by_cols, outputs, sql, alias, order=false) -%}
{%- set select = [] -%}
{%- for col in by_cols -%}{%- do select.append('slice_' ~ loop.index0 ~ ' as ' ~ sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- do select.extend(outputs) -%}
{%- set slices = [] -%}
{%- for col in by_cols -%}{%- do slices.append('slice_' ~ loop.index0) -%}{%- endfor -%}
{%- set result -%}
select
    {{ select | join(',\n    ') }}
from (
{{ sql | trim | indent(4, true) }}
) as {{ alias }}{% if order %}
{% if slices %}order by {{ slices | join(' nulls last, ') }} nulls last{% endif %}{% endif %}
{%- endset -%}
{{ return(result) }}
{%- endmacro %}

{% macro sqlmetrics_table(name, relation, by, kwargs) -%}
{%- set call = sqlmetrics.sqlmetrics_prepare(name, relation, by, kwargs) -%}
{%- set sql = sqlmetrics.sqlmetrics_kernel(call.spec.kernel, relation ~ '', call.quoted_by, call.quoted, call.filled, []) -%}
{{ return(sqlmetrics.sqlmetrics_select(call.by, call.spec.columns.weighted if call.columns.weight else call.spec.columns.plain, sql, name)) }}
{%- endmacro %}
