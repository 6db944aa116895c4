{#
  The ranking kernel's metrics (sql/_macros/kernels/ranking.sql): which macro of sql/ranking/ gives
  each piece of each metric, written out once, so that every call is a plain call by name
  (no macro is looked up by a computed name: dbt's static analysis of a test sees them all).
  A new ranking metric adds its line to each macro its file defines a piece for; a metric
  missing from a required piece raises a compiler error naming it. The pieces and their
  arguments (p: the entry's column prefix `<alias>_`) are described in ranking.sql's header.
#}

{# its aggregates over the `ranked` rows of one group (required) #}
{% macro ranking_group_columns(metric, p, k, by, options) -%}
{%- if metric == 'bpref' -%}{{ sqlmetrics.bpref_group_columns(p, k, by, options) }}
{%- elif metric == 'cg' -%}{{ sqlmetrics.cg_group_columns(p, k, by, options) }}
{%- elif metric == 'dcg' -%}{{ sqlmetrics.dcg_group_columns(p, k, by, options) }}
{%- elif metric == 'fallout' -%}{{ sqlmetrics.fallout_group_columns(p, k, by, options) }}
{%- elif metric == 'gm_map' -%}{{ sqlmetrics.gm_map_group_columns(p, k, by, options) }}
{%- elif metric == 'hit_rate' -%}{{ sqlmetrics.hit_rate_group_columns(p, k, by, options) }}
{%- elif metric == 'hit_ratio' -%}{{ sqlmetrics.hit_ratio_group_columns(p, k, by, options) }}
{%- elif metric == 'idcg' -%}{{ sqlmetrics.idcg_group_columns(p, k, by, options) }}
{%- elif metric == 'iprec_11pt_avg' -%}{{ sqlmetrics.iprec_11pt_avg_group_columns(p, k, by, options) }}
{%- elif metric == 'iprec_at_recall' -%}{{ sqlmetrics.iprec_at_recall_group_columns(p, k, by, options) }}
{%- elif metric == 'map' -%}{{ sqlmetrics.map_group_columns(p, k, by, options) }}
{%- elif metric == 'mrr' -%}{{ sqlmetrics.mrr_group_columns(p, k, by, options) }}
{%- elif metric == 'ndcg' -%}{{ sqlmetrics.ndcg_group_columns(p, k, by, options) }}
{%- elif metric == 'precision_at_k' -%}{{ sqlmetrics.precision_at_k_group_columns(p, k, by, options) }}
{%- elif metric == 'r_precision' -%}{{ sqlmetrics.r_precision_group_columns(p, k, by, options) }}
{%- elif metric == 'rbp' -%}{{ sqlmetrics.rbp_group_columns(p, k, by, options) }}
{%- elif metric == 'recall_at_k' -%}{{ sqlmetrics.recall_at_k_group_columns(p, k, by, options) }}
{%- elif metric == 'err' -%}{{ sqlmetrics.err_group_columns(p, k, by, options) }}
{%- elif metric == 'infap' -%}{{ sqlmetrics.infap_group_columns(p, k, by, options) }}
{%- elif metric == 'judged' -%}{{ sqlmetrics.judged_group_columns(p, k, by, options) }}
{%- elif metric == 'num_q' -%}{{ sqlmetrics.num_q_group_columns(p, k, by, options) }}
{%- elif metric == 'num_rel' -%}{{ sqlmetrics.num_rel_group_columns(p, k, by, options) }}
{%- elif metric == 'num_rel_ret' -%}{{ sqlmetrics.num_rel_ret_group_columns(p, k, by, options) }}
{%- elif metric == 'num_ret' -%}{{ sqlmetrics.num_ret_group_columns(p, k, by, options) }}
{%- elif metric == 'set_f' -%}{{ sqlmetrics.set_f_group_columns(p, k, by, options) }}
{%- elif metric == 'set_precision' -%}{{ sqlmetrics.set_precision_group_columns(p, k, by, options) }}
{%- elif metric == 'set_recall' -%}{{ sqlmetrics.set_recall_group_columns(p, k, by, options) }}
{%- else -%}{{ exceptions.raise_compiler_error('ranking_group_columns: the metric ' ~ metric ~ ' has no <metric>_group_columns(p, k, by, options) here; define it in sql/ranking/<metric>.sql and add its line to ranking_group_columns (sql/_macros/kernels/ranking_metrics.sql)') }}
{%- endif -%}
{%- endmacro %}

{# its aggregates over the `ideal` rows of one group (required of the metrics that need 'ideal') #}
{% macro ranking_ideal_columns(metric, p, k, by, options) -%}
{%- if metric == 'idcg' -%}{{ sqlmetrics.idcg_ideal_columns(p, k, by, options) }}
{%- elif metric == 'ndcg' -%}{{ sqlmetrics.ndcg_ideal_columns(p, k, by, options) }}
{%- else -%}{{ exceptions.raise_compiler_error('ranking_ideal_columns: the metric ' ~ metric ~ ' has no <metric>_ideal_columns(p, k, by, options) here; define it in sql/ranking/<metric>.sql and add its line to ranking_ideal_columns (sql/_macros/kernels/ranking_metrics.sql)') }}
{%- endif -%}
{%- endmacro %}

{# the per-group column whose slice exponent its mean's exact_sum uses, or nothing (the
   metrics whose values lie in [0, 1] use exponent 0) #}
{% macro ranking_mean_exponent(metric, p) -%}
{%- if metric == 'cg' -%}{{ sqlmetrics.cg_mean_exponent(p) }}
{%- elif metric == 'dcg' -%}{{ sqlmetrics.dcg_mean_exponent(p) }}
{%- elif metric == 'idcg' -%}{{ sqlmetrics.idcg_mean_exponent(p) }}
{%- endif -%}
{%- endmacro %}

{# its value: an aggregate over the per-group rows of a slice (required) #}
{% macro ranking_value(metric, p, k, options) -%}
{%- if metric == 'bpref' -%}{{ sqlmetrics.bpref_value(p, k, options) }}
{%- elif metric == 'cg' -%}{{ sqlmetrics.cg_value(p, k, options) }}
{%- elif metric == 'dcg' -%}{{ sqlmetrics.dcg_value(p, k, options) }}
{%- elif metric == 'fallout' -%}{{ sqlmetrics.fallout_value(p, k, options) }}
{%- elif metric == 'gm_map' -%}{{ sqlmetrics.gm_map_value(p, k, options) }}
{%- elif metric == 'hit_rate' -%}{{ sqlmetrics.hit_rate_value(p, k, options) }}
{%- elif metric == 'hit_ratio' -%}{{ sqlmetrics.hit_ratio_value(p, k, options) }}
{%- elif metric == 'idcg' -%}{{ sqlmetrics.idcg_value(p, k, options) }}
{%- elif metric == 'iprec_11pt_avg' -%}{{ sqlmetrics.iprec_11pt_avg_value(p, k, options) }}
{%- elif metric == 'iprec_at_recall' -%}{{ sqlmetrics.iprec_at_recall_value(p, k, options) }}
{%- elif metric == 'map' -%}{{ sqlmetrics.map_value(p, k, options) }}
{%- elif metric == 'mrr' -%}{{ sqlmetrics.mrr_value(p, k, options) }}
{%- elif metric == 'ndcg' -%}{{ sqlmetrics.ndcg_value(p, k, options) }}
{%- elif metric == 'precision_at_k' -%}{{ sqlmetrics.precision_at_k_value(p, k, options) }}
{%- elif metric == 'r_precision' -%}{{ sqlmetrics.r_precision_value(p, k, options) }}
{%- elif metric == 'rbp' -%}{{ sqlmetrics.rbp_value(p, k, options) }}
{%- elif metric == 'recall_at_k' -%}{{ sqlmetrics.recall_at_k_value(p, k, options) }}
{%- elif metric == 'err' -%}{{ sqlmetrics.err_value(p, k, options) }}
{%- elif metric == 'infap' -%}{{ sqlmetrics.infap_value(p, k, options) }}
{%- elif metric == 'judged' -%}{{ sqlmetrics.judged_value(p, k, options) }}
{%- elif metric == 'num_q' -%}{{ sqlmetrics.num_q_value(p, k, options) }}
{%- elif metric == 'num_rel' -%}{{ sqlmetrics.num_rel_value(p, k, options) }}
{%- elif metric == 'num_rel_ret' -%}{{ sqlmetrics.num_rel_ret_value(p, k, options) }}
{%- elif metric == 'num_ret' -%}{{ sqlmetrics.num_ret_value(p, k, options) }}
{%- elif metric == 'set_f' -%}{{ sqlmetrics.set_f_value(p, k, options) }}
{%- elif metric == 'set_precision' -%}{{ sqlmetrics.set_precision_value(p, k, options) }}
{%- elif metric == 'set_recall' -%}{{ sqlmetrics.set_recall_value(p, k, options) }}
{%- else -%}{{ exceptions.raise_compiler_error('ranking_value: the metric ' ~ metric ~ ' has no <metric>_value(p, k, options) here; define it in sql/ranking/<metric>.sql and add its line to ranking_value (sql/_macros/kernels/ranking_metrics.sql)') }}
{%- endif -%}
{%- endmacro %}
