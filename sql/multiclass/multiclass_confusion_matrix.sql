{#
  multiclass_confusion_matrix: the confusion matrix of a classifier as a long table.
     count(a, b) = (weighted) rows with label = a and prediction = b
  for every pair (a, b) of classes of the slice (the union of the values of label and
  prediction; any type), zeros included, so pivoting gives scikit-learn's
  confusion_matrix(y_true, y_pred) with rows = label, columns = prediction, classes sorted.
  With weight: sums of sample weights (exact_sums, decision 0006).
  labels (scikit-learn's labels=): the classes are the listed ones, in their order (a listed
  class absent from the slice gives a row and a column of zeros); rows whose label or
  prediction is not listed are left out, as scikit-learn's confusion_matrix(labels=).
  Undefined: never. Ties: none.
  Output: per slice, rows ordered by label, then prediction (labels: by their positions in
  the list); columns label, prediction, count.
  Oracle: tests/oracle/multiclass.py::confusion
#}
{% macro multiclass_confusion_matrix_kernel(relation, by, columns, options, entries) -%}
{% set listed = options.labels is not none %}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns, options.labels, true) }},
pairs as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        y,
        y_hat,
        {{ sqlmetrics.multiclass_total('w', 'w_exp', columns.weight) }} as n
    from source
    {{ sqlmetrics.group_by(by, ['y', 'y_hat']) }}
),
grid as (
    select
{% for col in by %}
        a.slice_{{ loop.index0 }},
{% endfor %}
        a.class as y,
        b.class as y_hat{{ ',' if listed }}
{% if listed %}
        a.idx as y_idx,
        b.idx as y_hat_idx
{% endif %}
    from per_class as a
    join per_class as b
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('a.slice_' ~ loop.index0, 'b.slice_' ~ loop.index0) }} and {% endfor %}1 = 1
),
final as (
    select
{% for col in by %}
        g.slice_{{ loop.index0 }},
{% endfor %}
        g.y as label,
        g.y_hat as prediction,
        coalesce(p.n, 0) as count{{ ',' if listed }}
{% if listed %}
        g.y_idx as y_idx,
        g.y_hat_idx as y_hat_idx
{% endif %}
    from grid as g
    left join pairs as p
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('g.slice_' ~ loop.index0, 'p.slice_' ~ loop.index0) }} and {% endfor %}g.y = p.y and g.y_hat = p.y_hat
)
{% if listed %}
select {{ sqlmetrics.slice_cols(by) }}label, prediction, count
from final
order by {{ sqlmetrics.slice_order(by) }}y_idx, y_hat_idx
{% else %}
select * from final
order by {{ sqlmetrics.slice_order(by) }}label, prediction
{% endif %}
{%- endmacro %}
