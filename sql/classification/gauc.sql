{#
  gauc: group AUC, the weighted mean of per-group ROC AUCs (Zhou et al. 2018, DIN).
     GAUC = sum_g v_g AUC_g / sum_g v_g   over groups g with both classes
     AUC_g = (sum_{i in g, label_i = 1} r_i - P_g (P_g + 1) / 2) / (P_g N_g)
  r_i: average rank of score_i within its group (ties share the mean rank: a tied
  positive/negative pair counts 1/2), from sql/_macros/kernels/auc.sql.
  weighting: samples -> v_g = rows of g (P_g + N_g, as in the DIN paper)
           | positives -> v_g = P_g (e.g. clicks) | uniform -> v_g = 1.
  Groups whose labels are all 0 or all 1 (AUC_g undefined) are left out; n_groups counts
  the groups that entered the mean. The weighted sum is an exact_sum (fixed point, decision
  0006): shuffled input and any thread count give bit-identical results.
  Scores are ranked in their own type (never cast): integers above 2^53 keep their order.
  Undefined: no group left -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns gauc, n_groups.
  Oracle: tests/oracle/classification.py::gauc
#}
{% macro gauc_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group }} as grp,
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        {{ sqlmetrics.score_value(columns.score) }} as score{{ ',' if columns.get('multiplicity') }}
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m
{% endif %}
    from {{ relation }}
),
{{ sqlmetrics.auc_rank_sums(by, ['grp'], sqlmetrics.multiplicity(columns)) }},
scored_rows as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% if options.weighting == 'samples' %}
{% set v = 'n_pos + n_neg' %}
{% elif options.weighting == 'positives' %}
{% set v = 'n_pos' %}
{% else %}
{% set v = 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' %}
{% endif %}
        {{ v }} as v,
        {{ sqlmetrics.auc_mann_whitney() }} as auc
    from rank_sums
    where n_pos > 0 and n_neg > 0
),
-- v_exp: the slice's ceil(log2 max v), an aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scored', 'scored_rows', by, [('v_exp', 'v')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('v * auc', 'v_exp') }} / nullif(sum(v), 0) as {{ entry.alias }},
{% endfor %}
        count(*) as n_groups
    from scored
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
