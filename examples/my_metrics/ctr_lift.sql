{#
  ctr_lift: CTR of the rows the model scores >= threshold, over the slice's overall CTR.
     ctr_lift = (clicks_top / n_top) / (clicks / n)
  n, clicks: rows and clicks of the slice; n_top, clicks_top: those with score >= threshold.
  1 = the model's top picks click no better than average; 2 = twice the average CTR.
  Ties: none (a threshold, not a rank). Labels 0/1 or boolean.
  Undefined: no row scored >= threshold, or no click in the slice -> NULL (NaN + warning).
  Output: one row per slice; one column per entry alias, n (rows).
  Oracle: tests/test_user_metrics.py::oracle

  name: ctr_lift
  roles: label=binary, score=score
  params: threshold
  summary: CTR of the rows scored >= threshold over the overall CTR
  undefined: no row scored >= threshold, or no click
#}
{% macro ctr_lift_kernel(relation, by, columns, options, entries) -%}
{% set top = 'score >= ' ~ float_literal(options.threshold) %}
with source as (
    select
        {{ slice_source(by) }}
        {{ binary_label(columns.label) }} as label,
        cast({{ columns.score }} as {{ float_type() }}) as score
    from {{ relation }}
),
per_slice as (
    select
        {{ slice_cols(by) }}
        count(*) as n,
        sum(label) as clicks,
        sum(case when {{ top }} then 1 else 0 end) as n_top,
        sum(case when {{ top }} then label else 0 end) as clicks_top
    from source
    {{ group_by(by) }}
),
final as (
    select
        {{ slice_cols(by) }}
{% for entry in entries %}
        {{ ctr_lift_ratio('clicks_top', 'n_top') }}
            / nullif({{ ctr_lift_ratio('clicks', 'n') }}, 0) as {{ entry.alias }},
{% endfor %}
        n
    from per_slice
)
select * from final
{{ order_by(by) }}
{%- endmacro %}

{# a CTR: clicks over rows, NULL without rows #}
{% macro ctr_lift_ratio(clicks, rows) -%}
cast({{ clicks }} as {{ float_type() }}) / nullif({{ rows }}, 0)
{%- endmacro %}
