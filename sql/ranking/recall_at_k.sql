{#
  recall_at_k: relevant items in the top k over the group's relevant items, mean over groups
  (trec_eval recall_k).
     R@k = hits@k / n_rel   (n_rel counts relevant judged items the run never retrieved)
  ties=average: hits@k is its expectation.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns recall_at_k, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::recall_at_k
#}
{% macro recall_at_k_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel else 0 end', '0') }} as {{ p }}hits
{%- endmacro %}

{% macro recall_at_k_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'hits / nullif(n_rel, 0), 0)', '0', options) }}
{%- endmacro %}

