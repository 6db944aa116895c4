{#
  cg: cumulative gain of the top k, mean over groups.
     CG@k = sum_{i <= k} gain(label_i)
  gain: exponential = 2^label - 1 (Burges et al. 2005) | linear = label (Jarvelin &
  Kekalainen 2002). ties=average: gain_i is the mean gain of its tie group (an expectation).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns cg, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::cg
#}
{% macro cg_group_columns(p, k, by, options) -%}
{% set cg = sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then gain else 0 end', 'gain_exp') %}
{{ cg }} as {{ p }}cg
{%- endmacro %}

{# the per-group column whose slice exponent the kernel joins back as {p}exp (the exact_sum
   exponent of the mean: the slice's largest per-group CG) #}
{% macro cg_mean_exponent(p) -%}
{{ p }}cg
{%- endmacro %}

{% macro cg_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'cg, 0)', p ~ 'exp', options) }}
{%- endmacro %}

