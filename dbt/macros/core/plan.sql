{#
  The path from a macro call to SQL, as sqlmetrics/evaluate.py takes it for evaluate and
  render_evaluate: check the request, then one call of each family's kernel (the macros of
  sql/, the same files Python renders) with one entry per metric, composed by
  evaluate_compose, named by the final select of evaluate.named_sql. Nothing here computes
  a metric: the kernels do, exactly as for the Python API.

  sqlmetrics_plan_sql(who, relation, requests, columns, by, options, qrels, names)
    requests  [{text, name, k}] (sqlmetrics_parse_metric)
    columns   role -> the user's column name or none (label, score, weight, group, item,
              prediction)
    by        slice column names (a list)
    options   the options as given (checked per metric here)
    qrels     a relation of judgments (ranking metrics) or none
    train     a relation of interactions (beyond-accuracy metrics: train=) or none; its item
              column has the name of the run's
    names     output column name per request (evaluate: the text as written)
  Returns the SQL: slices under their own names, one column per request, n_rows and, when
  GAUC or a ranking metric is asked, n_groups (with both GAUC and ranking metrics, whose
  means run over different groups, n_groups_<name> for each of them instead, as
  evaluate.group_counts); ordered by the slices.
#}

{# normalize_by (sqlmetrics/_engine.py): a column name or a list of them #}
{% macro sqlmetrics_normalize_by(who, by) -%}
{%- if by is none -%}{{ return([]) }}{%- endif -%}
{%- set cols = [by] if by is string else by -%}
{%- set ok = namespace(value=cols is iterable and cols is not mapping) -%}
{%- if ok.value -%}
{%- for col in cols -%}{%- if col is not string or not col -%}{%- set ok.value = false -%}{%- endif -%}{%- endfor -%}
{%- endif -%}
{%- if not ok.value -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': by= must be a column name or a list of column names; got ' ~ sqlmetrics.sqlmetrics_repr(by)) }}
{%- endif -%}
{%- set cols = cols | list -%}
{%- if (cols | unique | list | length) != (cols | length) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': by= names a column twice: ' ~ sqlmetrics.sqlmetrics_repr(cols)) }}
{%- endif -%}
{{ return(cols) }}
{%- endmacro %}

{# the API macros over one statement of sql/ (off_policy, position_propensities,
   click_metrics): by= checked as normalize_by, its columns quoted; and the statement's
   slice_0.. under those names (`slice_0 as "country", `) #}
{% macro sqlmetrics_quoted_by(who, by) -%}
{%- set quoted = [] -%}
{%- for col in sqlmetrics.sqlmetrics_normalize_by(who, by) -%}{%- do quoted.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{{ return(quoted) }}
{%- endmacro %}

{% macro sqlmetrics_slices_named(quoted) -%}
{% for col in quoted %}slice_{{ loop.index0 }} as {{ col }}, {% endfor %}
{%- endmacro %}

{#
  Where dbt lets us see the relation's columns (a ref or source, at execution time), a
  missing column is refused before the warehouse sees the query, with Python's message
  (ColumnNotFoundError): `<metric>: column 'x' (label=) not found in data=<relation>;
  columns present: a, b`.
#}
{% macro sqlmetrics_check_columns(who, relation, wanted, arg='data') -%}
{%- if execute and relation is not string and relation.identifier is defined -%}
{%- set present = sqlmetrics.sqlmetrics_relation_columns(relation) -%}
{%- for pair in wanted -%}
{%- if pair[1] not in present -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': column ' ~ sqlmetrics.sqlmetrics_repr(pair[1]) ~ ' (' ~ pair[0] ~ '=) not found in ' ~ arg ~ '=' ~ relation ~ '; columns present: ' ~ present | join(', ')) }}
{%- endif -%}
{%- endfor -%}
{%- endif -%}
{%- endmacro %}

