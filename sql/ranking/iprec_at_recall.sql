{#
  iprec_at_recall: interpolated precision at a recall level, mean over groups (trec_eval
  iprec_at_recall_<level>; the 11-point curve of Salton & McGill 1983).
     iprec(L) = max { P@i : i a retrieved position with hits@i >= c },  0 if none
     P@i = hits@i / i,   R = n_rel (retrieved or not),
     c = lround(L R)          recall_rounding = 'trec_eval_10' (default)
     c = floor(L R + 0.9)     recall_rounding = 'trec_eval_9'
  i.e. the highest precision at or after the position where the list reaches c relevant
  items: the level L is turned into a count of relevant items as trec_eval 10 does (lround(L
  * R) in double precision, halves away from zero; written floor(x) + [x - floor(x) >= 0.5],
  exact, for x >= 0) or as trec_eval 9 and earlier did ((long)(L * R + 0.9) in double
  precision: pytrec_eval, hence ir_measures' IPrec@L; the trec_eval conventions set it).
  L = recall_level (option, in [0, 1]; default 0.0). Precision only rises at relevant
  positions, so the maximum is taken over them.
  ties="average" is refused: no closed form (the Python layer raises, the macro raises a
  compiler error).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns iprec_at_recall, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::iprec_at_recall
#}
{# max precision at the relevant positions from the c-th relevant item on (none: 0); c is
   lround(L R) (rounding 'trec_eval_10') or floor(L R + 0.9) (rounding 'trec_eval_9') #}
{% macro iprec_at_level(level, rounding) -%}
{% set x = '(' ~ sqlmetrics.float_literal(level) ~ ' * cast(n_rel as ' ~ sqlmetrics.float_type() ~ '))' -%}
{% if rounding == 'trec_eval_9' -%}
{% set c = 'floor(' ~ x ~ ' + ' ~ sqlmetrics.float_literal(0.9) ~ ')' -%}
{% else -%}
{% set c = 'floor(' ~ x ~ ') + case when ' ~ x ~ ' - floor(' ~ x ~ ') >= ' ~ sqlmetrics.float_literal(0.5) ~ ' then 1 else 0 end' -%}
{% endif %}
coalesce(max(case when relevant = 1 and ap_term >= {{ c }} then cast(ap_term as {{ sqlmetrics.float_type() }}) / pos end), 0)
{%- endmacro %}

{% macro iprec_at_recall_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("iprec_at_recall: ties='average' has no closed form; use 'item_desc' or 'item_asc'") }}
{% endif %}
{{ sqlmetrics.iprec_at_level(options.recall_level, options.recall_rounding) }} as {{ p }}iprec
{%- endmacro %}

{% macro iprec_at_recall_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'iprec, 0)', '0', options) }}
{%- endmacro %}
