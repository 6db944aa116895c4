{#
  Position bias in dbt (issue 43): sqlmetrics.position_propensities and
  sqlmetrics.click_metrics, the Python functions' names and arguments, running the statements
  of sql/_macros/counterfactual/position_bias.sql (rand_top_n_propensities,
  ips_click_metrics), whose header is the definition.

    {{ sqlmetrics.position_propensities(ref('click_log'), position='pos', click='clicked',
                                        intervention='randomised', max_position=5,
                                        by=['country'], ci_level=0.95) }}
    {{ sqlmetrics.click_metrics(ref('click_log'), group='query_id', position='pos',
                                click='clicked', score='new_score',
                                propensity={1: 1.0, 2: 0.61, 3: 0.42}, k=3) }}

  The rows are Python's: position_propensities gives the slices under their own names,
  position, propensity, lo, hi, clicks, impressions, ctr; click_metrics the slices, ctr@k,
  dcg@k, recall@k (those of metrics=, in its order; without @k when k is none), n_groups,
  n_clicked_groups, n_rows, n_clicks. The argument checks are Python's, with its messages,
  generated from it (sqlmetrics_checks().position_bias, `python -m tools.dbt`). propensity=
  is a column name or a mapping position -> propensity; position_propensities' table is a
  join the model writes (integration_tests/models/position_clicks_joined.sql): a column then.
  lo and hi use z = Phi^-1((1 + ci_level) / 2) computed by the warehouse (AS241,
  sqlmetrics_anomaly_z; Jinja has no logarithm). Missing columns are refused where dbt sees
  the relation's columns (a ref or source); the intervention column's type (boolean: its
  true rows, else its rows equal to 1) is read there too, numeric when dbt cannot see it.
  Not done here (decision 0009, "What dbt does not do"): the value checks that need a query
  (NULLs, positions that are not integers >= 1, clicks neither 0 nor 1, a click without a
  propensity > 0); use dbt's data tests for them.
#}
{% macro sqlmetrics_column_is_boolean(relation, column) -%}
{%- if execute and relation is not string and relation.identifier is defined and not (relation.external is defined and relation.external) -%}
{%- for c in adapter.get_columns_in_relation(relation) -%}
{%- if c.name == column and 'bool' in c.dtype | lower -%}{{ return(true) }}{%- endif -%}
{%- endfor -%}
{%- endif -%}
{{ return(false) }}
{%- endmacro %}

{# a column argument: a non-empty string (optional: none passes) #}
{% macro sqlmetrics_column_arg(say, arg, value, optional=false) -%}
{%- if not (optional and value is none) and (value is not string or not value) -%}
{{ sqlmetrics.sqlmetrics_fail(say[arg].replace('{value}', sqlmetrics.sqlmetrics_repr(value))) }}
{%- endif -%}
{%- endmacro %}

{# _positive_int: none, or an integer >= 1 #}
{% macro sqlmetrics_positive_int(say, arg, value) -%}
{%- if value is not none and (value is not integer or value < 1) -%}
{{ sqlmetrics.sqlmetrics_fail(say[arg].replace('{value}', sqlmetrics.sqlmetrics_repr(value))) }}
{%- endif -%}
{%- endmacro %}

{% macro sqlmetrics_not_in_by(say, arg, column, by, by_cols) -%}
{%- if column is not none and column in by_cols -%}
{{ sqlmetrics.sqlmetrics_fail(sqlmetrics.sqlmetrics_fill(say[arg ~ '_in_by'], {'by': sqlmetrics.sqlmetrics_repr(by), 'col': sqlmetrics.sqlmetrics_repr(column)})) }}
{%- endif -%}
{%- endmacro %}

{% macro position_propensities(relation, position, click, intervention=none, by=none, max_position=none, ci_level=0.95) -%}
{%- set who = 'position_propensities' -%}
{%- set say = sqlmetrics.sqlmetrics_checks().position_bias.messages[who] -%}
{%- do sqlmetrics.sqlmetrics_column_arg(say, 'position', position) -%}
{%- do sqlmetrics.sqlmetrics_column_arg(say, 'click', click) -%}
{%- do sqlmetrics.sqlmetrics_column_arg(say, 'intervention', intervention, optional=true) -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by(who, by) -%}
{%- do sqlmetrics.sqlmetrics_positive_int(say, 'max_position', max_position) -%}
{%- if not sqlmetrics.sqlmetrics_is_real(ci_level) or not (ci_level > 0 and ci_level < 1) -%}
{{ sqlmetrics.sqlmetrics_fail(say.ci_level.replace('{value}', sqlmetrics.sqlmetrics_repr(ci_level))) }}
{%- endif -%}
{%- for arg, col in [('position', position), ('click', click), ('intervention', intervention)] -%}
{%- do sqlmetrics.sqlmetrics_not_in_by(say, arg, col, by, by_cols) -%}
{%- endfor -%}
{%- set wanted = [('position', position), ('click', click)] -%}
{%- for col in by_cols -%}{%- do wanted.append(('by', col)) -%}{%- endfor -%}
{%- if intervention is not none -%}{%- do wanted.append(('intervention', intervention)) -%}{%- endif -%}
{%- do sqlmetrics.sqlmetrics_check_columns(who, relation, wanted) -%}
{%- set quoted = sqlmetrics.sqlmetrics_quoted_by(who, by) -%}
{%- set columns = {'position': sqlmetrics.sqlmetrics_quote(position), 'click': sqlmetrics.sqlmetrics_quote(click), 'intervention': none if intervention is none else sqlmetrics.sqlmetrics_quote(intervention)} -%}
{%- set options = {'max_position': max_position, 'z': sqlmetrics.sqlmetrics_anomaly_z(ci_level * 1.0), 'intervention_bool': intervention is not none and sqlmetrics.sqlmetrics_column_is_boolean(relation, intervention)} -%}
select {{ sqlmetrics.sqlmetrics_slices_named(quoted) }}position, propensity, lo, hi, clicks, impressions, ctr
from (
{{ sqlmetrics.rand_top_n_propensities(relation, quoted, columns, options) }}
) as propensities
order by {{ sqlmetrics.slice_order(quoted) }}position
{%- endmacro %}

{% macro click_metrics(relation, group, position, click, score, propensity, k=10, metrics=['ctr', 'dcg', 'recall'], by=none) -%}
{%- set who = 'click_metrics' -%}
{%- set facts = sqlmetrics.sqlmetrics_checks().position_bias -%}
{%- set say = facts.messages[who] -%}
{%- for arg, col in [('group', group), ('position', position), ('click', click), ('score', score)] -%}
{%- do sqlmetrics.sqlmetrics_column_arg(say, arg, col) -%}
{%- endfor -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by(who, by) -%}
{%- do sqlmetrics.sqlmetrics_positive_int(say, 'k', k) -%}
{%- set names = [metrics] if metrics is string else (metrics | list if metrics is iterable else []) -%}
{%- set ok = namespace(value=names | length > 0) -%}
{%- if ok.value -%}
{%- for m in names -%}{%- if m not in facts.metrics -%}{%- set ok.value = false -%}{%- endif -%}{%- endfor -%}
{%- set ok.value = ok.value and (names | unique | list | length) == (names | length) -%}
{%- endif -%}
{%- if not ok.value -%}
{{ sqlmetrics.sqlmetrics_fail(say.metrics.replace('{value}', sqlmetrics.sqlmetrics_repr(metrics))) }}
{%- endif -%}
{%- set mapping = {} -%}
{%- if propensity is string and not propensity -%}
{{ sqlmetrics.sqlmetrics_fail(say.propensity_empty) }}
{%- elif propensity is not string -%}
{%- if propensity is not mapping or not propensity -%}
{{ sqlmetrics.sqlmetrics_fail(say.propensity.replace('{value}', sqlmetrics.sqlmetrics_repr(propensity))) }}
{%- endif -%}
{%- for pos, p in propensity.items() -%}
{%- if pos is not integer or pos < 1 or not sqlmetrics.sqlmetrics_is_real(p) or not p > 0 -%}
{{ sqlmetrics.sqlmetrics_fail(sqlmetrics.sqlmetrics_fill(say.propensity_item, {'pos': sqlmetrics.sqlmetrics_repr(pos), 'p': sqlmetrics.sqlmetrics_repr(p)})) }}
{%- endif -%}
{%- do mapping.update({pos: p * 1.0}) -%}
{%- endfor -%}
{%- endif -%}
{%- do sqlmetrics.sqlmetrics_not_in_by(say, 'group', group, by, by_cols) -%}
{%- set wanted = [('position', position), ('click', click), ('group', group), ('score', score)] -%}
{%- if propensity is string -%}{%- do wanted.append(('propensity', propensity)) -%}{%- endif -%}
{%- for col in by_cols -%}{%- do wanted.append(('by', col)) -%}{%- endfor -%}
{%- do sqlmetrics.sqlmetrics_check_columns(who, relation, wanted) -%}
{%- set quoted = sqlmetrics.sqlmetrics_quoted_by(who, by) -%}
{%- set columns = {'group': sqlmetrics.sqlmetrics_quote(group), 'position': sqlmetrics.sqlmetrics_quote(position), 'click': sqlmetrics.sqlmetrics_quote(click), 'score': sqlmetrics.sqlmetrics_quote(score), 'propensity': sqlmetrics.sqlmetrics_quote(propensity) if propensity is string else none} -%}
{%- set chosen = [] -%}
{%- for m in facts.metrics -%}{%- if m in names -%}{%- do chosen.append(m) -%}{%- endif -%}{%- endfor -%}
{%- set listed = [] -%}
{%- for pos in mapping.keys() | sort -%}{%- do listed.append([pos, mapping[pos]]) -%}{%- endfor -%}
{%- set options = {'k': k, 'metrics': chosen, 'propensities': listed} -%}
{%- set suffix = '' if k is none else '@' ~ k -%}
select {{ sqlmetrics.sqlmetrics_slices_named(quoted) }}{% for m in names %}mean_{{ m }} as {{ sqlmetrics.sqlmetrics_quote(m ~ suffix) }}, {% endfor %}n_groups, n_clicked_groups, n_rows, n_clicks
from (
{{ sqlmetrics.ips_click_metrics(relation, quoted, columns, options) }}
) as click_metrics
{% if quoted %}order by {{ (sqlmetrics.slice_order(quoted) | trim)[:-1] }}{% endif %}
{%- endmacro %}
