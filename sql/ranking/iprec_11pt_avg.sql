{#
  iprec_11pt_avg: 11-point interpolated average precision, mean over groups (trec_eval
  11pt_avg): the mean of iprec(L) at the recall levels L = 0.0, 0.1, ..., 1.0.
     iprec(L) = max { P@i : hits@i >= c(L) },  0 if none (sql/ranking/iprec_at_recall.sql)
     c(L) = lround(L R) (recall_rounding = 'trec_eval_10', default: trec_eval 10) or
     floor(L R + 0.9) (recall_rounding = 'trec_eval_9': trec_eval 9 and pytrec_eval; the
     trec_eval conventions set it)
  ties="average" is refused: no closed form (the Python layer raises, the macro raises a
  compiler error).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns iprec_11pt_avg, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::iprec_11pt_avg
#}
{% macro iprec_11pt_avg_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("iprec_11pt_avg: ties='average' has no closed form; use 'item_desc' or 'item_asc'") }}
{% endif %}
(
{% for level in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] %}
    {{ sqlmetrics.iprec_at_level(level, options.recall_rounding) }}{{ ' +' if not loop.last }}
{% endfor %}
) / 11 as {{ p }}ipr11
{%- endmacro %}

{% macro iprec_11pt_avg_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'ipr11, 0)', '0', options) }}
{%- endmacro %}
