{#
  infap: inferred average precision, mean over groups (Yilmaz & Aslam 2006; trec_eval infAP,
  ir_measures' infAP).
     infAP = (1 / R) sum_{relevant retrieved r at position i}
                 (1 + J_r (H_r + eps) / (J_r + 2 eps)) / i
  R = n_rel (relevant judged items, retrieved or not), J_r = judged items ranked above r,
  H_r = relevant items ranked above r, eps = 0.00001 (trec_eval's INFAP_EPSILON). Items absent
  from the judgments (not in the pool) take a position i but are left out of J_r and H_r; a
  relevant item at position 1 adds 1. trec_eval's third kind, pooled but not judged (qrels
  label -1, left out of the precision factor only), has no form here: labels are >= 0 and
  read_trec_qrels reads -1 as 0, a judged non-relevant item. With every item judged (J_r = i - 1) it is AP up to the eps
  terms (H_r + eps) / (i - 1 + 2 eps) for H_r / (i - 1), within 2e-5 of it. R = 0 counts 0
  (empty='zero').
  ties="average" is refused: no closed form (it reads judged items above each position).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns infap, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/ir.py::infap
#}
{% macro infap_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("infap: ties='average' has no closed form; use 'item_desc', 'item_asc' or 'text_desc'") }}
{% endif %}
{% set eps = sqlmetrics.float_literal(0.00001) %}
{{ sqlmetrics.exact_sum('case when relevant = 1 then (1 + (cum_judged - 1) * (ap_term - 1 + ' ~ eps ~ ') / (cum_judged - 1 + 2 * ' ~ eps ~ ')) / pos else 0 end', '0') }} as {{ p }}infap
{%- endmacro %}

{% macro infap_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce(' ~ p ~ 'infap / nullif(n_rel, 0), 0)', '0', options) }}
{%- endmacro %}
