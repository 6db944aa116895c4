{#
  balanced_accuracy: the mean over classes of the recall, as scikit-learn's
  balanced_accuracy_score.
     balanced_accuracy = (1 / K) sum_{c : n_true_c > 0} tp_c / n_true_c
  over the K classes of the slice that occur in the label (a class only predicted has no
  recall and is left out, as scikit-learn leaves it out with a warning).
  adjusted = true: (balanced_accuracy - 1 / K) / (1 - 1 / K) (chance 0, perfect 1).
  tp_c, n_true_c from multiclass_per_class (sums of weights with a weight column).
  Ties: none. Float sums are exact_sums (decision 0006).
  Undefined: no class with positive weight in the label; adjusted with K = 1 (1 - 1/K = 0)
  -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns balanced_accuracy, n_classes (K).
  Oracle: tests/oracle/agreement.py::balanced_accuracy
#}
{% macro balanced_accuracy_kernel(relation, by, columns, options, entries) -%}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns) }},
recalls as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.safe_div('tp', 'n_true') }} as recall
    from per_class
    where n_true > 0
),
means as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.exact_sum('recall', 0) }} / nullif(count(*), 0) as score,
        count(*) as n_classes
    from recalls
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
{% if options.adjusted %}
        (score - 1 / cast(n_classes as {{ sqlmetrics.float_type() }}))
            / nullif(1 - 1 / cast(n_classes as {{ sqlmetrics.float_type() }}), 0) as {{ entry.alias }},
{% else %}
        score as {{ entry.alias }},
{% endif %}
{% endfor %}
        n_classes
    from means
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
