{#
  idcg: ideal discounted cumulative gain at k, mean over groups.
     IDCG@k = DCG@k of the group's judged items ordered by label desc (then item asc)
  (judged: qrels if given, including items the run never retrieved; else the group's rows).
  Only items of positive gain (label > 0) enter the ideal: counted per label when k <= 100,
  sorted otherwise (decision 0002; sql/_macros/kernels/ranking.sql, ranking_ideal).
  gain: exponential = 2^label - 1 | linear = label. Ties do not matter.
  log_base: the discount is 1 / log_b(i + 1) = ln(b) / ln(i + 1): the value with base 2
  times ln(b) / ln(2) (scikit-learn's dcg_score(log_base=); default 2).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns idcg, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::idcg
#}
{% macro idcg_group_columns(p, k, by, options) -%}
{%- endmacro %}

{% macro idcg_ideal_columns(p, k, by, options) -%}
{% set idcg = sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k, 'ipos') ~ ' then gain * ln(' ~ sqlmetrics.float_literal(2) ~ ') / ln(ipos + ' ~ sqlmetrics.float_literal(1) ~ ') else 0 end', 'gain_exp') %}
{{ idcg }} as {{ p }}idcg
{%- endmacro %}

{# the per-group column whose slice exponent the kernel joins back as {p}exp (the exact_sum
   exponent of the mean: the slice's largest per-group IDCG) #}
{% macro idcg_mean_exponent(p) -%}
{{ p }}idcg
{%- endmacro %}

{% macro idcg_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'idcg, 0)', p ~ 'exp', options) }}{% if options.log_base != 2 %}
    * (ln({{ sqlmetrics.float_literal(options.log_base) }}) / ln(cast(2 as {{ sqlmetrics.float_type() }}))){% endif %}
{%- endmacro %}

