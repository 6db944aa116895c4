{#
  rbp: rank-biased precision at k, mean over groups (Moffat & Zobel 2008; trec_eval rbp).
     RBP@k = (1 - p) sum_{i <= k} rel_i p^(i - 1),   p = persistence (default 0.9 as trec_eval, in (0, 1))
  rel_i: 1 when the item at position i is relevant (label >= relevance_level). trec_eval uses
  the label itself as gain, rescaled to [0, 1] when labels exceed 1: the same for 0/1 labels,
  not for graded ones (there use relevance_level to binarise). The residual
  (trec_eval rbp_resid, the weight of unjudged items) is not computed.
  ties=average: E[rel_i] = r / n for a position in a tie group of n items with r relevant
  (RBP is linear in rel_i), exact.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns rbp, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::rbp
#}
{% macro rbp_group_columns(p, k, by, options) -%}
(1 - {{ sqlmetrics.float_literal(options.persistence) }}) * {{ sqlmetrics.exact_sum('case when ' ~ sqlmetrics.ranking_within(k) ~ ' then rel * power(' ~ sqlmetrics.float_literal(options.persistence) ~ ', pos - 1) else 0 end', '0') }} as {{ p }}rbp
{%- endmacro %}

{% macro rbp_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'rbp, 0)', '0', options) }}
{%- endmacro %}
