{#
  hit_rate: share of groups with at least one relevant item in the top k (trec_eval success_k).
     hit_rate@k = mean_g [hits_g@k >= 1]
  ties=average: P(at least one relevant item in the top k) = 1 - prod over positions
  i <= k of miss_i, miss_i = (n - r - t) / (n - t) for position i at offset t of a tie group
  of n items with r relevant (a hypergeometric probability); 1 - [no relevant] otherwise.
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
  Output: one row per slice; columns hit_rate, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::hit_rate
#}
{% macro hit_rate_group_columns(p, k, by, options) -%}
1 - case
        when sum(case when {{ sqlmetrics.ranking_within(k) }} and miss <= 0 then 1 else 0 end) > 0 then {{ sqlmetrics.float_literal(0) }}
        {# |ln miss| <= ln n < 2^6: exponent 6 #}
        else exp({{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then ln(case when miss > 0 then miss else ' ~ sqlmetrics.float_literal(1) ~ ' end) else 0 end', '6') }})
    end as {{ p }}success
{%- endmacro %}

{% macro hit_rate_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'success, 0)', '0') }} / count(*)
{%- endmacro %}

