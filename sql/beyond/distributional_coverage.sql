{#
  distributional_coverage: Shannon entropy (bits) of how often each item is recommended
  (Shani & Gunawardana 2011, eq. 21; Microsoft Recommenders'
  python_evaluation.distributional_coverage).
     distributional_coverage = - sum_i p_i log2 p_i,   p_i = c_i / n
  c_i = rows recommending item i, n = all rows (recommendations) of the slice. 0 when one
  item is always recommended; log2(m) when m items are recommended equally often.
  data: the recommendations, one row per recommended (user, item). The sum is an exact_sum
  (terms p ln p in [-1/e, 0]: exponent 0), then divided by ln 2.
  Undefined: never (data has at least one row).
  Output: one row per slice; column distributional_coverage.
  Oracle: tests/oracle/beyond.py::distributional_coverage
#}
{% macro distributional_coverage_kernel(relation, by, columns, options, entries) -%}
with source as (
{{ sqlmetrics.beyond_source(relation, by, columns) }}
),
item_counts as (
{{ sqlmetrics.beyond_item_counts(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        -{{ sqlmetrics.exact_sum('cast(c as ' ~ sqlmetrics.float_type() ~ ') / n * ln(cast(c as ' ~ sqlmetrics.float_type() ~ ') / n)', '0') }}
            / ln(cast(2 as {{ sqlmetrics.float_type() }})) as {{ entry.alias }},
{% endfor %}
        count(*) as n_items
    from item_counts
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
