{#
  hit_rate: share of groups with at least one relevant item in the top k (trec_eval success_k).
     hit_rate@k = mean_g [hits_g@k >= 1]
  ties=average: P(at least one relevant item in the top k) = 1 - prod over positions
  i <= k of miss_i, miss_i = (n - r - t) / (n - t) for position i at offset t of a tie group
  of n items with r relevant (a hypergeometric probability); 1 - [no relevant] otherwise.
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
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
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'success, 0)', '0', options) }}
{%- endmacro %}

