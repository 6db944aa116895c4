{#
  jaccard: the Jaccard index (intersection over union) of label and prediction per class,
  averaged as scikit-learn's jaccard_score(average=) for multiclass targets.
     J_c = tp_c / (n_true_c + n_pred_c - tp_c)
  (tp_c, n_true_c, n_pred_c from multiclass_per_class; sums of weights with a weight column)
     macro    = mean over classes of J_c
     weighted = sum_c n_true_c J_c / sum_c n_true_c
     micro    = sum_c tp_c / sum_c (n_true_c + n_pred_c - tp_c)
  Classes: the union of the values of label and prediction in the slice; a class whose rows
  all have weight 0 has a union of 0 and J_c = 0 (scikit-learn's zero_division default).
  labels (scikit-learn's labels=): the classes averaged are the listed ones, counts from every
  row; a listed class absent from the slice has J_c = 0 (see sql/_macros/multiclass.sql).
  Ties: none. Float sums are exact_sums (decision 0006).
  Undefined: weighted with every support 0, or the weights sum to 0 -> NULL (NaN +
  UndefinedMetricWarning).
  jaccard_macro:, jaccard_micro:, jaccard_weighted: the three averages above, one kernel each.
  Output: one row per slice; one column per entry alias (jaccard_<average>), n_classes.
  Oracle: tests/oracle/agreement.py::jaccard
#}
{% macro jaccard_averaged(relation, by, columns, entries, average, labels=none) -%}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns, labels) }},
valued as (
    select
        per_class.*,
        n_true + n_pred - tp as n_union,
        coalesce({{ sqlmetrics.safe_div('tp', 'n_true + n_pred - tp') }}, cast(0 as {{ sqlmetrics.float_type() }})) as value
    from per_class
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
{% if average == 'micro' %}
        {{ sqlmetrics.safe_div(sqlmetrics.multiclass_total('tp', 'tp_exp', columns.weight), sqlmetrics.multiclass_total('n_union', 'greatest(n_true_exp, n_pred_exp) + 1', columns.weight)) }} as {{ entry.alias }},
{% elif average == 'macro' %}
        case when max(n_union) > 0 then {{ sqlmetrics.exact_sum('value', '0') }} / nullif(count(*), 0) end as {{ entry.alias }},
{% else %}
        {{ sqlmetrics.exact_sum('n_true * value', 'n_true_exp') }}
            / nullif(cast({{ sqlmetrics.multiclass_total('n_true', 'n_true_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}), 0) as {{ entry.alias }},
{% endif %}
{% endfor %}
        count(*) as n_classes
    from valued
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{% macro jaccard_macro_kernel(relation, by, columns, options, entries) -%}
{{ sqlmetrics.jaccard_averaged(relation, by, columns, entries, 'macro', options.labels) }}
{%- endmacro %}

{% macro jaccard_micro_kernel(relation, by, columns, options, entries) -%}
{{ sqlmetrics.jaccard_averaged(relation, by, columns, entries, 'micro', options.labels) }}
{%- endmacro %}

{% macro jaccard_weighted_kernel(relation, by, columns, options, entries) -%}
{{ sqlmetrics.jaccard_averaged(relation, by, columns, entries, 'weighted', options.labels) }}
{%- endmacro %}
