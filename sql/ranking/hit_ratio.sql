{#
  hit_ratio: hits in the top k over all relevant items, summed over groups (micro average).
     HR@k = sum_g hits_g@k / sum_g n_rel_g,   hits@k = relevant items at positions <= k
  e.g. 6 + 5 + 4 hits for 10 + 12 + 8 relevant items gives 15 / 30 = 0.5.
  ties=average: hits@k is its expectation (each tied position holds r / n relevant).
  Empty groups add 0 to both sums (skip and zero give the same value; n_groups differs).
  The sum of hits is an exact_sum (decision 0006): each group's hits is a multiple of 2^-80
  below 2^47, so the sum over groups is exact and bit-identical under any row order.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns hit_ratio, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::hit_ratio
#}
{% macro hit_ratio_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel else 0 end', '0') }} as {{ p }}hits
{%- endmacro %}

{% macro hit_ratio_value(p, k, options) -%}
coalesce({{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'hits, 0)', '0') }} / nullif(sum(n_rel), 0), 0)
{%- endmacro %}

