{#
  Resampling weights computed in SQL, the same on every engine (issue 12: bootstrap intervals,
  randomization tests). Nothing is copied and nothing random is drawn: the weight of a row
  (or a group) in replicate b is a deterministic function of (its key, b, seed), so the same
  seed gives the same interval on every engine and under any row order.

  key_hash(expr): a stable integer in [0, 2^32) from any key value: the first 8 hex digits of
               md5 of the value cast to text. Integers and strings cast to the same text on
               every engine; a float key does not (`0.1` prints differently): hash a group or
               row id, never a float.
  row_key(order_by, partition_by): a row key with no id column: the row's position in a total
               order of the columns it is resampled on (`row_number() over (... order by
               score, label, weight)`). Rows equal in every ordered column are
               interchangeable, so which of them gets which position changes nothing.
  replicate_uniform(key, b, seed): a double in [0, 1) for (integer key in [0, 2^32), integer
               replicate b >= 0, integer seed in [0, 2^31)). Integer arithmetic modulo the
               Mersenne prime p = 2^31 - 1, every product below 2^62 (bigint on every
               engine): an affine mix of key, seed and b, a squaring round, which makes the
               values of one key across replicates non-linear in b (an affine map alone
               would make replicate b' a shift of replicate b), and an affine round. The Python replay is
               sqlmetrics/_resample.py::replicate_uniform (tests compare them).
  poisson1(u): a Poisson(1) count from u in [0, 1) by its inverse CDF (0..8; P(>8) < 1.2e-6
               is folded into 8).
  (poisson1 names u eight times: select replicate_uniform(...) as a column first, then
  poisson1(that column) one level up, or the engine may hash eight times.)
  sign_flip(key, b, seed): +1 or -1 with probability 1/2 each (paired randomization tests).
#}
{% macro key_hash(expr) -%}
{{ adapter.dispatch('key_hash', 'sqlmetrics')(expr) }}
{%- endmacro %}

{% macro default__key_hash(expr) -%}
cast(('x' || substr(md5(cast({{ expr }} as {{ string_type() }})), 1, 8))::bit(32) as bigint)
{%- endmacro %}

{% macro duckdb__key_hash(expr) -%}
cast(('0x' || substr(md5(cast({{ expr }} as {{ string_type() }})), 1, 8)) as bigint)
{%- endmacro %}

{% macro spark__key_hash(expr) -%}
cast(conv(substr(md5(cast({{ expr }} as {{ string_type() }})), 1, 8), 16, 10) as bigint)
{%- endmacro %}

{% macro bigquery__key_hash(expr) -%}
cast(concat('0x', substr(to_hex(md5(cast({{ expr }} as {{ string_type() }}))), 1, 8)) as int64)
{%- endmacro %}

{% macro snowflake__key_hash(expr) -%}
to_number(substr(md5(cast({{ expr }} as {{ string_type() }})), 1, 8), 'XXXXXXXX')
{%- endmacro %}

{% macro trino__key_hash(expr) -%}
from_base(substr(to_hex(md5(to_utf8(cast({{ expr }} as {{ string_type() }})))), 1, 8), 16)
{%- endmacro %}

{% macro row_key(order_by, partition_by=[]) -%}
row_number() over (
{%- if partition_by %} partition by {{ partition_by | join(', ') }}{% endif %} order by {{ order_by | join(', ') }})
{%- endmacro %}

{% macro resample_mod_p(expr) -%}
mod({{ expr }}, cast(2147483647 as bigint))
{%- endmacro %}

{% macro replicate_uniform(key, b, seed) -%}
{%- set a = resample_mod_p(resample_mod_p('cast(' ~ key ~ ' as bigint)') ~ ' + ' ~ resample_mod_p('cast(' ~ seed ~ ' as bigint)') ~ ' * 16807') -%}
{%- set x1 = resample_mod_p(a ~ ' * 48271 + cast(' ~ b ~ ' as bigint) * 69621 + 12345') -%}
{%- set x2 = resample_mod_p(x1 ~ ' * ' ~ x1 ~ ' + cast(' ~ b ~ ' as bigint) + 1') -%}
{%- set x3 = resample_mod_p(x2 ~ ' * 48271 + ' ~ a) -%}
cast({{ x3 }} as {{ float_type() }}) / {{ float_literal(2147483647) }}
{%- endmacro %}

{% macro poisson1(u) -%}
case
{%- for cdf in [0.36787944117144233, 0.7357588823428847, 0.9196986029286058, 0.9810118431238462, 0.9963401531726563, 0.9994058151824183, 0.9999167588507119, 0.9999898508033944] %}
 when {{ u }} < {{ float_literal(cdf) }} then {{ loop.index0 }}
{%- endfor %}
 else 8 end
{%- endmacro %}

{% macro sign_flip(key, b, seed) -%}
case when {{ replicate_uniform(key, b, seed) }} < {{ float_literal(0.5) }} then 1 else -1 end
{%- endmacro %}
