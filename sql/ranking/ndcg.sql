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
  weight= (per-item weights w_i, rax's ndcg_metric(weights=), rax 0.4): DCG@k = sum_{i <= k}
  w_i gain(label_i) / log2(i + 1) and IDCG@k the same sum over the items ordered by w_i
  gain(label_i) desc (the group's own rows; not with qrels); IDCG = 0 (e.g. every item of
  weight 0) gives NDCG 0, as rax. rax's mean over lists is a plain mean: group_weight= for
  a weighted one. Values equal rax to 1e-9: tests/test_ranking_weights.py.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
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
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'dcg / nullif(' ~ p ~ 'idcg, 0), 0)', '0', options) }}
{%- endmacro %}

