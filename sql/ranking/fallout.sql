{#
  fallout: fall-out at k, mean over groups: the share of the group's non-relevant retrieved
  items that are ranked in the top k (the false positive rate of the list cut at k).
     fallout@k = sum_{i <= k} (1 - rel_i) / sum_{i} (1 - rel_i)
  The denominator is the group's own retrieved non-relevant items (with qrels, unjudged
  retrieved items count as non-relevant, as everywhere): trec_eval's fallout divides by the
  collection's non-relevant documents (its -N), which a table of rankings does not hold.
  A group whose retrieved items are all relevant has 0/0, counted 0 (as every ranking metric).
  ties=average: E[1 - rel_i] = 1 - r / n, linear, exact.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns fallout, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::fallout
#}
{% macro fallout_group_columns(p, k, by, options) -%}
{{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then 1 - rel else 0 end', '0') }} as {{ p }}nonrel_k,
{{ sqlmetrics.exact_sum('1 - rel', '0') }} as {{ p }}nonrel
{%- endmacro %}

{% macro fallout_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'nonrel_k / nullif(' ~ p ~ 'nonrel, 0), 0)', '0', options) }}
{%- endmacro %}
