{#
  num_rel: relevant items, summed over the slice's groups (trec_eval num_rel, ir_measures'
  NumRel).
     num_rel = sum over groups of n_rel (relevant judged items, retrieved or not)
  Which groups: the ranking rules (empty=, missing=); empty='one' is refused (it is a sum,
  not a mean).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns num_rel, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::num_rel
#}
{% macro num_rel_group_columns(p, k, by, options) -%}

{%- endmacro %}

{% macro num_rel_value(p, k, options) -%}
{# a double on every engine (PostgreSQL's sum of integers is numeric) #}
cast(sum(n_rel) as {{ sqlmetrics.float_type() }})
{%- endmacro %}
