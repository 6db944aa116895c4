{#
  num_ret: retrieved items, summed over the slice's groups (trec_eval num_ret, ir_measures'
  NumRet).
     num_ret = sum over groups of n_ret (a missing group retrieved 0)
  Which groups: the ranking rules (empty=, missing=); empty='one' is refused (it is a sum,
  not a mean).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns num_ret, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::num_ret
#}
{% macro num_ret_group_columns(p, k, by, options) -%}

{%- endmacro %}

{% macro num_ret_value(p, k, options) -%}
{# a double on every engine (PostgreSQL's sum of integers is numeric) #}
cast(sum(coalesce(n_ret, 0)) as {{ sqlmetrics.float_type() }})
{%- endmacro %}
