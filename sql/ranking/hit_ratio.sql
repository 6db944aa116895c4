{#
  hit_ratio: hits in the top k over all relevant items, summed over groups (micro average).
     HR@k = sum_g hits_g@k / sum_g n_rel_g,   hits@k = relevant items at positions <= k
  e.g. 6 + 5 + 4 hits for 10 + 12 + 8 relevant items gives 15 / 30 = 0.5.
  ties=average: hits@k is its expectation (each tied position holds r / n relevant).
  Empty groups add 0 to both sums (skip and zero give the same value; n_groups differs).
  The sum of hits is an exact_sum (decision 0006): each group's hits is a multiple of 2^-80
  below 2^47, so the sum over groups is exact and bit-identical under any row order.
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
  Output: one row per slice; columns hit_ratio, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::hit_ratio
#}
{% macro hit_ratio_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel else 0 end', '0') }} as {{ p }}hits
{%- endmacro %}

{% macro hit_ratio_value(p, k, options) -%}
coalesce({{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'hits, 0)', '0') }} / nullif(sum(n_rel), 0), 0)
{%- endmacro %}

