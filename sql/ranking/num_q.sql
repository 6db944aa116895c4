{#
  num_q: the number of groups (queries) evaluated, a count over the slice's groups (trec_eval
  num_q, ir_measures' NumQ, a sum over queries of 1).
     num_q = |groups kept|
  Which groups: the ranking rules (empty=, missing=); trec_eval counts the judged groups of
  the run (empty='zero'), with -c also the missing ones (missing='zero'). empty='one' is
  refused (it is a count, not a mean).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns num_q, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::num_q
#}
{% macro num_q_group_columns(p, k, by, options) -%}

{%- endmacro %}

{% macro num_q_value(p, k, options) -%}
{# a double on every engine (PostgreSQL's sum of integers is numeric) #}
cast(count(*) as {{ sqlmetrics.float_type() }})
{%- endmacro %}
