{#
  classification_report: per-class precision, recall, F-beta and support, then the micro,
  macro and weighted averages of each (scikit-learn's classification_report, with beta = 1).
  Per slice and class c (the union of the values of label and prediction; any type):
     precision_c = tp_c / n_pred_c    recall_c = tp_c / n_true_c
     fbeta_c = (1 + b^2) tp_c / (b^2 n_true_c + n_pred_c)    support_c = n_true_c
  tp_c, n_true_c, n_pred_c: as in sql/_macros/kernels/multiclass.sql (sums of weights with weight).
  Average rows (class NULL, `average` = micro | macro | weighted), as the *_micro, *_macro
  and *_weighted templates; their support is the slice's total.
  Undefined: precision_c when c is never predicted, recall_c when c is never true -> NULL
  (NaN; left out of macro and weighted), or the zero_division value 0.0 / 1.0 (included).
  Ties: none. Float sums are exact_sums (decision 0006).
  labels (scikit-learn's labels=): the classes reported and averaged are the listed ones, in
  their order; counts come from every row; a listed class absent from the slice has support 0
  and precision and recall 0/0 (see sql/_macros/kernels/multiclass.sql).
  Output: per slice, one row per class ordered by class (labels: in the listed order), then
  micro, macro, weighted; columns class, average, precision, recall, fbeta, support.
  Oracle: tests/oracle/multiclass.py::report
#}
{% macro classification_report_kernel(relation, by, columns, options, entries) -%}
{% set metrics = ['precision', 'recall', 'fbeta'] %}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns, options.labels) }},
valued as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        class,
{% if options.labels is not none %}
        idx,
{% endif %}
        tp,
        n_true,
        n_pred,
        tp_exp,
        n_true_exp,
        n_pred_exp,
{% for m in metrics %}
        {{ sqlmetrics.multiclass_policy(sqlmetrics.multiclass_class_value(m, options.beta), options.zero_division) }} as {{ m }}{{ ',' if not loop.last }}
{% endfor %}
    from per_class
),
averages as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for m in metrics %}
        {{ sqlmetrics.multiclass_micro_value(m, options.beta, columns.weight) }} as micro_{{ m }},
        {{ sqlmetrics.exact_sum(m, '0') }} / nullif(count({{ m }}), 0) as macro_{{ m }},
        coalesce(
            {{ sqlmetrics.exact_sum('case when ' ~ m ~ ' is not null then n_true * ' ~ m ~ ' end', 'n_true_exp') }}
                / nullif({{ sqlmetrics.multiclass_total('case when ' ~ m ~ ' is not null then n_true end', 'n_true_exp', columns.weight) }}, 0),
            {{ sqlmetrics.exact_sum(m, '0') }} / nullif(count({{ m }}), 0)
        ) as weighted_{{ m }},
{% endfor %}
        {{ sqlmetrics.multiclass_total('n_true', 'n_true_exp', columns.weight) }} as support
    from valued
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        class,
        cast(null as {{ sqlmetrics.string_type() }}) as average,
        {{ 'idx' if options.labels is not none else '0' }} as row_order,
        precision, recall, fbeta,
        n_true as support
    from valued
{% for avg in ['micro', 'macro', 'weighted'] %}
    union all
    select
        {{ sqlmetrics.slice_cols(by) }}
        null as class,
        '{{ avg }}' as average,
        {{ loop.index ~ (' + ' ~ (options.labels | length) if options.labels is not none else '') }} as row_order,
        {{ avg }}_precision, {{ avg }}_recall, {{ avg }}_fbeta,
        support
    from averages
{% endfor %}
)
select {{ sqlmetrics.slice_cols(by) }} class, average, precision, recall, fbeta, support
from final
order by {{ sqlmetrics.slice_order(by) }}row_order, class
{%- endmacro %}
