{#
  gini_index: Gini index of how often the catalog's items are recommended (Shani &
  Gunawardana 2011, eq. 20): 0 when every item is recommended equally often, close to 1 when
  a few items take every recommendation.
     G = sum_{j=1}^{m} (2 j - m - 1) c_(j) / ((m - 1) n)
  c_(1) <= ... <= c_(m): the items' recommendation counts in increasing order; m items: with
  train=, the catalog (train's distinct items and any recommended item, those never
  recommended with c = 0), without it the recommended items only; n = sum_j c_j = rows of
  the slice. Equal counts are ordered by item (any order of equal c gives the same value).
  The numerator is an exact integer sum (exact_int()); only the last division is floating
  point.
  Undefined: m = 1 (a single item: no inequality to measure) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; column gini_index, n_items (m).
  On Spark (spark__gini_index_final) the positions j are not numbered row by row (a window
  over a slice's items moves them into one partition): items of equal count c form a block
  j = J_c + 1 .. J_c + k_c (k_c items of count c, J_c items of smaller count), whose terms
  add up to c k_c (2 J_c + k_c - m); J_c is a running sum of k_c over the slice's distinct
  counts in increasing order, distributed by count buckets (auc_prefixed,
  sql/_macros/kernels/auc.sql). The same integers, so the same value.
  Oracle: tests/oracle/beyond.py::gini_index
#}
{% macro gini_index_kernel(relation, by, columns, options, entries) -%}
{% set has_train = columns.train_relation is defined and columns.train_relation is not none %}
with source as (
{{ sqlmetrics.beyond_source(relation, by, columns) }}
),
item_counts as (
{{ sqlmetrics.beyond_item_counts(by) }}
),
{% if has_train %}
{# not `slices`: evaluate's statement has a CTE of that name around this one, and DataFusion
   refuses a nested WITH that reuses a name ("specified more than once") #}
catalog_slices as (
    select distinct
        {{ sqlmetrics.slice_cols(by) }}
        n
    from item_counts
),
-- every catalog item in every slice: the recommended ones with their counts, the others 0
catalog as (
    select
        {{ sqlmetrics.slice_cols_of('s', by) }}
        t.item as item,
        0 as c,
        s.n as n
    from catalog_slices as s
    cross join (
        select distinct
            {{ columns.train_item }} as item
        from {{ columns.train_relation }}
    ) as t
    union all
    select
        {{ sqlmetrics.slice_cols(by) }}
        item,
        c,
        n
    from item_counts
),
items as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        item,
        max(c) as c,
        max(n) as n
    from catalog
    {{ sqlmetrics.group_by(by, ['item']) }}
),
{% endif %}
{{ sqlmetrics.gini_index_final(by, entries, 'items' if has_train else 'item_counts') }}
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}


{# the `ordered` / `final` CTEs of gini_index over `items` (slices, item, c, n) #}
{% macro gini_index_final(by, entries, items) -%}
{{ adapter.dispatch('gini_index_final', 'sqlmetrics')(by, entries, items) }}
{%- endmacro %}

{% macro default__gini_index_final(by, entries, items) -%}
ordered as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        c,
        n,
        row_number() over ({{ sqlmetrics.window(by, 'c, item') }}) as j,
        count(*) over ({{ sqlmetrics.partition_by(by) }}) as m
    from {{ items }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        cast(sum(cast(2 * j - m - 1 as {{ sqlmetrics.exact_int() }}) * c) as {{ sqlmetrics.float_type() }})
            / nullif(cast(max(m) - 1 as {{ sqlmetrics.float_type() }}) * max(n), 0) as {{ entry.alias }},
{% endfor %}
        count(*) as n_items
    from ordered
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{% macro spark__gini_index_final(by, entries, items) -%}
per_count as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        c as score,
        count(*) as k,
        max(n) as n
    from {{ items }}
    {{ sqlmetrics.group_by(by, ['c']) }}
),
{{ sqlmetrics.auc_prefixed('per_count', by, ['k']) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        cast(sum(cast(score as {{ sqlmetrics.exact_int() }}) * k * (2 * k_before + k - k_total)) as {{ sqlmetrics.float_type() }})
            / nullif(cast(max(k_total) - 1 as {{ sqlmetrics.float_type() }}) * max(n), 0) as {{ entry.alias }},
{% endfor %}
        max(k_total) as n_items
    from prefixed
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}
