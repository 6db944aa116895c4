{#
  Shared pieces of the beyond-accuracy metrics (sql/beyond/): recommendation lists read as
  one row per recommended (user, item); only the item column matters to these metrics.

  beyond_source(relation, by, columns): the `source` CTE body (slice columns, item).
  beyond_needs_train(metric, columns): a compiler error (InvalidParameterError) when the
  second input train= is not given (evaluate takes none yet).
  beyond_item_counts(by): the `item_counts` CTE body: per slice and item, c = times
  recommended; n = the slice's recommendations (every row), on each row. On Spark n is a
  per-slice aggregate joined back (broadcast): a window over the slice's items
  (`sum(count(*)) over (partition by <slices>)`) would move every item of a slice into one
  partition. The same integers either way.
  beyond_popularity(columns): the `popularity` CTE body: per train item, its novelty
  -log2(t_i / T); T (all train rows) a window over the items, on Spark an aggregate joined
  back (broadcast), as above.
#}
{% macro beyond_source(relation, by, columns) -%}
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.item }} as item
    from {{ relation }}
{%- endmacro %}

{% macro beyond_needs_train(metric, columns) -%}
{% if columns.train_relation is not defined or columns.train_relation is none %}
{{ exceptions.raise_compiler_error(metric ~ " needs train= (the interactions that define the catalog and item popularity), which evaluate does not take; call sqlmetrics." ~ metric ~ "(data, item=..., train=...)") }}
{% endif %}
{%- endmacro %}

{% macro beyond_item_counts(by) -%}
{{ adapter.dispatch('beyond_item_counts', 'sqlmetrics')(by) }}
{%- endmacro %}

{% macro default__beyond_item_counts(by) -%}
    select
        {{ sqlmetrics.slice_cols(by) }}
        item,
        count(*) as c,
        sum(count(*)) over ({{ sqlmetrics.partition_by(by) }}) as n
    from source
    {{ sqlmetrics.group_by(by, ['item']) }}
{%- endmacro %}

{% macro spark__beyond_item_counts(by) -%}
    select {{ sqlmetrics.auc_broadcast('slice_totals') }}
        {{ sqlmetrics.slice_cols_of('per_item', by) }}
        per_item.item as item,
        per_item.c as c,
        slice_totals.n as n
    from (
        select
            {{ sqlmetrics.slice_cols(by) }}
            item,
            count(*) as c
        from source
        {{ sqlmetrics.group_by(by, ['item']) }}
    ) as per_item
{% if by %}
    join (
        select
            {% for col in by %}slice_{{ loop.index0 }} as n_slice_{{ loop.index0 }}, {% endfor %}

            count(*) as n
        from source
        {{ sqlmetrics.group_by(by) }}
    ) as slice_totals
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('per_item.slice_' ~ loop.index0, 'slice_totals.n_slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}

{% else %}
    cross join (select count(*) as n from source) as slice_totals
{% endif %}
{%- endmacro %}

{% macro beyond_popularity(columns) -%}
{{ adapter.dispatch('beyond_popularity', 'sqlmetrics')(columns) }}
{%- endmacro %}

{% macro default__beyond_popularity(columns) %}
    select
        {{ columns.train_item }} as item,
        -ln(cast(count(*) as {{ sqlmetrics.float_type() }}) / sum(count(*)) over ())
            / ln(cast(2 as {{ sqlmetrics.float_type() }})) as novelty
    from {{ columns.train_relation }}
    group by {{ columns.train_item }}
{%- endmacro %}

{% macro spark__beyond_popularity(columns) -%}
    select {{ sqlmetrics.auc_broadcast('train_total') }}
        per_item.item as item,
        -ln(cast(per_item.t as {{ sqlmetrics.float_type() }}) / train_total.t_all)
            / ln(cast(2 as {{ sqlmetrics.float_type() }})) as novelty
    from (
        select
            {{ columns.train_item }} as item,
            count(*) as t
        from {{ columns.train_relation }}
        group by {{ columns.train_item }}
    ) as per_item
    cross join (select count(*) as t_all from {{ columns.train_relation }}) as train_total
{%- endmacro %}
