{#
  The option checks of the registry, read as data: what each option accepts and the Python
  check's own messages are generated into sqlmetrics_checks() (macros/_generated/checks.sql,
  python -m tools.dbt). sqlmetrics_check_option(metric, name, value) returns the value
  normalised as Python's check returns it (eps 'auto' -> machine epsilon, relevance_level
  2.0 -> 2, ...) or raises a compiler error (its message inside within=[before, after] when
  given: core/ir_names.sql). Only what a rule cannot say is written here: beta's square, the
  items of gains= and labels=.
#}

{% macro sqlmetrics_fail(message) -%}
{{ exceptions.raise_compiler_error(message) }}
{%- endmacro %}

{# a generated message with its {metric}, {value}, ... filled, inside [before, after] #}
{% macro sqlmetrics_fill(template, shown) -%}
{%- set text = namespace(value=template) -%}
{%- for key, item in shown.items() -%}{%- set text.value = text.value.replace('{' ~ key ~ '}', item) -%}{%- endfor -%}
{{ return(text.value) }}
{%- endmacro %}

{% macro sqlmetrics_say(within, template, metric, shown={}) -%}
{%- set text = sqlmetrics.sqlmetrics_fill(template.replace('{metric}', metric), shown) -%}
{{ sqlmetrics.sqlmetrics_fail(text if within is none else within[0] ~ text ~ within[1]) }}
{%- endmacro %}

{% macro sqlmetrics_is_real(value) -%}
{{ return(value is number and value is not boolean and value | abs <= 1.7976931348623157e308) }}
{%- endmacro %}

{% macro sqlmetrics_number(value) -%}
{{ return(value | int if (value | float) == (value | int) else value | float) }}
{%- endmacro %}

{# rule: another generated rule than the option's (ir_measures' parameters), with what its
   messages show besides the value #}
{% macro sqlmetrics_check_option(metric, name, value, within=none, rule=none, shown={}) -%}
{%- set rule = rule or sqlmetrics.sqlmetrics_checks().options[name] -%}
{%- set say = rule.messages -%}
{%- set got = {'value': sqlmetrics.sqlmetrics_repr(value)} -%}
{%- do got.update(shown) -%}
{%- if value is none and rule.get('none') -%}{{ return(none) }}{%- endif -%}
{%- if value is boolean and rule.get('bool') -%}{{ return(value) }}{%- endif -%}
{%- if value is string and (rule.get('string') or value in rule.get('allowed', [])) -%}{{ return(value) }}{%- endif -%}
{%- if value is string and value in rule.get('words', {}) -%}{{ return(rule.words[value]) }}{%- endif -%}
{%- if rule.get('special') == 'gains' and value is mapping and value | length > 0 -%}
{%- set out = {} -%}
{%- for level in value.keys() | sort -%}
{%- set shown = {'level': sqlmetrics.sqlmetrics_repr(level), 'gain': sqlmetrics.sqlmetrics_repr(value[level])} -%}
{%- if level is not integer -%}{{ sqlmetrics.sqlmetrics_say(within, say.level, metric, shown) }}{%- endif -%}
{%- if not sqlmetrics.sqlmetrics_is_real(value[level]) -%}{{ sqlmetrics.sqlmetrics_say(within, say.gain, metric, shown) }}{%- endif -%}
{%- if level | abs > 9007199254740992 -%}{{ sqlmetrics.sqlmetrics_say(within, say.range, metric, shown) }}{%- endif -%}
{%- do out.update({level | float: value[level] | float}) -%}
{%- endfor -%}
{{ return(out) }}
{%- endif -%}
{%- if rule.get('special') == 'labels' and value is iterable and value is not string and value is not mapping -%}
{%- if value | length == 0 -%}{{ sqlmetrics.sqlmetrics_say(within, say.empty, metric) }}{%- endif -%}
{%- set kinds = [] -%}
{%- set out = [] -%}
{%- for v in value -%}
{%- if v is boolean or v is string -%}{%- do kinds.append('boolean' if v is boolean else 'text') -%}{%- do out.append(v) -%}
{%- elif sqlmetrics.sqlmetrics_is_real(v) -%}{%- do kinds.append('number') -%}{%- do out.append(sqlmetrics.sqlmetrics_number(v)) -%}
{%- else -%}{{ sqlmetrics.sqlmetrics_say(within, say.holds, metric, {'item': sqlmetrics.sqlmetrics_repr(v)}) }}
{%- endif -%}
{%- endfor -%}
{%- if kinds | unique | list | length > 1 -%}
{{ sqlmetrics.sqlmetrics_say(within, say.mixes, metric, {'kinds': kinds | unique | sort | join(', '), 'value': got.value}) }}
{%- endif -%}
{%- for v in out -%}
{%- if v in out[:loop.index0] -%}
{{ sqlmetrics.sqlmetrics_say(within, say.twice, metric, {'value': sqlmetrics.sqlmetrics_repr(out), 'item': sqlmetrics.sqlmetrics_repr(v)}) }}
{%- endif -%}
{%- endfor -%}
{{ return(out) }}
{%- endif -%}
{%- set kind = rule.get('number') -%}
{%- set ok = (kind == 'real' and sqlmetrics.sqlmetrics_is_real(value)) or (kind == 'int' and value is integer) or (kind == 'any' and value is number and value is not boolean) -%}
{%- if ok and 'values' in rule -%}{%- set ok = value in rule['values'] or (value != value and 'nan' in rule['values']) -%}{%- endif -%}
{%- set range = rule.get('range') or [none, true, none, true] -%}
{%- if ok and range[0] is not none -%}{%- set ok = value >= range[0] if range[1] else value > range[0] -%}{%- endif -%}
{%- if ok and range[2] is not none -%}{%- set ok = value <= range[2] if range[3] else value < range[2] -%}{%- endif -%}
{%- if not ok -%}{{ sqlmetrics.sqlmetrics_say(within, say.type, metric, got) }}{%- endif -%}
{%- if 'limit' in rule and value > rule.limit -%}{{ sqlmetrics.sqlmetrics_say(within, say.limit, metric, got) }}{%- endif -%}
{%- if rule.get('special') == 'beta' and value < 0 -%}{{ sqlmetrics.sqlmetrics_say(within, say.negative, metric, got) }}{%- endif -%}
{%- if rule.get('special') == 'beta' and value != 0 and not (0 < (value | float) * (value | float) <= 1.7976931348623157e308) -%}
{{ sqlmetrics.sqlmetrics_say(within, say.square, metric, got) }}
{%- endif -%}
{{ return(value | float if rule.get('out') == 'float' else (sqlmetrics.sqlmetrics_number(value) if rule.get('out') == 'num' else value)) }}
{%- endmacro %}

{#
  check_params (sqlmetrics/_engine.py): every option the metric takes, checked, defaults
  filled; an option it does not take is refused; then the cross-option check (generated:
  when its options have these values, unless another has those).
#}
{% macro sqlmetrics_check_params(name, params) -%}
{%- set spec = sqlmetrics.sqlmetrics_registry().metrics[name] -%}
{%- for option in params if option not in spec.params -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': unexpected option ' ~ option ~ '=; options it accepts: ' ~ (spec.params | join(', ') or 'none')) }}
{%- endfor -%}
{%- set checked = {} -%}
{%- for option in spec.params -%}
{%- set value = sqlmetrics.sqlmetrics_check_option(name, option, params[option] if option in params else spec.defaults[option]) -%}
{%- do checked.update({option: spec.defaults[option] if value is none else value}) -%}
{%- endfor -%}
{%- if spec.cross_check -%}
{%- set cross = sqlmetrics.sqlmetrics_checks().cross[spec.cross_check] -%}
{%- set hit = namespace(value=true, shown='') -%}
{%- for option, values in cross.when.items() if checked.get(option) not in values -%}{%- set hit.value = false -%}{%- endfor -%}
{%- for option, values in cross.get('unless', {}).items() -%}
{%- if checked.get(option) in values -%}{%- set hit.value = false -%}{%- endif -%}
{%- set hit.shown = sqlmetrics.sqlmetrics_repr(checked.get(option)) -%}
{%- endfor -%}
{%- if hit.value -%}{{ sqlmetrics.sqlmetrics_say(none, cross.message, name, {'value': hit.shown}) }}{%- endif -%}
{%- endif -%}
{{ return(checked) }}
{%- endmacro %}
