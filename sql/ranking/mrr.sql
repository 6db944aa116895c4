{#
  mrr: mean reciprocal rank of the first relevant item within the top k (trec_eval recip_rank).
     RR@k = 1 / (position of the first relevant item) if it is <= k, else 0
  ties=average: E[RR@k] = sum_{i <= k} P(first relevant at i) / i; in the first tie group
  holding a relevant item (n items, r relevant, t = offset of i in it),
  P(first at i) = prod_{t' < t} (n - r - t') / (n - t') * r / (n - t).
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
  Output: one row per slice; columns mrr, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::mrr
#}
{% macro mrr_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then p_first / pos else 0 end', '0') }} as {{ p }}rr
{%- endmacro %}

{% macro mrr_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'rr, 0)', '0') }} / count(*)
{%- endmacro %}

