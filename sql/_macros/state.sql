{#
  Exact mergeable states (sqlmetrics.state, sqlmetrics.merge; README "Daily partitions:
  mergeable states"). Every metric evaluate computes is a function of the multiset of the rows
  of its columns, and evaluate's statement gives the same bits in any row order (exact sums,
  decision 0006). So the state of a partition is that multiset: each distinct row of the
  slice columns and the columns the metrics read, once, with its count; the states of several
  partitions together hold the multiset of their union, and evaluate's own statement over
  the rows they stand for (state_rows) gives evaluate's numbers over the union, bit for bit.
  Its size is at most the distinct (slices, columns) rows: small for AUC, GAUC and the
  threshold metrics on rounded scores, as large as the data for unique float scores or
  (group, item) pairs.

  Schema, version 1 (state_compose's output, one row per distinct row of `columns`):
    sqlmetrics_state  integer  the schema version (1)
    sqlmetrics_args   text     the metrics and arguments of the state, as JSON
    <columns>                  the slice columns, then the columns the metrics read, under
                               their own names
    sqlmetrics_n      integer  how many rows of the partition hold these values

  state_compose(relation, columns, version, args): relation SQL after `from`; columns the
  quoted column names; version an integer; args the JSON text (a Python str, quoted here).
  state_rows(relation, columns): the rows a relation of states stands for: each state row
  sqlmetrics_n times, with `columns` (quoted names) only. Written for DuckDB and PostgreSQL
  (generate_series) and Spark (explode(sequence)), the engines merge runs on; BigQuery,
  Snowflake and Trino have no variant yet.
#}

{% macro state_compose(relation, columns, version, args) -%}
select
    {{ version | int }} as sqlmetrics_state,
    {{ sqlmetrics.string_literal(args) }} as sqlmetrics_args,
{% for col in columns %}
    {{ col }},
{% endfor %}
    count(*) as sqlmetrics_n
from {{ relation }}
group by {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

order by {% for col in columns %}{{ col }} nulls last{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro %}

{% macro state_rows(relation, columns) -%}
{{ adapter.dispatch('state_rows', 'sqlmetrics')(relation, columns) }}
{%- endmacro %}

{# `relation` may carry its own alias (`(select ...) as last_days`): not aliased here #}
{% macro default__state_rows(relation, columns) -%}
select {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

from {{ relation }}
cross join generate_series(1, sqlmetrics_n) as sqlmetrics_repeated(sqlmetrics_i)
{%- endmacro %}

{% macro spark__state_rows(relation, columns) -%}
select {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

from {{ relation }}
lateral view explode(sequence(1, sqlmetrics_n)) sqlmetrics_repeated as sqlmetrics_i
{%- endmacro %}
