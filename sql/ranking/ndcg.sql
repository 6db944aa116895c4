{#
  ndcg: normalised discounted cumulative gain at k, mean over groups.
     DCG@k  = sum_{i <= k} gain(label_i) / log2(i + 1)
     IDCG@k = DCG@k of the group's judged items ordered by label desc (qrels if given,
              including items the run never retrieved; else the group's rows)
     NDCG@k = DCG@k / IDCG@k
  gain: exponential = 2^label - 1 (Burges et al. 2005) | linear = label (Jarvelin &
  Kekalainen 2002; trec_eval ndcg / ndcg_cut_k, scikit-learn ndcg_score).
  ties=average: DCG is its expectation over the orders of tied items (each tied position
  gets the mean gain of its tie group): scikit-learn's ndcg_score with ignore_ties=False.
  IDCG = 0 (no positive gain) counts 0 with empty=zero (as trec_eval).
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
  Output: one row per slice; columns ndcg, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::ndcg
#}
{% macro ndcg_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then gain * disc else 0 end', 'gain_exp') }} as {{ p }}dcg
{%- endmacro %}

{% macro ndcg_ideal_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k, 'ipos') ~ ' then gain * ln(' ~ sqlmetrics.float_literal(2) ~ ') / ln(ipos + ' ~ sqlmetrics.float_literal(1) ~ ') else 0 end', 'gain_exp') }} as {{ p }}idcg
{%- endmacro %}

{% macro ndcg_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'dcg / nullif(' ~ p ~ 'idcg, 0), 0)', '0') }} / count(*)
{%- endmacro %}

