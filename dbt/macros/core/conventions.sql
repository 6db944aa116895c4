{#
  convention= (sqlmetrics/conventions.py) in dbt: the same table, generated into the
  registry facts (facts.conventions, facts.definitional: sqlmetrics._dbt), applied by ports
  of conventions.resolve (one metric's macro) and conventions.fill (evaluate), with the same
  messages.
    sqlmetrics_resolve_convention(metric, options) -> options with 'convention' applied and
      removed: an option not passed (or none) takes the convention's value; a value in the
      tool's own spelling means what it means there (scikit-learn's zero_division='warn':
      0.0, dbt has no warnings); a passed value the tool cannot produce, an unknown name or
      a metric the tool does not define is a compile error.
    sqlmetrics_fill_convention(who, requests, options) -> evaluate's options, each requested
      metric resolved as a single call would be, the values the convention sets added; two
      metrics needing different values of one option is an error.
  Values: the generator writes NaN as the string 'nan' (a Jinja literal has no NaN).
#}

{% macro sqlmetrics_convention_same(a, b) -%}
{%- if a is string and b is string -%}{{ return(a == b) }}{%- endif -%}
{%- if a is string or b is string -%}
{{ return((b == 'nan' and a is number and a != a) or (a == 'nan' and b is number and b != b)) }}
{%- endif -%}
{%- if a is boolean or b is boolean -%}{{ return(false) }}{%- endif -%}
{{ return(a == b or (a != a and b != b)) }}
{%- endmacro %}

{% macro sqlmetrics_convention_repr(value) -%}
{{ return('nan' if value == 'nan' or (value is number and value != value) else sqlmetrics.sqlmetrics_repr(value)) }}
{%- endmacro %}

{% macro sqlmetrics_get_convention(who, name) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- if name is string and name in facts.conventions -%}{{ return(facts.conventions[name]) }}{%- endif -%}
{%- set known = facts.conventions.keys() | sort -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': unknown convention=' ~ sqlmetrics.sqlmetrics_repr(name) ~ '; known conventions: ' ~ known | join(', ')) }}
{%- endmacro %}

{% macro sqlmetrics_resolve_convention(metric, options) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[metric] -%}
{%- set out = {} -%}
{%- for key, value in options.items() -%}{%- if key != 'convention' -%}{%- do out.update({key: value}) -%}{%- endif -%}{%- endfor -%}
{%- set name = options.get('convention') -%}
{%- set convention = sqlmetrics.sqlmetrics_get_convention(metric, name) if name is not none else none -%}
{%- if convention is not none and metric not in convention.metrics -%}
{%- set having = [] -%}
{%- for other, facts_of in facts.conventions.items() -%}{%- if metric in facts_of.metrics -%}{%- do having.append(other) -%}{%- endif -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_fail(metric ~ ': convention=' ~ sqlmetrics.sqlmetrics_repr(convention.name) ~ ' does not define ' ~ metric ~ ' (' ~ convention.tool ~ ' has no such metric); conventions that define it: ' ~ (having | join(', ') or 'none') ~ '. Drop convention= or pick one of them') }}
{%- endif -%}
{%- for option in spec.params -%}
{%- set value = out.get(option) -%}
{%- if convention is none or option not in convention.sets -%}
{%- if value is none and option in facts.definitional and option in out -%}{%- do out.pop(option) -%}{%- endif -%}
{%- else -%}
{%- set cut = convention.with_cutoff.get(metric, {}) if out.get('k') is not none else {} -%}
{%- set fixed = cut.get(option, convention.by_metric.get(metric, {}).get(option, convention.sets[option])) -%}
{%- set spelled = convention.spelled.get(option, {}) -%}
{%- if value is none -%}
{%- do out.update({option: fixed}) -%}
{%- elif value is string and value in spelled -%}
{%- do out.update({option: spelled[value]}) -%}
{%- else -%}
{%- set checked = sqlmetrics.sqlmetrics_check_option(metric, option, value) -%}
{%- set adjustable = convention.adjustable.get(option, {'allowed': [], 'switch': ''}) -%}
{%- set ok = namespace(value=sqlmetrics.sqlmetrics_convention_same(checked, fixed) or adjustable.allowed is none) -%}
{%- for allowed in adjustable.allowed or [] -%}{%- if sqlmetrics.sqlmetrics_convention_same(checked, allowed) -%}{%- set ok.value = true -%}{%- endif -%}{%- endfor -%}
{%- if not ok.value -%}
{%- set shown = [] -%}
{%- for allowed in adjustable.allowed or [] -%}{%- do shown.append(sqlmetrics.sqlmetrics_convention_repr(allowed)) -%}{%- endfor -%}
{%- set can = '; ' ~ adjustable.switch ~ ' allows ' ~ shown | join(', ') if shown else '' -%}
{{ sqlmetrics.sqlmetrics_fail(metric ~ ': ' ~ option ~ '=' ~ sqlmetrics.sqlmetrics_repr(value) ~ ' cannot be reproduced with convention=' ~ sqlmetrics.sqlmetrics_repr(convention.name) ~ ': ' ~ convention.tool ~ ' uses ' ~ option ~ '=' ~ sqlmetrics.sqlmetrics_convention_repr(fixed) ~ can ~ '. Leave ' ~ option ~ '= out to follow ' ~ convention.name ~ ', or drop convention=') }}
{%- endif -%}
{%- endif -%}
{%- endif -%}
{%- endfor -%}
{{ return(out) }}
{%- endmacro %}

{% macro sqlmetrics_fill_convention(who, requests, options) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set out = {} -%}
{%- for key, value in options.items() -%}
{%- if not (value is none and key in facts.definitional) -%}{%- do out.update({key: value}) -%}{%- endif -%}
{%- endfor -%}
{%- set name = out.pop('convention', none) -%}
{%- if name is none -%}{{ return(out) }}{%- endif -%}
{%- do sqlmetrics.sqlmetrics_get_convention(who, name) -%}
{%- set filled = {} -%}
{%- for req in requests -%}
{%- set given = {'convention': name} -%}
{%- for p in facts.metrics[req.name].params -%}{%- if p != 'k' -%}{%- do given.update({p: out.get(p)}) -%}{%- endif -%}{%- endfor -%}
{%- set resolved = sqlmetrics.sqlmetrics_resolve_convention(req.name, given) -%}
{%- for option, value in resolved.items() -%}
{%- if value is not none and option not in out -%}
{%- if option not in filled -%}{%- do filled.update({option: [req.name, value]}) -%}{%- endif -%}
{%- set first = filled[option] -%}
{%- if not sqlmetrics.sqlmetrics_convention_same(first[1], value) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': convention=' ~ sqlmetrics.sqlmetrics_repr(name) ~ ' sets ' ~ option ~ '=' ~ sqlmetrics.sqlmetrics_convention_repr(first[1]) ~ ' for ' ~ first[0] ~ ' but ' ~ option ~ '=' ~ sqlmetrics.sqlmetrics_convention_repr(value) ~ ' for ' ~ req.name ~ ', and the metrics of one call share ' ~ option ~ '=; compute them in separate calls, or pass ' ~ option ~ '= yourself') }}
{%- endif -%}
{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{%- for option, pair in filled.items() -%}{%- do out.update({option: pair[1]}) -%}{%- endfor -%}
{{ return(out) }}
{%- endmacro %}