{#
  The column names of a relation, in order. A dbt-duckdb source declared with
  meta.external_location (a path, or a table function such as read_parquet('exports/**/*.parquet',
  hive_partitioning=true)) renders as that expression, which the adapter's own lookup pastes
  into `describe <relation>`: a parser error for a function call. Its columns are those of a
  query over it instead, exactly as the model's query will read it.
#}
{% macro sqlmetrics_relation_columns(relation) -%}
{%- set present = [] -%}
{%- if relation.external is defined and relation.external -%}
{%- for row in run_query('describe (select * from ' ~ relation ~ ')') -%}{%- do present.append(row[0]) -%}{%- endfor -%}
{%- else -%}
{%- for column in adapter.get_columns_in_relation(relation) -%}{%- do present.append(column.name) -%}{%- endfor -%}
{%- endif -%}
{{ return(present) }}
{%- endmacro %}

{# _role_column (evaluate.py): the column a request reads for a role, or none #}
{% macro sqlmetrics_role_column(spec, role, columns, has_qrels) -%}
{%- if has_qrels and spec.kernel == 'ranking_kernel' and role.name == 'label' -%}{{ return(none) }}{%- endif -%}
{%- if role.name == 'score' and columns.get('prediction') and 'threshold' in spec.params -%}{{ return(none) }}{%- endif -%}
{{ return(columns.get(role.name)) }}
{%- endmacro %}

{# options the Python layer checks on the data, which a dbt model cannot raise on #}
{% macro sqlmetrics_refuse_data_checks(who, options) -%}
{%- for option in ['empty', 'missing'] -%}
{%- if options.get(option) == 'error' -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": " ~ option ~ "='error' makes the Python layer raise after reading the data; a dbt model cannot: pass " ~ option ~ "='skip' or 'zero' (n_groups counts the groups in the means)") }}
{%- endif -%}
{%- endfor -%}
{%- endmacro %}

{# A request's options before the checks: those passed that its metric takes, what its name
   fixes (ir_measures' names: req.params), its cut-off (evaluate._metric_params). #}
{% macro sqlmetrics_request_params(req, spec, options) -%}
{%- set params = {} -%}
{%- for option in spec.params -%}
{%- if option in options and option != 'zero_division' -%}{%- do params.update({option: options[option]}) -%}{%- endif -%}
{%- endfor -%}
{%- do params.update(req.get('params') or {}) -%}
{%- if spec.takes_k -%}{%- do params.update({'k': req.k}) -%}{%- endif -%}
{{ return(params) }}
{%- endmacro %}


{% macro sqlmetrics_plan_sql(who, relation, requests, columns, by, options, qrels=none, names=none, train=none) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set names = names or requests | map(attribute='text') | list -%}
{%- set has_qrels = qrels is not none -%}
{%- set ns = namespace(ranking=false, counted=false, gauc=false) -%}
{%- for req in requests -%}
{%- set spec = facts.metrics[req.name] -%}
{%- if spec.kernel == 'ranking_kernel' -%}{%- set ns.ranking = true -%}{%- endif -%}
{%- if req.name == 'gauc' -%}{%- set ns.gauc = true -%}{%- endif -%}
{%- if spec.kernel == 'ranking_kernel' or req.name == 'gauc' -%}{%- set ns.counted = true -%}{%- endif -%}
{%- endfor -%}
{# group_counts (evaluate.py): [output name, generated name] of each group count #}
{%- set counts = [] -%}
{%- if ns.ranking and ns.gauc -%}
{%- for req in requests -%}
{%- if facts.metrics[req.name].kernel == 'ranking_kernel' -%}{%- do counts.append(['n_groups_' ~ names[loop.index0], 'n_groups']) -%}
{%- elif req.name == 'gauc' -%}{%- do counts.append(['n_groups_' ~ names[loop.index0], 'gauc_groups']) -%}{%- endif -%}
{%- endfor -%}
{%- elif ns.counted -%}{%- do counts.append(['n_groups', 'n_groups']) -%}
{%- endif -%}
{# check_slice_names #}
{%- set outputs = names + ['n_rows'] + counts | map('first') | list -%}
{%- for name in by -%}
{%- if name in outputs -%}
{%- set what = {'n_rows': 'rows per slice', 'n_groups': 'groups in the means'}.get(name, "groups in that metric's mean" if name.startswith('n_groups_') else 'a requested metric') -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': slice column ' ~ sqlmetrics.sqlmetrics_repr(name) ~ ' (by=) has the name of an output column (' ~ name ~ ': ' ~ what ~ '); the result would hold two columns ' ~ sqlmetrics.sqlmetrics_repr(name) ~ '. Rename the column in the data (e.g. select ' ~ name ~ ' as ' ~ name ~ '_slice) or leave it out of by=') }}
{%- endif -%}
{%- endfor -%}
{%- if has_qrels and not ns.ranking -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': qrels= is used by ranking metrics only, and none is requested') }}
{%- endif -%}
{%- if has_qrels and options.get('missing') == 'zero' and by and by != [columns.group] -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": missing='zero' with by=" ~ sqlmetrics.sqlmetrics_repr(by) ~ ": a judged group absent from the run has no slice value (slice columns are read from the run's rows), so it cannot be counted in any slice. Slice by the group column alone (by=" ~ sqlmetrics.sqlmetrics_repr(columns.group) ~ "), leave by= out, or pass missing='skip'") }}
{%- endif -%}
{# check_train (evaluate.py) #}
{%- if train is not none -%}
{%- set beyond = namespace(value=false) -%}
{%- for req in requests -%}{%- if facts.metrics[req.name].family == 'beyond' -%}{%- set beyond.value = true -%}{%- endif -%}{%- endfor -%}
{%- if not beyond.value -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': train= is used by the beyond-accuracy metrics only (catalog_coverage, novelty, gini_index), and none is requested') }}
{%- endif -%}
{%- if ns.ranking -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": train= and ranking metrics in one call: train= repeats items by design, the ranking metrics' data must not; evaluate them in two calls") }}
{%- endif -%}
{%- endif -%}
{{ sqlmetrics.sqlmetrics_refuse_data_checks(who, options) }}
{# the columns read, checked against the relation where dbt can see it #}
{%- set wanted = [] -%}
{%- for req in requests -%}
{%- for role in facts.metrics[req.name].roles -%}
{%- set col = sqlmetrics.sqlmetrics_role_column(facts.metrics[req.name], role, columns, has_qrels) -%}
{%- if col is not none and [role.name, col] not in wanted -%}{%- do wanted.append([role.name, col]) -%}{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{%- for col in by -%}{%- do wanted.append(['by', col]) -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_check_columns(who, relation, wanted) }}
{%- if has_qrels -%}
{{ sqlmetrics.sqlmetrics_check_columns(who, qrels, [['group', columns.group], ['item', columns.item], ['label', columns.label]], 'qrels') }}
{%- endif -%}
{%- if train is not none -%}
{{ sqlmetrics.sqlmetrics_check_columns(who, train, [['item', columns.item]], 'train') }}
{%- endif -%}
{# each request's options: those passed that it takes, what its name fixes (ir_measures'
   names: req.params), its cut-off; checked (evaluate._metric_params) #}
{%- set mine = [] -%}
{%- for req in requests -%}
{%- set spec = facts.metrics[req.name] -%}
{%- do mine.append(sqlmetrics.sqlmetrics_check_params(req.name, sqlmetrics.sqlmetrics_request_params(req, spec, options))) -%}
{%- endfor -%}
{# one part per family kernel (evaluate._parts / _kernel_part); metrics whose names fix
   different options (P(rel=2)@5 and nDCG@10) in one more part of it (_kernel_key) #}
{%- set kernels = {} -%}
{%- set order = [] -%}
{%- for req in requests -%}
{%- set kernel = facts.metrics[req.name].kernel -%}
{%- set i = loop.index0 -%}
{%- set found = namespace(key=none, n=0) -%}
{%- for key in order if key[0] == kernel -%}
{%- set theirs = {} -%}
{%- for j in kernels[key | join('#')] -%}{%- do theirs.update(mine[j]) -%}{%- endfor -%}
{%- set agree = namespace(value=true) -%}
{%- for option, value in mine[i].items() if option != 'k' and option in theirs -%}
{%- if sqlmetrics.sqlmetrics_repr(value) != sqlmetrics.sqlmetrics_repr(theirs[option]) -%}{%- set agree.value = false -%}{%- endif -%}
{%- endfor -%}
{%- if found.key is none and agree.value -%}{%- set found.key = key -%}{%- endif -%}
{%- set found.n = found.n + 1 -%}
{%- endfor -%}
{%- if found.key is none -%}{%- set found.key = [kernel, found.n] -%}{%- do order.append(found.key) -%}{%- do kernels.update({found.key | join('#'): []}) -%}{%- endif -%}
{%- do kernels[found.key | join('#')].append(i) -%}
{%- endfor -%}
{%- set quoted_by = [] -%}
{%- for col in by -%}{%- do quoted_by.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set parts = [] -%}
{%- for key in order -%}
{%- set kernel, counted = key[0], key[1] == 0 -%}
{%- set indices = kernels[key | join('#')] -%}
{%- set roles = {} -%}
{%- set filled = {} -%}
{%- do filled.update(facts.kernel_defaults[kernel]) -%}
{%- set entries = [] -%}
{%- for i in indices -%}
{%- set req = requests[i] -%}
{%- set spec = facts.metrics[req.name] -%}
{%- for role in spec.roles -%}
{%- set col = sqlmetrics.sqlmetrics_role_column(spec, role, columns, has_qrels) -%}
{%- do roles.update({role.name: sqlmetrics.sqlmetrics_quote(col) if col else none}) -%}
{%- endfor -%}
{%- for option, value in mine[i].items() -%}{%- if option != 'k' -%}{%- do filled.update({option: value}) -%}{%- endif -%}{%- endfor -%}
{%- do entries.append({'alias': 'm' ~ i, 'metric': req.name, 'k': req.k, 'needs': spec.needs}) -%}
{%- endfor -%}
{%- if has_qrels -%}
{%- do roles.update({'qrels_relation': qrels ~ ''}) -%}
{%- for role in ['group', 'item', 'label'] -%}{%- do roles.update({'qrels_' ~ role: sqlmetrics.sqlmetrics_quote(columns[role])}) -%}{%- endfor -%}
{%- endif -%}
{%- if train is not none and facts.metrics[requests[indices[0]].name].family == 'beyond' -%}
{%- do roles.update({'train_relation': train ~ '', 'train_item': sqlmetrics.sqlmetrics_quote(columns['item'])}) -%}
{%- endif -%}
{%- set sql = sqlmetrics.sqlmetrics_kernel(kernel, relation ~ '', quoted_by, roles, filled, entries) -%}
{%- set selected = [] -%}
{%- for i in indices -%}{%- do selected.append('m' ~ i) -%}{%- endfor -%}
{%- if kernel == 'ranking_kernel' and counted -%}
{%- do selected.extend(['n_groups', 'n_empty']) -%}
{%- if has_qrels -%}{%- do selected.append('n_missing') -%}{%- endif -%}
{%- endif -%}
{%- set part_columns = [] -%}
{%- for col in selected -%}{%- do part_columns.append({'column': col, 'as': col}) -%}{%- endfor -%}
{%- if kernel == 'gauc_kernel' and counted -%}{%- do part_columns.append({'column': 'n_groups', 'as': 'gauc_groups' if ns.ranking else 'n_groups'}) -%}{%- endif -%}
{%- do parts.append({'alias': 'ranking' if kernel == 'ranking_kernel' and counted else 'p' ~ indices[0], 'sql': sql | trim, 'columns': part_columns}) -%}
{%- endfor -%}
{%- set extra_slices = none -%}
{%- if has_qrels and options.get('missing') == 'zero' and by == [columns.group] -%}
{%- set g = sqlmetrics.sqlmetrics_quote(columns.group) -%}
{%- set extra_slices = 'select q.' ~ g ~ ' as slice_0\nfrom ' ~ qrels ~ ' as q\nwhere not exists (select 1 from ' ~ relation ~ ' as r where r.' ~ g ~ ' = q.' ~ g ~ ')\ngroup by q.' ~ g -%}
{%- endif -%}
{%- set composed = sqlmetrics.evaluate_compose(relation ~ '', quoted_by, parts, extra_slices) -%}
{# named_sql: slices under their own names, metrics as requested, zero_division applied,
   rows in slice order with NULL slices last on every engine #}
{%- set select = [] -%}
{%- set zero_division = options.get('zero_division', 'warn') -%}
{%- for req in requests -%}
{%- set expr = 'm' ~ loop.index0 -%}
{%- if 'zero_division' in facts.metrics[req.name].params and zero_division != 'warn' and zero_division == zero_division -%}
{%- set expr = 'coalesce(' ~ expr ~ ', ' ~ sqlmetrics.float_literal(zero_division) ~ ')' -%}
{%- endif -%}
{%- do select.append(expr ~ ' as ' ~ sqlmetrics.sqlmetrics_quote(names[loop.index0])) -%}
{%- endfor -%}
{%- do select.append('n_rows') -%}
{%- for count in counts -%}{%- do select.append('coalesce(' ~ count[1] ~ ', 0) as ' ~ (count[0] if count[0] == count[1] else sqlmetrics.sqlmetrics_quote(count[0]))) -%}{%- endfor -%}
{{ return(sqlmetrics.sqlmetrics_select(by, select, composed, 'evaluated', true)) }}
{%- endmacro %}
