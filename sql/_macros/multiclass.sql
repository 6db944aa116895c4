{#
  Shared CTEs and the averaged query of the multiclass metrics. Arguments: relation, by,
  columns (label, prediction: any type, the same or comparable types, checked in Python;
  weight or none), and per metric beta, zero_division.
  Classes of a slice: every value seen in label or prediction there (scikit-learn's default
  `labels`: the union of y_true and y_pred).
  multiclass_per_class(relation, by, columns): CTEs source -> contrib -> per_class with, per
  slice and class c,
     tp     = (weighted) rows with label = c and prediction = c
     n_true = (weighted) rows with label = c       (support; tp + fn)
     n_pred = (weighted) rows with prediction = c  (tp + fp)
  built by adding up one contribution per row and role (no join: classes come out as the
  union by construction). per_class also carries tp_exp, n_true_exp, n_pred_exp, the
  exponents of the slice's largest of each (sum_exponent, for exact_sums over classes). Float
  sums of weights are
  exact_sums (decision 0006): bit-identical under any row order and thread count.
#}

{# exact integer counts, or order-independent sums of weights (e: see exact_sum) #}
{% macro multiclass_total(expr, e, weight) -%}
{{ exact_sum(expr, e) if weight else 'sum(' ~ expr ~ ')' }}
{%- endmacro %}

{% macro multiclass_per_class(relation, by, columns) -%}
{{ 'source_rows' if columns.weight else 'source' }} as (
    select
        {{ slice_source(by) }}
        {{ columns.label }} as y,
        {{ columns.prediction }} as y_hat,
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ float_type() ~ ')' if columns.weight else '1' }} as w
    from {{ relation }}
),
{% if columns.weight %}
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/common.sql)
{{ with_slice_exponents('source', 'source_rows', by, [('w_exp', 'w')]) }},
{% endif %}
contrib as (
    select
        {{ slice_cols(by) }}
        y as class,
        case when y = y_hat then w else {{ float_literal(0) if columns.weight else '0' }} end as tp,
        w as n_true,
        {{ float_literal(0) if columns.weight else '0' }} as n_pred{{ ',' if columns.weight }}
{% if columns.weight %}
        w_exp
{% endif %}
    from source
    union all
    select
        {{ slice_cols(by) }}
        y_hat as class,
        {{ float_literal(0) if columns.weight else '0' }} as tp,
        {{ float_literal(0) if columns.weight else '0' }} as n_true,
        w as n_pred{{ ',' if columns.weight }}
{% if columns.weight %}
        w_exp
{% endif %}
    from source
),
class_sums as (
    select
        {{ slice_cols(by) }}
        class,
        {{ multiclass_total('tp', 'w_exp', columns.weight) }} as tp,
        {{ multiclass_total('n_true', 'w_exp', columns.weight) }} as n_true,
        {{ multiclass_total('n_pred', 'w_exp', columns.weight) }} as n_pred
    from contrib
    {{ group_by(by, ['class']) }}
),
-- the slice's exponents of the per-class sums: aggregates joined back (sql/_macros/common.sql)
{{ with_slice_exponents('per_class', 'class_sums', by, [('tp_exp', 'tp'), ('n_true_exp', 'n_true'), ('n_pred_exp', 'n_pred')]) }}
{%- endmacro %}

{# per-class value of `metric` (precision | recall | fbeta); NULL when its denominator is 0 #}
{% macro multiclass_class_value(metric, beta) -%}
{% if metric == 'precision' %}
{{ safe_div('tp', 'n_pred') }}
{%- elif metric == 'recall' %}
{{ safe_div('tp', 'n_true') }}
{%- else %}
{% set b2 = float_literal(beta * beta) %}
{{ safe_div('(1 + ' ~ b2 ~ ') * tp', b2 ~ ' * n_true + n_pred') }}
{%- endif %}
{%- endmacro %}

{# the same over the sums of the counts (micro average) #}
{% macro multiclass_micro_value(metric, beta, weight) -%}
{% set tp = multiclass_total('tp', 'tp_exp', weight) %}
{% set n_true = multiclass_total('n_true', 'n_true_exp', weight) %}
{% set n_pred = multiclass_total('n_pred', 'n_pred_exp', weight) %}
{% if metric == 'precision' %}
{{ safe_div(tp, n_pred) }}
{%- elif metric == 'recall' %}
{{ safe_div(tp, n_true) }}
{%- else %}
{% set b2 = float_literal(beta * beta) %}
{{ safe_div('(1 + ' ~ b2 ~ ') * ' ~ tp, b2 ~ ' * ' ~ n_true ~ ' + ' ~ n_pred) }}
{%- endif %}
{%- endmacro %}

{# per-class value with the zero_division policy: a number replaces NULL; 'warn'/nan keep it #}
{% macro multiclass_policy(expr, zero_division) -%}
{% if zero_division is number and zero_division == zero_division %}
coalesce({{ expr }}, {{ float_literal(zero_division) }})
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
{% macro multiclass_averaged(relation, by, columns, options, entries, metric, average, beta) -%}
with {{ multiclass_per_class(relation, by, columns) }},
valued as (
    select
        {{ slice_cols(by) }}
        tp,
        n_true,
        n_pred,
        tp_exp,
        n_true_exp,
        n_pred_exp,
        {{ multiclass_class_value(metric, beta) }} as raw_value,
        {{ multiclass_policy(multiclass_class_value(metric, beta), options.zero_division) }} as value
    from per_class
),
final as (
    select
        {{ slice_cols(by) }}
{% for entry in entries %}
{% if average == 'micro' %}
        {{ multiclass_micro_value(metric, beta, columns.weight) }} as {{ entry.alias }},
{% elif average == 'macro' %}
        {{ exact_sum('value', '0') }} / nullif(count(value), 0) as {{ entry.alias }},
{% else %}
        coalesce(
            {{ exact_sum('case when value is not null then n_true * value end', 'n_true_exp') }}
                / nullif({{ multiclass_total('case when value is not null then n_true end', 'n_true_exp', columns.weight) }}, 0),
            {{ exact_sum('value', '0') }} / nullif(count(value), 0)
        ) as {{ entry.alias }},
{% endif %}
{% endfor %}
        count(*) as n_classes,
        {{ '0' if average == 'micro' else 'count(*) - count(raw_value)' }} as n_undefined
    from valued
    {{ group_by(by) }}
)
select * from final
{{ order_by(by) }}
{%- endmacro %}
