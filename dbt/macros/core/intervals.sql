{#
  ci= of the dbt metric macros: sqlmetrics.auc(ref('x'), label=..., score=..., ci=0.95) gives
  the slices under their own names, the value under the metric's name and <metric>_lo,
  <metric>_hi, computed in the warehouse by the SQL the Python call runs
  (sql/_macros/inference/intervals.sql; sqlmetrics/_inference/intervals.py::interval_sql is the Python
  twin of sqlmetrics_metric_ci). Options: ci= (a level in (0, 1)), ci_method= (None: the
  metric's default), n_boot=, seed=, checked with Python's messages.

  Methods: 'bootstrap' (every scalar metric whose value is not a mean over groups; AUC by
  its score buckets), 'delong' (AUC, unweighted), 'wilson' (the proportions, unweighted).
  Refused with a compiler error naming the alternatives: 't' and the group bootstrap
  (ranking metrics, gauc: per-group values), weighted Wilson (its effective sample size is an
  exact fraction): the Python functions compute them, and render(ci=) writes t and the group
  bootstrap as SQL (issue 26 decided against porting them here: the per-group query with its
  group weights is Python's intervals._group_sql, and t's exact factor table for df <= 1000 is
  stats.two_sided_t, a Newton solve on the incomplete beta function that Jinja would repeat a
  thousand times per compile; paste render's SQL into a model instead).
  The means of per-row losses (log_loss, brier_score, hamming_loss) default to 't' in Python
  and render(ci=); here the default is refused the same way, naming ci_method='bootstrap',
  whose SQL (ci_row_mean_query, one pass over rows x replicates) is the Python call's: the
  same ci= never means two intervals.

  The normal factor z of DeLong and Wilson is AUC's AS241 in SQL (ci_normal_factor), in
  CPython's statistics.NormalDist order of operations: equal to Python's z where the
  engine's ln is the C library's (DuckDB, PostgreSQL), else within an ulp or two.
#}

{% macro sqlmetrics_ci_options(kwargs) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set ci = {} -%}
{%- set rest = {} -%}
{%- for key, value in kwargs.items() -%}
{%- if key in facts.ci.params -%}{%- do ci.update({key: value}) -%}{%- else -%}{%- do rest.update({key: value}) -%}{%- endif -%}
{%- endfor -%}
{{ return([ci, rest]) }}
{%- endmacro %}

{% macro sqlmetrics_check_ci(name, ci) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set level = ci.get('ci') -%}
{%- set method = ci.get('ci_method') -%}
{%- if level is none -%}
{%- if method is not none -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': ci_method=' ~ sqlmetrics.sqlmetrics_repr(method) ~ ' needs ci= (a level, e.g. ci=0.95)') }}
{%- endif -%}
{{ return(none) }}
{%- endif -%}
{%- set checked = {} -%}
{%- for option in facts.ci.params -%}
{%- do checked.update({option: sqlmetrics.sqlmetrics_check_option(name, option, ci.get(option, facts.params[option].default))}) -%}
{%- endfor -%}
{{ return({'level': checked.ci, 'method': checked.ci_method, 'n_boot': checked.n_boot, 'seed': checked.seed}) }}
{%- endmacro %}

{% macro sqlmetrics_repr_list(values) -%}
{%- set out = [] -%}
{%- for v in values -%}{%- do out.append(sqlmetrics.sqlmetrics_repr(v)) -%}{%- endfor -%}
{{ out | join(', ') }}
{%- endmacro %}

{# the methods that apply to a metric with these columns, default first (intervals.methods_for) #}
{% macro sqlmetrics_ci_methods(spec, columns) -%}
{%- set out = [] -%}
{%- set group_optional = [] -%}
{%- for role in spec.roles -%}{%- if role.name == 'group' and not role.required -%}{%- do group_optional.append(1) -%}{%- endif -%}{%- endfor -%}
{%- set group_mean = spec.inference.group_mean if not (group_optional and not columns.group) else none -%}
{%- for m in spec.inference.ci_methods -%}
{%- if m == 'delong' and columns.weight -%}
{%- elif m == 't' and group_mean is none and not spec.inference.row_mean -%}
{%- else -%}{%- do out.append(m) -%}{%- endif -%}
{%- endfor -%}
{{ return([out, group_mean]) }}
{%- endmacro %}

{# z = -Phi^-1((1 - level) / 2) as an SQL expression: AS241 with the operations of CPython's
   statistics.NormalDist.inv_cdf in its order (central: num / den * q; tails r <= 5) #}
{% macro ci_normal_factor(level) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set c = facts.ci.as241 -%}
{%- set p = (1.0 - level) / 2.0 -%}
{%- if p < 1.4e-11 -%}
{{ sqlmetrics.sqlmetrics_fail('ci=' ~ level ~ ': a level above 1 - 2.8e-11 is computed in Python only (its normal quantile leaves the range of the SQL AS241 here)') }}
{%- endif -%}
{%- set q = p - 0.5 -%}
{%- if q | abs <= 0.425 -%}
{%- set rc = sqlmetrics.float_literal(0.180625 - q * q) -%}
(0 - {{ sqlmetrics.poisson_horner(c[0], rc) }} / {{ sqlmetrics.poisson_horner(c[1], rc) }} * {{ sqlmetrics.float_literal(q) }})
{%- else -%}
{%- set rt = '(sqrt(-ln(' ~ sqlmetrics.float_literal(p) ~ ')) - ' ~ sqlmetrics.float_literal(1.6) ~ ')' -%}
(0 + {{ sqlmetrics.poisson_horner(c[2], rt) }} / {{ sqlmetrics.poisson_horner(c[3], rt) }})
{%- endif -%}
{%- endmacro %}

{% macro sqlmetrics_metric_ci(name, relation, by, kwargs, ci) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[name] -%}
{%- if 'qrels' in kwargs or 'train' in kwargs -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': ci= with qrels= or train= is computed in Python only; call sqlmetrics.' ~ name ~ '(..., ci=) there, or drop ci=') }}
{%- endif -%}
{%- if spec.inference.counts_macro -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': ci= of ' ~ name ~ ' is computed from another metric\'s counts in Python; call sqlmetrics.' ~ name ~ '(..., ci=) instead, or drop ci=') }}
{%- endif -%}
{%- set call = sqlmetrics.sqlmetrics_prepare(name, relation, by, kwargs) -%}
{%- set columns, k, by_cols, quoted, quoted_by, checked, filled = call.columns, call.k, call.by, call.quoted, call.quoted_by, call.checked, call.filled -%}
{%- set found = sqlmetrics.sqlmetrics_ci_methods(spec, columns) -%}
{%- set allowed = found[0] -%}
{%- set group_mean = found[1] -%}
{%- set method = ci.method if ci.method is not none else allowed[0] -%}
{%- if method not in allowed -%}
{%- set why = " (DeLong's variance here is unweighted; with weight= use the bootstrap)" if method == 'delong' and method in spec.inference.ci_methods else (' (t needs per-group values: pass group=)' if method == 't' and method in spec.inference.ci_methods else '') -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': ci_method=' ~ sqlmetrics.sqlmetrics_repr(method) ~ ' does not apply to ' ~ name ~ why ~ '; methods that do: ' ~ sqlmetrics.sqlmetrics_repr_list(allowed) ~ ' (None = ' ~ sqlmetrics.sqlmetrics_repr(allowed[0]) ~ ')') }}
{%- endif -%}
{%- if method == 't' and spec.inference.row_mean -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": ci_method='t' (" ~ name ~ "'s default: t over the per-row losses) needs the t quantile of each slice's rows, which the dbt macros do not compute; pass ci_method='bootstrap' (the Python call's SQL), call sqlmetrics." ~ name ~ '(..., ci=) in Python (a dbt Python model), or paste sqlmetrics.render(' ~ sqlmetrics.sqlmetrics_repr(name) ~ ', ..., ci=) into a model') }}
{%- endif -%}
{%- if group_mean is not none or (method == 'wilson' and not spec.inference.proportion) -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': ci_method=' ~ sqlmetrics.sqlmetrics_repr(method) ~ ' of ' ~ name ~ ' reads per-group values, which the dbt macros do not compute; call sqlmetrics.' ~ name ~ '(..., ci=) in Python (a dbt Python model), or drop ci=') }}
{%- endif -%}
{%- if method == 'wilson' and columns.weight -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": ci_method='wilson' of " ~ name ~ " cannot be written as SQL alone (with weight= its effective sample size is an exact fraction computed in Python); methods the dbt macros compute for it: 'bootstrap'; or call sqlmetrics." ~ name ~ '(..., ci=) to run it') }}
{%- endif -%}
{%- set rel = relation ~ '' -%}
{%- set n_by = by_cols | length -%}
{%- set entry = {'alias': name, 'metric': name, 'k': k, 'needs': spec.needs} -%}
{%- set metric_sql = sqlmetrics.sqlmetrics_kernel(spec.kernel, rel, quoted_by, quoted, filled, [entry]) -%}
{%- set value = sqlmetrics.sqlmetrics_quote(name) -%}
{%- set lo = sqlmetrics.sqlmetrics_quote(name ~ '_lo') -%}
{%- set hi = sqlmetrics.sqlmetrics_quote(name ~ '_hi') -%}
{%- if method == 'delong' -%}
{%- set inner = sqlmetrics.ci_delong(rel, quoted_by, quoted, checked) -%}
{%- set bounds = sqlmetrics.ci_normal_bounds(inner, n_by, name, sqlmetrics.ci_normal_factor(ci.level)) -%}
{%- set sql = sqlmetrics.ci_render(none, bounds, n_by, name, lo, hi) -%}
{%- elif method == 'wilson' -%}
{%- set counts = sqlmetrics.sqlmetrics_kernel(spec.kernel, rel, quoted_by, quoted, filled, []) -%}
{%- set bounds = sqlmetrics.ci_wilson_bounds(counts, n_by, spec.inference.proportion[0] | join(' + '), spec.inference.proportion[1] | join(' + '), sqlmetrics.ci_normal_factor(ci.level)) -%}
{%- set sql = sqlmetrics.ci_render(metric_sql, bounds, n_by, value, lo, hi, true) -%}
{%- elif spec.inference.bucket_bootstrap and not columns.weight -%}
{%- set bounds = sqlmetrics.ci_auc_bootstrap(rel, quoted_by, quoted, checked, ci.n_boot, ci.seed, ci.level, facts.ci.auc_boot_buckets) -%}
{%- set sql = sqlmetrics.ci_render(none, bounds, n_by, name, lo, hi) -%}
{%- else -%}
{#- the row bootstrap of intervals._row_bootstrap_sql: the row key's order is the score,
    the other columns in role order, the weight last -#}
{%- set order = [] -%}
{%- for rank in [0, 1, 2] -%}
{%- for role in spec.roles -%}
{%- set r = 0 if role.name == 'score' else (2 if role.name == 'weight' else 1) -%}
{%- if r == rank and quoted[role.name] -%}{%- do order.append(quoted[role.name]) -%}{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{%- if spec.inference.row_mean -%}
{#- a mean of per-row losses: intervals._row_mean_sql, one pass over rows x replicates -#}
{%- set bounds = sqlmetrics.ci_row_mean_query(rel, quoted_by, quoted, filled, spec.inference.row_mean, 'bootstrap', order, ci.n_boot, ci.seed, ci.level) -%}
{%- set sql = sqlmetrics.ci_render(metric_sql, bounds, n_by, value, lo, hi) -%}
{%- else -%}
{%- set role_names = spec.roles | map(attribute='name') | list -%}
{%- set has_weight = 'weight' in role_names -%}
{%- set mode = 'weight' if has_weight else 'copies' -%}
{%- set key = quoted.get('group') -%}
{%- set resampled = sqlmetrics.ci_rows_relation(rel, quoted_by, order, key, ci.n_boot, ci.seed, mode, quoted.weight if has_weight and quoted.weight else none, key if mode == 'copies' else none) ~ ' as resampled' -%}
{%- set over = {} -%}
{%- do over.update(quoted) -%}
{%- if has_weight -%}{%- do over.update({'weight': sqlmetrics.sqlmetrics_quote('__sqlm_w')}) -%}{%- endif -%}
{%- if mode == 'copies' and key -%}{%- do over.update({'group': sqlmetrics.sqlmetrics_quote('__sqlm_g')}) -%}{%- endif -%}
{%- set boot_by = quoted_by + [sqlmetrics.sqlmetrics_quote('__sqlm_b')] -%}
{%- set ci_entry = {'alias': 'ci_value', 'metric': name, 'k': k, 'needs': spec.needs} -%}
{%- set inner = sqlmetrics.sqlmetrics_kernel(spec.kernel, resampled, boot_by, over, filled, [ci_entry]) -%}
{%- set bounds = sqlmetrics.ci_replicate_percentiles(inner, n_by, 'ci_value', ci.level) -%}
{%- set sql = sqlmetrics.ci_render(metric_sql, bounds, n_by, value, lo, hi) -%}
{%- endif -%}
{%- endif -%}
{{ return(sqlmetrics.sqlmetrics_select(by_cols, [value, lo, hi], sql, name ~ '_ci')) }}
{%- endmacro %}
