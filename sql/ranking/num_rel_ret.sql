{#
  num_rel_ret: relevant retrieved items, summed over the slice's groups (trec_eval
  num_rel_ret, ir_measures' NumRelRet).
     num_rel_ret = sum over groups of the relevant retrieved items (label >= relevance_level)
  Which groups: the ranking rules (empty=, missing=); empty='one' is refused (it is a sum,
  not a mean).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns num_rel_ret, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::num_rel_ret
#}
{% macro num_rel_ret_group_columns(p, k, by, options) -%}
sum(relevant) as {{ p }}relret
{%- endmacro %}

{% macro num_rel_ret_value(p, k, options) -%}
{# a double on every engine (PostgreSQL's sum of integers is numeric) #}
cast(sum(coalesce({{ p }}relret, 0)) as {{ sqlmetrics.float_type() }})
{%- endmacro %}
