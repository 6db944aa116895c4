{#
  binary_label(column, pos_label): a binary label column as the integer 1 (positive) or 0.

  pos_label none: the column holds 0/1 numbers or booleans (a CSV's yes/no and true/false
  are read as booleans); `as_boolean` (a cast) maps both, and a `case` (not a cast to integer)
  keeps DuckDB from pushing an integer conversion into its CSV reader.
  pos_label given (as scikit-learn's pos_label): 1 where the column equals it, else 0; a
  string is compared with the column as text. The Python layer has checked that the column
  holds at most two values and that pos_label is finite (or a string, quoted here).
#}
{% macro binary_label(column, pos_label=none) -%}
{%- if pos_label is none -%}
case when {{ sqlmetrics.as_boolean(column) }} then 1 else 0 end
{%- elif pos_label is boolean -%}
case when {{ sqlmetrics.as_boolean(column) }} = {{ 'true' if pos_label else 'false' }} then 1 else 0 end
{%- elif pos_label is string -%}
case when cast({{ column }} as {{ sqlmetrics.string_type() }}) = {{ sqlmetrics.string_literal(pos_label) }} then 1 else 0 end
{%- else -%}
case when {{ column }} = {{ pos_label if pos_label is integer else sqlmetrics.float_literal(pos_label) }} then 1 else 0 end
{%- endif -%}
{%- endmacro %}
{#
  Class lists (scikit-learn's `labels=`): the Python layer has checked that `labels` is a
  non-empty list without repeats, all strings, all finite numbers (integral ones as Python
  ints) or all booleans, of the family of the label column. Each value goes into SQL as a
  literal of its kind (string_literal, an integer, float_literal, true/false), never raw.
  class_literal(value): one class as a literal.
  class_rows(labels): a relation (idx, class): the classes with their 0-based position, one
    VALUES list (Spark 4 fails to ship a union of constant selects to its tasks).
  class_in(expr, labels): `expr in (<the classes>)`.
#}
{% macro class_literal(value) -%}
{%- if value is boolean -%}
{{ 'true' if value else 'false' }}
{%- elif value is string -%}
{{ sqlmetrics.string_literal(value) }}
{%- elif value is integer -%}
{{ value }}
{%- else -%}
{{ sqlmetrics.float_literal(value) }}
{%- endif -%}
{%- endmacro %}

{% macro class_rows(labels) -%}
{{ adapter.dispatch('class_rows', 'sqlmetrics')(labels) }}
{%- endmacro %}

{% macro default__class_rows(labels) -%}
select idx, class
    from (values {% for value in labels %}({{ loop.index0 }}, {{ sqlmetrics.class_literal(value) }}){{ ', ' if not loop.last }}{% endfor %}) as listed_values (idx, class)
{%- endmacro %}

{# BigQuery has no VALUES table constructor (GoogleSQL's analyzer: "Expected keyword JOIN but
   got ','"): an array of structs, unnested #}
{% macro bigquery__class_rows(labels) -%}
select idx, class
    from unnest([{% for value in labels %}struct({{ loop.index0 }} as idx, {{ sqlmetrics.class_literal(value) }} as class){{ ', ' if not loop.last }}{% endfor %}])
{%- endmacro %}

{% macro class_in(expr, labels) -%}
{{ expr }} in ({% for value in labels %}{{ sqlmetrics.class_literal(value) }}{{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}
