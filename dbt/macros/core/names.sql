{#
  Names as users write them, as sqlmetrics/names.py and registry.py read them: `repr` of a
  value in messages, the parsing of `ndcg@10`, identifier quoting with the adapter's own
  quote. Python's "did you mean" hint (difflib) is left out: the messages list the valid
  names. sqlmetrics_repr writes its result (no `return`), so a plain Jinja environment can
  render it too (tests/test_dbt.py compares it with Python's).
#}

{# Python's repr() of a value read from Jinja or YAML: 'text', 0.5, 10, True, None, [...] #}
{% macro sqlmetrics_repr(value) -%}
{%- if value is none -%}None
{%- elif value is boolean -%}{{ 'True' if value else 'False' }}
{%- elif value is string -%}
{%- if "'" in value and '"' not in value -%}"{{ value }}"
{%- else -%}'{{ value | replace('\\', '\\\\') | replace("'", "\\'") }}'
{%- endif -%}
{%- elif value is mapping -%}{
{%- for key, item in value.items() -%}{{ sqlmetrics.sqlmetrics_repr(key) }}: {{ sqlmetrics.sqlmetrics_repr(item) }}{{ ', ' if not loop.last }}{%- endfor -%}}
{%- elif value is iterable -%}[
{%- for item in value -%}{{ sqlmetrics.sqlmetrics_repr(item) }}{{ ', ' if not loop.last }}{%- endfor -%}]
{%- else -%}{{ value }}
{%- endif -%}
{%- endmacro %}

{# an identifier quoted by the adapter, its own quote character doubled inside #}
{% macro sqlmetrics_quote(name) -%}
{%- set mark = adapter.quote('x')[0] -%}
{{ adapter.quote(name | replace(mark, mark ~ mark)) }}
{%- endmacro %}

{#
  parse_metric (sqlmetrics/names.py): 'ndcg@10', 'map', 'auc', an alias, or one of
  ir_measures' names ('nDCG@10', 'P(rel=2)@5': core/ir_names.sql) -> {text, name, k,
  params}, params the options the name fixes (empty for our own names).
  `who` starts the messages; scalar_only refuses the metrics that give a table.
#}
{% macro sqlmetrics_lookup(base, with_k) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set found = namespace(name=none) -%}
{%- for name in ([base, base ~ '_at_k'] if with_k else [base]) -%}
{%- set key = facts.aliases.get(name, name) -%}
{%- if found.name is none and key in facts.metrics and (facts.metrics[key].takes_k or not with_k) -%}
{%- set found.name = key -%}
{%- endif -%}
{%- endfor -%}
{{ return(found.name) }}
{%- endmacro %}

{% macro sqlmetrics_parse_metric(text, who='evaluate', scalar_only=true) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- if text is not string or not text -%}
{{ exceptions.raise_compiler_error(who ~ ": metrics= must hold metric names such as 'auc' or 'ndcg@10'; got " ~ sqlmetrics.sqlmetrics_repr(text)) }}
{%- endif -%}
{%- set parts = text.partition('@') -%}
{%- set base, at, k_text = parts[0], parts[1], parts[2] -%}
{#- our names first, then ir_measures' (nDCG@10, P(rel=2)@5: core/ir_names.sql) -#}
{%- if '(' in base or sqlmetrics.sqlmetrics_lookup(base, at != '') is none -%}
{%- set parsed = sqlmetrics.sqlmetrics_parse_ir_name(text, who) -%}
{%- if parsed is not none -%}{{ return(parsed) }}{%- endif -%}
{%- endif -%}
{%- set k = none -%}
{%- if at -%}
{%- if not modules.re.fullmatch('[1-9][0-9]*', k_text) -%}
{{ exceptions.raise_compiler_error(who ~ ": metric " ~ sqlmetrics.sqlmetrics_repr(text) ~ ": the cut-off after '@' must be an integer >= 1, e.g. '" ~ base ~ "@10'") }}
{%- endif -%}
{%- set k = k_text | int -%}
{%- endif -%}
{%- set name = sqlmetrics.sqlmetrics_lookup(base, at != '') -%}
{%- if name is none -%}
{%- set forms = facts.scalar_forms if scalar_only else facts.forms -%}
{#- no "did you mean" (Python's difflib hint): the message lists the names -#}
{%- set near = sqlmetrics.sqlmetrics_repr(base) ~ ' takes no cut-off; write ' ~ sqlmetrics.sqlmetrics_repr(base) ~ '. ' if at and sqlmetrics.sqlmetrics_lookup(base, false) is not none else '' -%}
{{ exceptions.raise_compiler_error(who ~ ": unknown metric " ~ sqlmetrics.sqlmetrics_repr(text) ~ "; " ~ near ~ "known metrics: " ~ forms | join(', ') ~ "; ir_measures' names: " ~ facts.ir_measures.forms | join(', ')) }}
{%- endif -%}
{%- set spec = facts.metrics[name] -%}
{%- if scalar_only and spec.output != 'scalar' -%}
{{ exceptions.raise_compiler_error(who ~ ": " ~ sqlmetrics.sqlmetrics_repr(text) ~ " gives several values per slice (a curve, counts or a report), not one number; call sqlmetrics." ~ name ~ "(...) for it") }}
{%- endif -%}
{{ return({'text': text, 'name': name, 'k': k, 'params': {}}) }}
{%- endmacro %}
