{#
  catalog_coverage: the share of the catalog that is recommended at least once (Shani &
  Gunawardana 2011; Microsoft Recommenders' python_evaluation.catalog_coverage).
     catalog_coverage = |distinct recommended items| / |distinct items of train|
  data: the recommendations, one row per recommended (user, item) (e.g. each user's top k).
  train (second input): the interactions defining the catalog (its distinct items).
  As Recommenders, a recommended item absent from train still counts in the numerator (the
  value may then exceed 1). Slices (by=) split the recommendations; the catalog is all of
  train.
  Undefined: never (train has at least one row; the Python layer checks it).
  Output: one row per slice; column catalog_coverage.
  Oracle: tests/oracle/beyond.py::catalog_coverage
#}
{% macro catalog_coverage_kernel(relation, by, columns, options, entries) -%}
{{ sqlmetrics.beyond_needs_train('catalog_coverage', columns) }}
with source as (
{{ sqlmetrics.beyond_source(relation, by, columns) }}
),
catalog as (
    select
        count(distinct {{ columns.train_item }}) as n_catalog
    from {{ columns.train_relation }}
),
covered as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        count(distinct item) as n_covered
    from source
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.safe_div('n_covered', 'n_catalog') }} as {{ entry.alias }},
{% endfor %}
        n_covered
    from covered
    cross join catalog
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
