{#
  ir_measures' names in dbt (sqlmetrics/_core/ir_names.py): `nDCG@10`, `P(rel=2)@5`,
  `RR(rel=2)`, `IPrec@0.2`, "nDCG(dcg='exp-log2')@10". The table (base name -> metric,
  parameter -> option, DCG formulations, the defaults a name fixes) is generated from the
  registry into facts.ir_measures (python -m tools.dbt); the messages are
  Python's.
    sqlmetrics_parse_ir_name(text, who) -> {text, name, k, params} or none (not one of
      ir_measures' names: the caller reports it as unknown)
  Parameter values are literals as Python's ast.literal_eval reads them here: integers,
  floats, quoted strings, True/False/None and flat dicts of numbers ({0:0,1:1,2:3}).
#}

{% macro sqlmetrics_ir_pattern() -%}
{{ return('(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\\((?P<params>.*)\\))?(?:@(?P<cut>.*))?') }}
{%- endmacro %}

{# one literal as ast.literal_eval reads it; [ok, value] #}
{% macro sqlmetrics_ir_literal(raw) -%}
{%- set re = modules.re -%}
{%- set text = raw | trim -%}
{%- if re.fullmatch('[+-]?[0-9]+', text) -%}{{ return([true, text | int]) }}{%- endif -%}
{%- if re.fullmatch('[+-]?([0-9]+\\.[0-9]*|\\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?', text) -%}{{ return([true, text | float]) }}{%- endif -%}
{%- if re.fullmatch("'[^'\\\\]*'|\"[^\"\\\\]*\"", text) -%}{{ return([true, text[1:-1]]) }}{%- endif -%}
{%- set words = {'True': true, 'False': false, 'None': none} -%}
{%- if text in words -%}{{ return([true, words[text]]) }}{%- endif -%}
{%- if text.startswith('{') and text.endswith('}') -%}
{%- set out = {} -%}
{%- set ok = namespace(value=true) -%}
{%- for pair in text[1:-1].split(',') if pair | trim -%}
{%- set kv = pair.split(':') -%}
{%- set key = sqlmetrics.sqlmetrics_ir_literal(kv[0]) if kv | length == 2 else [false] -%}
{%- set item = sqlmetrics.sqlmetrics_ir_literal(kv[1]) if kv | length == 2 else [false] -%}
{%- if key[0] and item[0] -%}{%- do out.update({key[1]: item[1]}) -%}{%- else -%}{%- set ok.value = false -%}{%- endif -%}
{%- endfor -%}
{{ return([ok.value, out]) }}
{%- endif -%}
{{ return([false, text]) }}
{%- endmacro %}

{# _params: 'rel=2, dcg=...' as a dict, or Python's message for what is wrong #}
{% macro sqlmetrics_ir_params(who, text, name, raw) -%}
{%- set pairs_error = who ~ ': metric ' ~ sqlmetrics.sqlmetrics_repr(text) ~ ': the parameters in parentheses must be name=value pairs separated by commas, e.g. ' ~ sqlmetrics.sqlmetrics_repr(name ~ '(rel=2)') -%}
{%- set pieces = modules.re.split(",(?![^{]*})", raw) -%}
{%- if pieces | length > 1 and not pieces[-1] | trim -%}{%- set pieces = pieces[:-1] -%}{%- endif -%}
{%- set out = {} -%}
{%- for piece in pieces if raw | trim -%}
{%- set pair = modules.re.fullmatch('\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*=(?!=)(.*)', piece, modules.re.S) -%}
{%- if pair is none or not pair.group(2) | trim -%}{{ sqlmetrics.sqlmetrics_fail(pairs_error) }}{%- endif -%}
{%- set value = sqlmetrics.sqlmetrics_ir_literal(pair.group(2)) -%}
{%- if not value[0] -%}
{%- if not modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_.]*', value[1]) -%}{{ sqlmetrics.sqlmetrics_fail(pairs_error) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': metric ' ~ sqlmetrics.sqlmetrics_repr(text) ~ ': parameter value ' ~ sqlmetrics.sqlmetrics_repr(value[1]) ~ ' is not a literal; write numbers, quoted strings, True/False or a dict such as {0:0,1:1,2:3}') }}
{%- endif -%}
{%- do out.update({pair.group(1): value[1]}) -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro %}

{# _translate: one of ir_measures' parameters as our options, checked: its own check first
   (dcg=, rel=, judged_only=), then its option's, inside the generated words #}
{% macro sqlmetrics_ir_translate(who, text, name, metric, param, value) -%}
{%- set ir = sqlmetrics.sqlmetrics_registry().ir_measures -%}
{%- set checks = sqlmetrics.sqlmetrics_checks().ir -%}
{%- set shown = {'who': who, 'text': sqlmetrics.sqlmetrics_repr(text), 'name': name, 'param': param, 'value': sqlmetrics.sqlmetrics_repr(value)} -%}
{%- if param in checks.params -%}{%- do sqlmetrics.sqlmetrics_check_option(text, param, value, none, checks.params[param], shown) -%}{%- endif -%}
{%- if param == 'dcg' -%}{{ return(ir.dcg[value]) }}{%- endif -%}
{%- set within = [sqlmetrics.sqlmetrics_fill(checks.invalid[0], shown), sqlmetrics.sqlmetrics_fill(checks.invalid[1], shown)] -%}
{{ return({ir.params[param]: sqlmetrics.sqlmetrics_check_option(text, ir.params[param], value, within)}) }}
{%- endmacro %}

{% macro sqlmetrics_parse_ir_name(text, who='evaluate') -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set ir = facts.ir_measures -%}
{%- set match = modules.re.fullmatch(sqlmetrics.sqlmetrics_ir_pattern(), text | trim, modules.re.S) -%}
{%- if match is none or match.group('name') not in ir.names -%}{{ return(none) }}{%- endif -%}
{%- set name = match.group('name') -%}
{%- set metric = ir.names[name] -%}
{%- set spec = facts.metrics[metric] -%}
{%- set given = sqlmetrics.sqlmetrics_ir_params(who, text, name, match.group('params')) if match.group('params') is not none else {} -%}
{%- set takers = [] -%}{%- set accepted = [] -%}
{%- for param, ours in ir.params.items() -%}{%- if ours in spec.params -%}{%- do takers.append(param) -%}{%- if param in ir.declared.get(name, []) -%}{%- do accepted.append(param) -%}{%- endif -%}{%- endif -%}{%- endfor -%}
{%- for param in given if param not in accepted -%}
{%- set takes = [] -%}{%- for p in accepted -%}{%- do takes.append(p ~ '=') -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': metric ' ~ sqlmetrics.sqlmetrics_repr(text) ~ ': ' ~ name ~ ' takes no parameter ' ~ param ~ '=' ~ (" (ir_measures' " ~ name ~ " does not declare it)" if param in takers else '') ~ '; its parameters here: ' ~ (takes | join(', ') or 'none') ~ '; drop ' ~ param ~ '= or write e.g. ' ~ sqlmetrics.sqlmetrics_repr(name ~ '(rel=2)' if 'rel' in accepted else name)) }}
{%- endfor -%}
{%- set options = {} -%}
{%- for param in takers if param in ir.defaults and param not in given -%}
{%- do options.update(sqlmetrics.sqlmetrics_ir_translate(who, text, name, metric, param, ir.defaults[param])) -%}
{%- endfor -%}
{%- for param, value in given.items() -%}
{%- do options.update(sqlmetrics.sqlmetrics_ir_translate(who, text, name, metric, param, value)) -%}
{%- endfor -%}
{%- if 'gains' in options and 'gain' in options and 'dcg' not in given -%}{%- do options.pop('gain') -%}{%- endif -%}
{%- set k = none -%}
{%- set cut = match.group('cut') -%}
{%- if cut is not none -%}
{%- set cut = cut | trim -%}
{%- if spec.takes_k -%}
{%- if not modules.re.fullmatch('[1-9][0-9]*', cut) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': metric ' ~ sqlmetrics.sqlmetrics_repr(text) ~ ": the cut-off after '@' must be an integer >= 1, e.g. '" ~ name ~ "@10'") }}
{%- endif -%}
{%- set k = cut | int -%}
{%- elif 'recall_level' in spec.params -%}
{%- set level = cut | float(-1.0) -%}
{%- if not (0 <= level <= 1) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': metric ' ~ sqlmetrics.sqlmetrics_repr(text) ~ ": the recall level after '@' must be a number in [0, 1], e.g. '" ~ name ~ "@0.2'") }}
{%- endif -%}
{%- do options.update({'recall_level': level}) -%}
{%- else -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': metric ' ~ sqlmetrics.sqlmetrics_repr(text) ~ ': ' ~ name ~ ' takes no cut-off; write ' ~ sqlmetrics.sqlmetrics_repr(name)) }}
{%- endif -%}
{%- endif -%}
{{ return({'text': text, 'name': metric, 'k': k, 'params': options}) }}
{%- endmacro %}
