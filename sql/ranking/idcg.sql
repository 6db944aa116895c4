{#
  idcg: ideal discounted cumulative gain at k, mean over groups.
     IDCG@k = DCG@k of the group's judged items ordered by label desc (then item asc)
  (judged: qrels if given, including items the run never retrieved; else the group's rows).
  Only items of positive gain (label > 0) enter the second sort (decision 0002).
  gain: exponential = 2^label - 1 | linear = label. Ties do not matter.
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
  log_base: the discount is 1 / log_b(i + 1) = ln(b) / ln(i + 1): the value with base 2
  times ln(b) / ln(2) (scikit-learn's dcg_score(log_base=); default 2).
  Undefined: no group left -> NULL (NaN + UndefinedMetricWarning).
  Shared SQL: sql/_macros/ranking.sql (one row_number() sort per group for every metric).
  Output: one row per slice; columns idcg, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::idcg
#}
{% macro idcg_group_columns(p, k, by, options) -%}
{%- endmacro %}

{% macro idcg_ideal_columns(p, k, by, options) -%}
{% set idcg = sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k, 'ipos') ~ ' then gain * ln(' ~ sqlmetrics.float_literal(2) ~ ') / ln(ipos + ' ~ sqlmetrics.float_literal(1) ~ ') else 0 end', 'gain_exp') %}
{{ idcg }} as {{ p }}idcg
{%- endmacro %}

{# the per-group column whose slice exponent the kernel joins back as {p}exp (the exact_sum
   exponent of the mean: the slice's largest per-group IDCG) #}
{% macro idcg_mean_exponent(p) -%}
{{ p }}idcg
{%- endmacro %}

{% macro idcg_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce(' ~ p ~ 'idcg, 0)', p ~ 'exp') }} / count(*){% if options.log_base != 2 %}
    * (ln({{ sqlmetrics.float_literal(options.log_base) }}) / ln(cast(2 as {{ sqlmetrics.float_type() }}))){% endif %}
{%- endmacro %}

