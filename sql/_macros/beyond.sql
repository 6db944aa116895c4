{#
  Shared pieces of the beyond-accuracy metrics (sql/beyond/): recommendation lists read as
  one row per recommended (user, item); only the item column matters to these metrics.

  beyond_source(relation, by, columns): the `source` CTE body (slice columns, item).
  beyond_needs_train(metric, columns): a compiler error (InvalidParameterError) when the
  second input train= is not given (evaluate takes none yet).
  beyond_item_counts(by): the `item_counts` CTE body: per slice and item, c = times
  recommended; n = the slice's recommendations (every row), on each row.
#}
{% macro beyond_source(relation, by, columns) -%}
    select
        {{ slice_source(by) }}
        {{ columns.item }} as item
    from {{ relation }}
{%- endmacro %}

{% macro beyond_needs_train(metric, columns) -%}
{% if columns.train_relation is not defined or columns.train_relation is none %}
{{ exceptions.raise_compiler_error(metric ~ " needs train= (the interactions that define the catalog and item popularity), which evaluate does not take; call sqlmetrics." ~ metric ~ "(data, item=..., train=...)") }}
{% endif %}
{%- endmacro %}

{% macro beyond_item_counts(by) -%}
    select
        {{ slice_cols(by) }}
        item,
        count(*) as c,
        sum(count(*)) over ({{ partition_by(by) }}) as n
    from source
    {{ group_by(by, ['item']) }}
{%- endmacro %}
