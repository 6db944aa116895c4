{#
  precision_at_k: relevant items in the top k over k, mean over groups (trec_eval P_k).
     P@k = hits@k / k   (k even when fewer than k items were retrieved, as trec_eval);
     k = none: hits / n_ret over the whole retrieved list.
  precision_denominator: k (default; trec_eval) | min_k_retrieved = hits@k / min(k, n_ret)
  (torchmetrics' adaptive_k).
  ties=average: hits@k is its expectation.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns precision_at_k, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::precision_at_k
#}
{% macro precision_at_k_group_columns(p, k, by, options) -%}
{% if k is none %}
{% set divisor = 'count(*)' %}
{% elif options.precision_denominator == 'min_k_retrieved' %}
{% set divisor = 'least(' ~ k ~ ', count(*))' %}
{% else %}
{% set divisor = k %}
{% endif %}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel else 0 end', '0') }} / {{ divisor }} as {{ p }}precision
{%- endmacro %}

{% macro precision_at_k_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'precision, 0)', '0', options) }}
{%- endmacro %}

