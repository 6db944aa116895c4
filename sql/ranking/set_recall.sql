{#
  set_recall: recall of the whole retrieved set, mean over groups (trec_eval set_recall,
  ir_measures' SetR).
     set_recall = relevant retrieved items / relevant items (n_rel, retrieved or not)
  n_rel = 0 counts 0 (empty='zero'). The order of the items does not matter, so every ties=
  gives the same value.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns set_recall, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::set_recall
#}
{% macro set_recall_group_columns(p, k, by, options) -%}
sum(relevant) as {{ p }}relret
{%- endmacro %}

{% macro set_recall_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(cast(' ~ p ~ 'relret as ' ~ sqlmetrics.float_type() ~ ') / nullif(n_rel, 0), 0)', '0', options) }}
{%- endmacro %}
