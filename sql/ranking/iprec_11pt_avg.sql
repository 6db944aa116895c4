{#
  iprec_11pt_avg: 11-point interpolated average precision, mean over groups (trec_eval
  11pt_avg): the mean of iprec(L) at the recall levels L = 0.0, 0.1, ..., 1.0.
     iprec(L) = max { P@i : hits@i >= lround(L R) },  0 if none (sql/ranking/iprec_at_recall.sql)
  Per group (user, query): items ordered by score desc; equal scores by item desc
  in its own type (ties="item_desc"), item asc ("item_asc"), item as
  text in byte order desc ("text_desc": trec_eval's strcmp, also for integer ids); ties="average" is refused (no closed form: the
  Python layer raises, the macro raises a compiler error).
  Relevant: label >= relevance_level (default 1). Judged items: qrels if given (a run item
  absent from qrels has label 0; a run group absent from qrels is not evaluated), else the
  group's rows. n_rel = relevant judged items of the group, retrieved or not.
  Empty group: n_rel = 0. empty: skip = left out of the mean (default) | zero = kept, a
  per-group 0/0 counting 0 (trec_eval) | error = raise.
  Missing group (qrels only): judged, no row in the run. missing: skip = left out (default;
  trec_eval) | zero = kept as a group that retrieved nothing (trec_eval -c) | error = raise.
  Each slice averages over its own groups: the groups of its rows (judged ones with qrels).
  Undefined: no group left -> NULL (NaN + UndefinedMetricWarning).
  Shared SQL: sql/_macros/ranking.sql (one row_number() sort per group for every metric).
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
    {{ sqlmetrics.iprec_at_level(level) }}{{ ' +' if not loop.last }}
{% endfor %}
) / 11 as {{ p }}ipr11
{%- endmacro %}

{% macro iprec_11pt_avg_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'ipr11, 0)', '0') }} / count(*)
{%- endmacro %}
