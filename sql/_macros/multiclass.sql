{#
  Shared CTEs and the averaged query of the multiclass metrics (import `with context`).

  Context: relation, label, prediction (any type; the same or comparable types, checked in
  Python), weight (or none), by, and per metric beta, zero_division.
  Classes of a slice: every value seen in label or prediction there (scikit-learn's default
  `labels`: the union of y_true and y_pred).
  per_class(): CTEs source -> contrib -> per_class with, per slice and class c,
     tp     = (weighted) rows with label = c and prediction = c
     n_true = (weighted) rows with label = c       (support; tp + fn)
     n_pred = (weighted) rows with prediction = c  (tp + fp)
  built by adding up one contribution per row and role (no join: classes come out as the
  union by construction). per_class also carries tp_exp, n_true_exp, n_pred_exp, the
  exponents of the slice's largest of each (c.sum_exponent, for exact_sums over classes). Float sums of weights are
  exact_sums (decision 0006): bit-identical under any row order and thread count.
#}
{% import "_macros/common.sql" as c %}

{# exact integer counts, or order-independent sums of weights (e: see c.exact_sum) #}
{% macro total(expr, e) -%}
{{ c.exact_sum(expr, e) if weight else 'sum(' ~ expr ~ ')' }}
{%- endmacro %}

{% macro per_class() -%}
source as (
    select
        {{ c.slice_source(by) }}
        {{ label }} as y,
        {{ prediction }} as y_hat,
        {{ 'cast(' ~ weight ~ ' as double)' if weight else '1' }} as w{{ ',' if weight }}
{% if weight %}
        {{ c.sum_exponent('cast(' ~ weight ~ ' as double)', by) }} as w_exp
{% endif %}
    from {{ relation }}
),
contrib as (
    select
        {{ c.slice_cols(by) }}
        y as class,
        case when y = y_hat then w else {{ '0.0' if weight else '0' }} end as tp,
        w as n_true,
        {{ '0.0' if weight else '0' }} as n_pred{{ ',' if weight }}
{% if weight %}
        w_exp
{% endif %}
    from source
    union all
    select
        {{ c.slice_cols(by) }}
        y_hat as class,
        {{ '0.0' if weight else '0' }} as tp,
        {{ '0.0' if weight else '0' }} as n_true,
        w as n_pred{{ ',' if weight }}
{% if weight %}
        w_exp
{% endif %}
    from source
),
class_sums as (
    select
        {{ c.slice_cols(by) }}
        class,
        {{ total('tp', 'w_exp') }} as tp,
        {{ total('n_true', 'w_exp') }} as n_true,
        {{ total('n_pred', 'w_exp') }} as n_pred
    from contrib
    {{ c.group_by(by, ['class']) }}
),
per_class as (
    select
        class_sums.*,
        {{ c.sum_exponent('tp', by) }} as tp_exp,
        {{ c.sum_exponent('n_true', by) }} as n_true_exp,
        {{ c.sum_exponent('n_pred', by) }} as n_pred_exp
    from class_sums
)
{%- endmacro %}

{# per-class value of `metric` (precision | recall | fbeta); NULL when its denominator is 0 #}
{% macro class_value(metric) -%}
{% if metric == 'precision' %}
{{ c.safe_div('tp', 'n_pred') }}
{%- elif metric == 'recall' %}
{{ c.safe_div('tp', 'n_true') }}
{%- else %}
{% set b2 = (beta * beta) | double %}
{{ c.safe_div('(1 + ' ~ b2 ~ ') * tp', b2 ~ ' * n_true + n_pred') }}
{%- endif %}
{%- endmacro %}

{# the same over the sums of the counts (micro average) #}
{% macro micro_value(metric) -%}
{% set tp = total('tp', 'tp_exp') %}
{% set n_true = total('n_true', 'n_true_exp') %}
{% set n_pred = total('n_pred', 'n_pred_exp') %}
{% if metric == 'precision' %}
{{ c.safe_div(tp, n_pred) }}
{%- elif metric == 'recall' %}
{{ c.safe_div(tp, n_true) }}
{%- else %}
{% set b2 = (beta * beta) | double %}
{{ c.safe_div('(1 + ' ~ b2 ~ ') * ' ~ tp, b2 ~ ' * ' ~ n_true ~ ' + ' ~ n_pred) }}
{%- endif %}
{%- endmacro %}

{# per-class value with the zero_division policy: a number replaces NULL; 'warn'/nan keep it #}
{% macro policy(expr) -%}
{% if zero_division is number and zero_division == zero_division %}
coalesce({{ expr }}, {{ zero_division | double }})
{%- else %}
{{ expr }}
{%- endif %}
{%- endmacro %}

{#
  `name`: the averaged metric over the classes of each slice, `average`:
     macro    = mean over classes of v_c
     weighted = sum_c n_true_c v_c / sum_c n_true_c
     micro    = the metric of the summed counts (sum tp / sum n_pred, ...)
  v_c NULL (0/0, zero_division 'warn' or nan) is left out of macro and weighted, whose weights
  are renormalised over the classes left (scikit-learn's zero_division=nan); weighted falls
  back to macro when the classes left all have support 0 (as scikit-learn).
  Output columns: `name`, n_classes, n_undefined (classes whose v_c was 0/0).
#}
{% macro averaged(metric, average, name) -%}
with {{ per_class() }},
valued as (
    select
        {{ c.slice_cols(by) }}
        tp,
        n_true,
        n_pred,
        tp_exp,
        n_true_exp,
        n_pred_exp,
        {{ class_value(metric) }} as raw_value,
        {{ policy(class_value(metric)) }} as value
    from per_class
),
final as (
    select
        {{ c.slice_cols(by) }}
{% if average == 'micro' %}
        {{ micro_value(metric) }} as {{ name }},
{% elif average == 'macro' %}
        {{ c.exact_sum('value', '0') }} / nullif(count(value), 0) as {{ name }},
{% else %}
        coalesce(
            {{ c.exact_sum('case when value is not null then n_true * value end', 'n_true_exp') }}
                / nullif({{ total('case when value is not null then n_true end', 'n_true_exp') }}, 0),
            {{ c.exact_sum('value', '0') }} / nullif(count(value), 0)
        ) as {{ name }},
{% endif %}
        count(*) as n_classes,
        {{ '0' if average == 'micro' else 'count(*) - count(raw_value)' }} as n_undefined
    from valued
    {{ c.group_by(by) }}
)
select * from final
{{ c.order_by(by) }}
{%- endmacro %}
