{#
  set_f: F-measure of the whole retrieved set, mean over groups (trec_eval set_F,
  ir_measures' SetF).
     set_F = (1 + beta^2) P R / (beta^2 P + R) = (1 + beta^2) relret / (beta^2 n_rel + n_ret)
  P = set precision, R = set recall, relret = relevant retrieved items; beta (default 1: F1;
  0 gives P) weighs recall beta times as much as precision. 0/0 counts 0 (trec_eval: P + R
  = 0 gives 0). The order of the items does not matter, so every ties= gives the same value.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns set_f, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::set_f
#}
{% macro set_f_group_columns(p, k, by, options) -%}
sum(relevant) as {{ p }}relret
{%- endmacro %}

{% macro set_f_value(p, k, options) -%}
{% set b2 = sqlmetrics.float_literal(options.beta * options.beta) %}
{{ sqlmetrics.ranking_mean('coalesce((1 + ' ~ b2 ~ ') * ' ~ p ~ 'relret / nullif(' ~ b2 ~ ' * n_rel + n_ret, 0), 0)', '0', options) }}
{%- endmacro %}
