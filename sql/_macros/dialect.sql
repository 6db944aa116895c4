{#
  The one home of dialect differences (decision 0007). Each construct that differs between
  engines is a dispatcher macro called by the other templates, with its `default__` body and
  the per-dialect variants side by side, as dbt's `adapter.dispatch` resolves them: the
  macro `<dialect>__<name>` if it is defined, else `default__<name>`. Python renders with
  dialect "duckdb"; dbt resolves the same calls with its own adapter.

  float_type(): the binary64 float type every value is computed in.
  exact_int(): the integer type exact_sum accumulates in (at least 128 bits: n < 2^46 terms
               of at most 2^80 each).
  string_type(): the text type an id is cast to when a query names one (first_empty, ...).
  float_literal(x): a number checked by Python (threshold, beta^2, eps, zero_division) as an
               exact literal of float_type(): the shortest repr that reads back to the same
               double, always with an exponent (`0.5` alone is DECIMAL in DuckDB, Spark and
               PostgreSQL), inside a cast: `cast(0.5e0 as double)`. NaN and infinities have no
               literal: a compiler error.
#}
{% macro float_type() -%}
{{ adapter.dispatch('float_type', 'sqlmetrics')() }}
{%- endmacro %}

{% macro default__float_type() -%}
double precision
{%- endmacro %}

{% macro duckdb__float_type() -%}
double
{%- endmacro %}

{% macro exact_int() -%}
{{ adapter.dispatch('exact_int', 'sqlmetrics')() }}
{%- endmacro %}

{% macro default__exact_int() -%}
decimal(38, 0)
{%- endmacro %}

{% macro duckdb__exact_int() -%}
hugeint
{%- endmacro %}

{% macro string_type() -%}
{{ adapter.dispatch('string_type', 'sqlmetrics')() }}
{%- endmacro %}

{% macro default__string_type() -%}
varchar
{%- endmacro %}

{% macro float_literal(value) -%}
{% set text = (value | float) ~ '' %}
{% if text in ['nan', 'inf', '-inf'] %}
{{ exceptions.raise_compiler_error('a number written into SQL must be finite; got ' ~ text) }}
{% endif %}
cast({{ text if 'e' in text else text ~ 'e0' }} as {{ float_type() }})
{%- endmacro %}
