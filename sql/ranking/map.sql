{#
  map: mean average precision at k, mean over groups of AP@k (trec_eval map, map_cut_k).
     AP@k = sum_{i <= k} P@i rel_i / D,   P@i = hits@i / i
  ap_denominator D: relevant = n_rel (default; trec_eval, ranx) | min_k_relevant =
  min(k, n_rel) (Spark MAP@K) | hits = hits@k (relevant retrieved in the top k).
  ties=average: E[rel_i hits@i] = q (1 + R_a) + t r (r - 1) / (n (n - 1)) for position i at
  offset t of a tie group of n items (r relevant, q = r / n, R_a relevant above the group):
  exact for a fixed D; with ap_denominator=hits the expectation of the ratio has no closed
  form and the Python layer refuses the combination.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns map, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::map
#}
{% macro map_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then ap_term / pos else 0 end', '0') }} as {{ p }}ap_sum
{%- if options.ap_denominator == 'hits' %},
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel else 0 end', '0') }} as {{ p }}hits
{%- endif %}
{%- endmacro %}

{% macro map_value(p, k, options) -%}
{% if options.ap_denominator == 'hits' %}
{% set den = p ~ 'hits' %}
{% elif options.ap_denominator == 'min_k_relevant' and k is not none %}
{% set den = 'least(' ~ k ~ ', n_rel)' %}
{% else %}
{% set den = 'n_rel' %}
{% endif %}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'ap_sum / nullif(' ~ den ~ ', 0), 0)', '0', options) }}
{%- endmacro %}

