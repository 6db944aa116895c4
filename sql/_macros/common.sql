{#
  Shared macros for every metric template.

  Slices: the Python layer passes `by`, a list of already-quoted user column identifiers
  (empty for a single overall value). The `source` CTE renames them to slice_0, slice_1, ...
  so that a slice column can never collide with the canonical names (label, score, ...);
  every later CTE carries them under those names, and Python renames them back.
#}

{# `"country" as slice_0, "day" as slice_1,` for the source CTE #}
{% macro slice_source(by) -%}
{% for col in by %}{{ col }} as slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}

{# `slice_0, slice_1, ` : carried through select lists #}
{% macro slice_cols(by) -%}
{% for col in by %}slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}

{# `group by slice_0, slice_1, <extra>` or `group by <extra>` or nothing #}
{% macro group_by(by, extra=[]) -%}
{% set cols = [] %}
{% for col in by %}{% do cols.append('slice_' ~ loop.index0) %}{% endfor %}
{% for col in extra %}{% do cols.append(col) %}{% endfor %}
{% if cols %}group by {{ cols | join(', ') }}{% endif %}
{%- endmacro %}

{# `partition by slice_0, <extra>` or nothing: for window clauses #}
{% macro partition_by(by, extra=[]) -%}
{% set cols = [] %}
{% for col in by %}{% do cols.append('slice_' ~ loop.index0) %}{% endfor %}
{% for col in extra %}{% do cols.append(col) %}{% endfor %}
{% if cols %}partition by {{ cols | join(', ') }}{% endif %}
{%- endmacro %}

{# `order by slice_0, slice_1` (total: slices are unique in a final CTE) or nothing #}
{% macro order_by(by) -%}
{% if by %}order by {% for col in by %}slice_{{ loop.index0 }}{{ ', ' if not loop.last }}{% endfor %}{% endif %}
{%- endmacro %}

{# `partition by <slices, extra> order by <order>`: the inside of an over (...) clause #}
{% macro window(by, order, extra=[]) -%}
{% set part = partition_by(by, extra) %}
{{ part ~ ' ' if part }}order by {{ order }}
{%- endmacro %}

{#
  Sum of floating-point values that does not depend on row order: the values are added in
  ascending order of themselves, so shuffled input gives bit-identical results. Needed only
  where the summands are not exact (weights, per-group metric values); counts and rank sums
  are exact in double precision up to 2^53 and use a plain sum().
#}
{% macro stable_sum(expr) -%}
sum({{ expr }} order by {{ expr }})
{%- endmacro %}

{# Division that yields NULL (-> NaN + UndefinedMetricWarning in Python) on a zero denominator #}
{% macro safe_div(num, den) -%}
cast({{ num }} as double) / nullif(cast({{ den }} as double), 0)
{%- endmacro %}
