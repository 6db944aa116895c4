{#
  The confusion-matrix counts shared by every threshold metric (import `with context`).

  Context: relation, label, score | prediction, threshold, weight (or none), by.
  Predicted positive: score >= threshold, or prediction = 1 when a prediction column is given.
  With weight, each row counts its weight instead of 1.
  CTEs: source (canonical column names) -> counts (tp, fp, tn, fn per slice) -> final.
  query(name, expr): the whole statement of a threshold metric whose value is `expr` over
  tp, fp, tn, fn (none: the counts alone, for confusion_matrix). Each metric template defines
  its expression as a macro `value()` and calls query(name, value()); evaluate calls
  query_many with the value() of several templates, so they share one scan.
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/labels.sql" as lab %}

{# exact integer counts, or order-independent sums of weights (c.exact_sum, decision 0006) #}
{% macro total(expr) -%}
{{ c.exact_sum(expr, 'w_exp') if weight else 'sum(' ~ expr ~ ')' }}
{%- endmacro %}

{% macro counts() -%}
source as (
    select
        {{ c.slice_source(by) }}
        {{ lab.binary_label(label, pos_label) }} as label,
{% if prediction %}
        {{ lab.binary_label(prediction) }} as predicted,
{% else %}
        case when {{ score }} >= {{ threshold | double }} then 1 else 0 end as predicted,
{% endif %}
        {{ 'cast(' ~ weight ~ ' as double)' if weight else '1' }} as w{{ ',' if weight }}
{% if weight %}
        {{ c.sum_exponent('cast(' ~ weight ~ ' as double)', by) }} as w_exp
{% endif %}
    from {{ relation }}
),
counts as (
    select
        {{ c.slice_cols(by) }}
        {{ total('case when label = 1 and predicted = 1 then w else 0 end') }} as tp,
        {{ total('case when label = 0 and predicted = 1 then w else 0 end') }} as fp,
        {{ total('case when label = 0 and predicted = 0 then w else 0 end') }} as tn,
        {{ total('case when label = 1 and predicted = 0 then w else 0 end') }} as fn
    from source
    {{ c.group_by(by) }}
)
{%- endmacro %}


{% macro query(name, expr) -%}
{{ query_many([{'name': name, 'expr': expr}]) }}
{%- endmacro %}

{# several threshold metrics over one scan: values is a list of {name, expr} (expr none: none) #}
{% macro query_many(values) -%}
with {{ counts() }},
final as (
    select
        {{ c.slice_cols(by) }}
{% for v in values %}
{% if v.expr %}
        {{ v.expr }} as {{ v.name }},
{% endif %}
{% endfor %}
        tp, fp, tn, fn
    from counts
)
select * from final
{{ c.order_by(by) }}
{%- endmacro %}
