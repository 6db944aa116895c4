{#
  dcg: discounted cumulative gain at k, mean over groups (Jarvelin & Kekalainen 2002).
     DCG@k = sum_{i <= k} gain(label_i) / log2(i + 1)
  gain: exponential = 2^label - 1 (Burges et al. 2005) | linear = label (trec_eval,
  scikit-learn). ties=average: gain_i is the mean gain of its tie group, so DCG is its
  expectation over the orders of tied items (scikit-learn dcg_score, ignore_ties=False).
  weight= (per-item weights w_i, rax's dcg_metric(weights=)): DCG@k = sum_{i <= k} w_i
  gain(label_i) / log2(i + 1).
  log_base: the discount is 1 / log_b(i + 1) = ln(b) / ln(i + 1): the value with base 2
  times ln(b) / ln(2) (scikit-learn's dcg_score(log_base=); default 2).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns dcg, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::dcg
#}
{% macro dcg_group_columns(p, k, by, options) -%}
{% set dcg = sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then gain * disc else 0 end', 'gain_exp') %}
{{ dcg }} as {{ p }}dcg
{%- endmacro %}

{# the per-group column whose slice exponent the kernel joins back as {p}exp (the exact_sum
   exponent of the mean: the slice's largest per-group DCG) #}
{% macro dcg_mean_exponent(p) -%}
{{ p }}dcg
{%- endmacro %}

{% macro dcg_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'dcg, 0)', p ~ 'exp', options) }}{% if options.log_base != 2 %}
    * (ln({{ sqlmetrics.float_literal(options.log_base) }}) / ln(cast(2 as {{ sqlmetrics.float_type() }}))){% endif %}
{%- endmacro %}

