{#
  novelty: mean self-information of the recommended items under the popularity of train
  (Castells, Vargas & Wang 2011, choice model; Microsoft Recommenders'
  python_evaluation.novelty).
     novelty(i) = -log2(t_i / T),   t_i = train rows with item i, T = all train rows
     novelty    = sum_{recommendation rows r} novelty(item_r) / n
  n = the slice's recommendation rows. As Recommenders, a recommended item absent from train
  adds 0 to the sum but counts in n. Per row terms are in [0, log2 T] <= 2^6: an exact_sum
  with exponent 6.
  Undefined: never (data and train have rows).
  Output: one row per slice; column novelty.
  Oracle: tests/oracle/beyond.py::novelty
#}
{% macro novelty_kernel(relation, by, columns, options, entries) -%}
{{ sqlmetrics.beyond_needs_train('novelty', columns) }}
with source as (
{{ sqlmetrics.beyond_source(relation, by, columns) }}
),
popularity as (
{{ sqlmetrics.beyond_popularity(columns) }}
),
scored as (
    select
        {{ sqlmetrics.slice_cols_of('s', by) }}
        coalesce(p.novelty, 0) as novelty
    from source as s
    left join popularity as p on p.item = s.item
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('novelty', '6') }} / count(*) as {{ entry.alias }},
{% endfor %}
        count(*) as n_recommendations
    from scored
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
