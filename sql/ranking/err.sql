{#
  err: expected reciprocal rank at k, mean over groups (Chapelle, Metzler, Zhang & Grinspan
  2009), in the graded form of gdeval (TREC Web track; ir_measures' ERR@k).
     ERR@k = sum_{i <= k} (R_i / i) prod_{j < i} (1 - R_j),   R_i = (2^label_i - 1) / 2^max_grade
  R_i: the probability that the item at position i satisfies the user; max_grade (default 4,
  gdeval's MAX_JUDGMENT) is the highest grade the judgments may hold: a label above it is an
  error (gdeval refuses such a qrels file). A label of 0 (or an unjudged item) gives R = 0.
  Unlike gdeval the value is not rounded (gdeval prints 5 decimals).
  relevance_level is not read (every grade counts through R_i); empty and missing groups
  follow the ranking rules (gdeval evaluates the topics with a relevant judgment only: the
  same as empty='skip').
  ties="average" is refused: the product has no closed form over the orders of tied items.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns err, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::err
#}
{% macro err_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("err: ties='average' has no closed form; use 'item_desc', 'item_asc' or 'text_desc'") }}
{% endif %}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then err_r * err_reach / pos else 0 end', '0') }} as {{ p }}err
{%- endmacro %}

{% macro err_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'err, 0)', '0', options) }}
{%- endmacro %}
