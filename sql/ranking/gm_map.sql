{#
  gm_map: geometric mean over groups of average precision at k (trec_eval gm_map;
  Robertson 2006): exp(mean_g ln max(AP_g@k, eps)), eps = 1e-5 (trec_eval's MIN_GEO_MEAN).
     AP@k = sum_{i <= k} P@i rel_i / D, D per ap_denominator as in map.sql.
  ties=average: AP_g is its expected value (as map), then the logarithm is taken (the
  geometric mean of expected APs, not the expectation of a geometric mean).
  Per group (user, query): items ordered by score desc; equal scores by item desc
  in its own type (ties="item_desc"), item asc ("item_asc"), item as
  text in byte order desc ("text_desc": trec_eval's strcmp, also for integer ids), or every order of
  the tied items equally likely ("average": the expected value, McSherry {{TIES}} Najork 2008).
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
  Output: one row per slice; columns gm_map, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::gm_map
#}
{% macro gm_map_group_columns(p, k, by, options) -%}
{{ sqlmetrics.map_group_columns(p, k, by, options) }}
{%- endmacro %}

{# ln max(AP, eps), |.| <= 11.6 < 2^4: exponent 4 #}
{% macro gm_map_value(p, k, options) -%}
{% if options.ap_denominator == 'hits' %}
{% set den = p ~ 'hits' %}
{% elif options.ap_denominator == 'min_k_relevant' and k is not none %}
{% set den = 'least(' ~ k ~ ', n_rel)' %}
{% else %}
{% set den = 'n_rel' %}
{% endif %}
exp({{ sqlmetrics.exact_sum('ln(greatest(coalesce(' ~ p ~ 'ap_sum / nullif(' ~ den ~ ', 0), 0), ' ~ sqlmetrics.float_literal(0.00001) ~ '))', '4') }} / count(*))
{%- endmacro %}
