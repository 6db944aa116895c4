{#
  map: mean average precision at k, mean over groups of AP@k (trec_eval map, map_cut_k).
     AP@k = sum_{i <= k} P@i rel_i / D,   P@i = hits@i / i
  ap_denominator D: relevant = n_rel (default; trec_eval, ranx) | min_k_relevant =
  min(k, n_rel) (Spark MAP@K) | hits = hits@k (relevant retrieved in the top k).
  ties=average: E[rel_i hits@i] = q (1 + R_a) + t r (r - 1) / (n (n - 1)) for position i at
  offset t of a tie group of n items (r relevant, q = r / n, R_a relevant above the group):
  exact for a fixed D; with ap_denominator=hits the expectation of the ratio has no closed
  form and the Python layer refuses the combination.
  Per group (user, query): items ordered by score desc; equal scores by item desc
  in its own type (ties="item_desc"), item asc ("item_asc"), item as
  text in byte order desc ("text_desc": trec_eval's strcmp, also for integer ids), or every order of
  the tied items equally likely ("average": the expected value, McSherry & Najork 2008).
  Relevant: label >= relevance_level (default 1). Judged items: qrels if given (a run item
  absent from qrels has label 0; a run group absent from qrels is not evaluated), else the
  group's rows. n_rel = relevant judged items of the group, retrieved or not.
  Empty group: n_rel = 0. empty: skip = left out of the mean (default) | zero = kept, a
  per-group 0/0 counting 0 (trec_eval) | error = raise.
  Missing group (qrels only): judged, no row in the run. missing: skip = left out (default;
  trec_eval) | zero = kept as a group that retrieved nothing (trec_eval -c) | error = raise.
  With by= the group column, a kept missing group is a slice of its own; with other slices it
  has no slice value and enters none (sql/_macros/ranking.sql).
  Each slice averages over its own groups: the groups of its rows (judged ones with qrels).
  Undefined: no group left -> NULL (NaN + UndefinedMetricWarning).
  Shared SQL: sql/_macros/ranking.sql (one row_number() sort per group for every metric).
  Output: one row per slice; columns map, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::map
#}
{% macro map_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then ap_term / pos else 0 end', '0') }} as {{ p }}ap_sum
{%- if options.ap_denominator == 'hits' %},
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel else 0 end', '0') }} as {{ p }}hits
{%- endif %}
{%- endmacro %}

{% macro map_value(p, k, options) -%}
{% if options.ap_denominator == 'hits' %}
{% set den = p ~ 'hits' %}
{% elif options.ap_denominator == 'min_k_relevant' and k is not none %}
{% set den = 'least(' ~ k ~ ', n_rel)' %}
{% else %}
{% set den = 'n_rel' %}
{% endif %}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'ap_sum / nullif(' ~ den ~ ', 0), 0)', '0') }} / count(*)
{%- endmacro %}

