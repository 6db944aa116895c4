{#
  set_precision: precision of the whole retrieved set, mean over groups (trec_eval set_P,
  ir_measures' SetP).
     set_P = relevant retrieved items / retrieved items (n_ret)
  A group that retrieved nothing (missing='zero') counts 0. The order of the items does not
  matter, so every ties= gives the same value.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns set_precision, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::set_precision
#}
{% macro set_precision_group_columns(p, k, by, options) -%}
sum(relevant) as {{ p }}relret
{%- endmacro %}

{% macro set_precision_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(cast(' ~ p ~ 'relret as ' ~ sqlmetrics.float_type() ~ ') / nullif(n_ret, 0), 0)', '0', options) }}
{%- endmacro %}
