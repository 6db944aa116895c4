{#
  evaluate_compose: one statement computing several metrics per slice, for sqlmetrics.evaluate.

  Arguments:
    relation  the data (SQL after `from`); by: quoted slice identifiers (may be empty)
    parts     list of {alias, sql, columns}: a rendered statement (its own CTEs nested inside;
              one statement may compute several metrics, as the ranking family does), a
              generated alias (p0, p1, ...) and the columns to take from it, as
              {column, as} pairs (`as` a generated name: m0, m1, ..., or a count: n_groups,
              n_empty, ..., and gauc_groups for GAUC's n_groups when ranking metrics, whose
              count is n_groups, share the statement)
    extra_slices  optional: a query giving slice_0.. rows that hold no row of the data but
              that a part reports (judged groups absent from a ranking run, sliced by the
              group column); they get n_rows = 0
    inputs    optional: list of {name, sql}, CTEs put first, which `relation` and the parts may
              name (merge: the rows a table of states stands for, sql/_macros/shared/state.sql)
    count     optional: a column of `relation` counting the rows each of its rows stands for
              (merge: sqlmetrics_n of a relation of states); n_rows sums it
  Every part has one row per slice (slice_0, slice_1, ...); the result has one row per slice
  of the data (`slices`, with n_rows) and per extra slice, metrics joined on the slice columns with
  `null_safe_equal` (is not distinct from), so a NULL slice value is a slice like any other.
  Output: slice_0.., the parts' columns under their `as` names, n_rows.
#}

{% macro evaluate_join_on(alias, by) -%}
{% if by %}{% for col in by %}{{ sqlmetrics.null_safe_equal('slices.slice_' ~ loop.index0, alias ~ '.slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}{% else %}true{% endif %}
{%- endmacro %}

{% macro evaluate_compose(relation, by, parts, extra_slices=none, inputs=none, count=none) -%}
with {% for input in inputs or [] %}{{ input.name }} as (
{{ input.sql | indent(4, true) }}
),
{% endfor %}slices as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ 'cast(sum(one) as bigint)' if count else 'count(*)' }} as n_rows
    from (
        select {{ sqlmetrics.slice_source(by) }} {{ count or 1 }} as one
        from {{ relation }}
    ) as sliced
    {{ sqlmetrics.group_by(by) }}
{% if extra_slices %}
    union all
    select
        {{ sqlmetrics.slice_cols(by) }}
        0 as n_rows
    from (
{{ extra_slices | indent(8, true) }}
    ) as extra
{% endif %}
),
{% for part in parts %}
{{ part.alias }} as (
{{ part.sql | indent(4, true) }}
){{ ',' if not loop.last }}
{% endfor %}
select
    {% for col in by %}slices.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

{% for part in parts %}
{% for col in part.columns %}
    {{ part.alias }}.{{ col.column }} as {{ col.as }},
{% endfor %}
{% endfor %}
    slices.n_rows as n_rows
from slices
{% for part in parts %}
left join {{ part.alias }} on {{ sqlmetrics.evaluate_join_on(part.alias, by) }}
{% endfor %}
{% if by %}
order by {% for col in by %}slices.slice_{{ loop.index0 }} nulls last{{ ', ' if not loop.last }}{% endfor %}
{% endif %}
{%- endmacro %}
