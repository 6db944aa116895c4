{#
  multiclass_confusion_matrix: the confusion matrix of a classifier as a long table.
     count(a, b) = (weighted) rows with label = a and prediction = b
  for every pair (a, b) of classes of the slice (the union of the values of label and
  prediction; any type), zeros included, so pivoting gives scikit-learn's
  confusion_matrix(y_true, y_pred) with rows = label, columns = prediction, classes sorted.
  With weight: sums of sample weights (exact_sums, decision 0006).
  Undefined: never. Ties: none.
  Output: per slice, rows ordered by label, then prediction; columns label, prediction, count.
  Oracle: tests/oracle/multiclass.py::confusion
#}
{% macro multiclass_confusion_matrix_kernel(relation, by, columns, options, entries) -%}
with {{ multiclass_per_class(relation, by, columns) }},
pairs as (
    select
        {{ slice_cols(by) }}
        y,
        y_hat,
        {{ multiclass_total('w', 'w_exp', columns.weight) }} as n
    from source
    {{ group_by(by, ['y', 'y_hat']) }}
),
grid as (
    select
{% for col in by %}
        a.slice_{{ loop.index0 }},
{% endfor %}
        a.class as y,
        b.class as y_hat
    from per_class as a
    join per_class as b
        on {% for col in by %}{{ null_safe_equal('a.slice_' ~ loop.index0, 'b.slice_' ~ loop.index0) }} and {% endfor %}1 = 1
),
final as (
    select
{% for col in by %}
        g.slice_{{ loop.index0 }},
{% endfor %}
        g.y as label,
        g.y_hat as prediction,
        coalesce(p.n, 0) as count
    from grid as g
    left join pairs as p
        on {% for col in by %}{{ null_safe_equal('g.slice_' ~ loop.index0, 'p.slice_' ~ loop.index0) }} and {% endfor %}g.y = p.y and g.y_hat = p.y_hat
)
select * from final
order by {{ slice_order(by) }}label, prediction
{%- endmacro %}
