{#
  rbp: rank-biased precision at k, mean over groups (Moffat & Zobel 2008; trec_eval rbp).
     RBP@k = (1 - p) sum_{i <= k} rel_i p^(i - 1),   p = persistence (default 0.9 as trec_eval, in (0, 1))
  rel_i: 1 when the item at position i is relevant (label >= relevance_level). trec_eval uses
  the label itself as gain, rescaled to [0, 1] when labels exceed 1: the same for 0/1 labels,
  not for graded ones (there use relevance_level to binarise). The residual
  (trec_eval rbp_resid, the weight of unjudged items) is not computed.
  ties=average: E[rel_i] = r / n for a position in a tie group of n items with r relevant
  (RBP is linear in rel_i), exact.
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
  Output: one row per slice; columns rbp, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::rbp
#}
{% macro rbp_group_columns(p, k, by, options) -%}
(1 - {{ sqlmetrics.float_literal(options.persistence) }}) * {{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel * power(' ~ sqlmetrics.float_literal(options.persistence) ~ ', pos - 1) else 0 end', '0') }} as {{ p }}rbp
{%- endmacro %}

{% macro rbp_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'rbp, 0)', '0') }} / count(*)
{%- endmacro %}
