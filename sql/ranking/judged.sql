{#
  judged: the share of the top k that is judged, mean over groups (ir_measures' Judged@k,
  after OpenNIR).
     Judged@k = |judged items among the top k| / min(k, n_ret)
  judged: present in the judgments (qrels=), whatever its label; without qrels every row is
  judged and the value is 1. A group that retrieved nothing (missing='zero') counts 0.
  ir_measures orders equal scores by docno ascending here (ties='item_asc').
  ties="average" is refused (it reads the judged items above each position).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns judged, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::judged
#}
{% macro judged_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("judged: ties='average' is not supported; use 'item_desc', 'item_asc' or 'text_desc'") }}
{% endif %}
max(case when {{ sqlmetrics.ranking_within(k) }} then cum_judged else 0 end) as {{ p }}judged,
sum(case when {{ sqlmetrics.ranking_within(k) }} then 1 else 0 end) as {{ p }}top
{%- endmacro %}

{% macro judged_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(cast(' ~ p ~ 'judged as ' ~ sqlmetrics.float_type() ~ ') / nullif(' ~ p ~ 'top, 0), 0)', '0', options) }}
{%- endmacro %}
