{#
  mrr: mean reciprocal rank of the first relevant item within the top k (trec_eval recip_rank).
     RR@k = 1 / (position of the first relevant item) if it is <= k, else 0
  ties=average: E[RR@k] = sum_{i <= k} P(first relevant at i) / i; in the first tie group
  holding a relevant item (n items, r relevant, t = offset of i in it),
  P(first at i) = prod_{t' < t} (n - r - t') / (n - t') * r / (n - t).
  With a total order RR@k is 1 / min(position of a relevant item within k), 0 without one.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns mrr, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ranking.py::mrr
#}
{# with a total order the first relevant position within k is a min (no running window: mrr
   needs no `cum`), 1 / pos the same bits as the one term p_first / pos the sum below has #}
{% macro mrr_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then p_first / pos else 0 end', '0') }} as {{ p }}rr
{%- else -%}
coalesce({{ sqlmetrics.float_literal(1) }} / min(case when relevant = 1 and {{ sqlmetrics.ranking_within(k) }} then pos end), {{ sqlmetrics.float_literal(0) }}) as {{ p }}rr
{%- endif %}
{%- endmacro %}

{% macro mrr_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'rr, 0)', '0', options) }}
{%- endmacro %}

