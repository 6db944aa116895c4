{#
  gm_map: geometric mean over groups of average precision at k (trec_eval gm_map;
  Robertson 2006): exp(mean_g ln max(AP_g@k, eps)), eps = 1e-5 (trec_eval's MIN_GEO_MEAN).
     AP@k = sum_{i <= k} P@i rel_i / D, D per ap_denominator as in map.sql.
  ties=average: AP_g is its expected value (as map), then the logarithm is taken (the
  geometric mean of expected APs, not the expectation of a geometric mean).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns gm_map, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::gm_map
#}
{% macro gm_map_group_columns(p, k, by, options) -%}
{{ sqlmetrics.map_group_columns(p, k, by, options) }}
{%- endmacro %}

{# ln max(AP, eps), |.| <= 11.6 < 2^4: exponent 4 #}
{% macro gm_map_value(p, k, options) -%}
{% if options.ap_denominator == 'hits' %}
{% set den = p ~ 'hits' %}
{% elif options.ap_denominator == 'min_k_relevant' and k is not none %}
{% set den = 'least(' ~ k ~ ', n_rel)' %}
{% else %}
{% set den = 'n_rel' %}
{% endif %}
exp({{ sqlmetrics.ranking_mean('ln(greatest(coalesce(' ~ p ~ 'ap_sum / nullif(' ~ den ~ ', 0), 0), ' ~ sqlmetrics.float_literal(0.00001) ~ '))', '4', options) }})
{%- endmacro %}
