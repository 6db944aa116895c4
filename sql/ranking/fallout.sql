{#
  fallout: fall-out at k, mean over groups: the share of the group's non-relevant retrieved
  items that are ranked in the top k (the false positive rate of the list cut at k).
     fallout@k = sum_{i <= k} (1 - rel_i) / sum_{i} (1 - rel_i)
  The denominator is the group's own retrieved non-relevant items (with qrels, unjudged
  retrieved items count as non-relevant, as everywhere): trec_eval's fallout divides by the
  collection's non-relevant documents (its -N), which a table of rankings does not hold.
  A group whose retrieved items are all relevant has 0/0, counted 0 (as every ranking metric).
  ties=average: E[1 - rel_i] = 1 - r / n, linear, exact.
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
  Output: one row per slice; columns fallout, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::fallout
#}
{% macro fallout_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then 1 - rel else 0 end', '0') }} as {{ p }}nonrel_k,
{{ sqlmetrics.exact_sum('1 - rel', '0') }} as {{ p }}nonrel
{%- endmacro %}

{% macro fallout_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'nonrel_k / nullif(' ~ p ~ 'nonrel, 0), 0)', '0') }} / count(*)
{%- endmacro %}
