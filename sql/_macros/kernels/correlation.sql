{#
  Shared pieces of the rank-correlation kernels (spearman, kendall_tau).

  correlation_source(relation, by, columns): the `source` CTE body: slice columns, grp (the
  user's group column, or the constant 0 without one: the slice is then the only group),
  x = score in its own type (never cast: integers above 2^53 keep their order), y = label as
  float_type().
  correlation_mean(by, value, entries): the `final` CTE: per slice, the mean of the per-group
  column `value` over the groups where it is defined (NULL values left out), one column per
  entry alias, and n_groups. The sum is an exact_sum with exponent 0 (|value| <= 1), so
  shuffled input gives the same bits. Without a group column each slice is one group, so the
  mean is that group's value.
#}
{% macro correlation_source(relation, by, columns) -%}
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group if columns.group is not none else '0' }} as grp,
        {{ sqlmetrics.score_value(columns.score) }} as x,
        cast({{ columns.label }} as {{ sqlmetrics.float_type() }}) as y
    from {{ relation }}
{%- endmacro %}

{% macro correlation_mean(by, value, entries) -%}
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum(value, '0') }} / nullif(count({{ value }}), 0) as {{ entry.alias }},
{% endfor %}
        count({{ value }}) as n_groups
    from per_group
    {{ sqlmetrics.group_by(by) }}
{%- endmacro %}
