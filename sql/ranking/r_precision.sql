{#
  r_precision: precision at R = n_rel, mean over groups (trec_eval Rprec).
     Rprec = hits@R / R,   R = n_rel (relevant judged items of the group)
  ties=average: hits@R is its expectation.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns r_precision, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::r_precision
#}
{% macro r_precision_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when pos <= n_rel then rel else 0 end', '0') }} as {{ p }}rhits
{%- endmacro %}

{% macro r_precision_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'rhits / nullif(n_rel, 0), 0)', '0', options) }}
{%- endmacro %}

