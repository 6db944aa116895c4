{#
  multilabel_average_precision: average precision of a multilabel (or multiclass) classifier
  from the long table of multiclass_auc (row id: role group, class: role item, score, 0/1
  label: 1 where the class is a true class of the row), as scikit-learn's
  average_precision_score(Y, scores, average=).
  A binary AP over a partition (the step-wise area of the precision-recall curve):
     AP = sum_t (R(t) - R(t')) P(t) = (1 / P) sum_t pos(t) tp(t) / n(t)
  t over the distinct scores, descending (t' the previous one); pos(t): positives scoring t;
  tp(t), n(t): positives and rows scoring >= t; P: positives of the partition.
  ap_average:
     macro    = mean over classes of AP_c
     weighted = sum_c P_c AP_c / sum_c P_c
     micro    = AP of all (row, class) pairs pooled
     samples  = mean over rows of the AP of the row's classes
  Ties: rows of equal score form one threshold (one step). Counts are integers (exact); the
  terms are summed with exact_sum (decision 0006).
  Undefined: a class, row or the pooled table without a positive label in the average (its
  recall is 0/0) -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; one column per entry alias, n_parts.
  Oracle: tests/oracle/multiclass_auc.py::multilabel_average_precision
#}
{% macro multilabel_average_precision_kernel(relation, by, columns, options, entries) -%}
{% set part = [] if options.ap_average == 'micro' else (['g'] if options.ap_average == 'samples' else ['c']) %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group }} as g,
        {{ columns.item }} as c,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as s,
        {{ sqlmetrics.binary_label(columns.label) }} as y
    from {{ relation }}
),
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {% for col in part %}{{ col }}, {% endfor %}

        s,
        sum(y) as pos,
        count(*) as cnt
    from source
    {{ sqlmetrics.group_by(by, part + ['s']) }}
),
{% if part %}
cumulated as (
    select
        per_score.*,
        sum(pos) over ({{ sqlmetrics.window(by, 's desc', part) }} rows between unbounded preceding and current row) as tp,
        sum(cnt) over ({{ sqlmetrics.window(by, 's desc', part) }} rows between unbounded preceding and current row) as n_at
    from per_score
),
terms as (
    select
        cumulated.*,
        cast(pos as {{ sqlmetrics.float_type() }}) * tp / n_at as term
    from cumulated
),
scaled as (
    select
        terms.*,
        {{ sqlmetrics.sum_exponent('term', by, part) }} as term_exp
    from terms
),
{% else %}
{{ sqlmetrics.curve_pooled_ap_terms(by) }},
{% endif %}
per_part as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        sum(pos) as p_total,
        {{ sqlmetrics.exact_sum('term', 'term_exp') }} / nullif(cast(sum(pos) as {{ sqlmetrics.float_type() }}), 0) as value
    from scaled
    {{ sqlmetrics.group_by(by, part) }}
),
weighted_rows as (
    select
        per_part.*,
        p_total * value as wv
    from per_part
),
-- wv_exp: the slice's exponent of wv, a per-slice aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('weighted', 'weighted_rows', by, [('wv_exp', 'wv')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
{% if options.ap_average == 'weighted' %}
        case when count(value) = count(*) then {{ sqlmetrics.exact_sum('wv', 'wv_exp') }} / nullif(cast(sum(p_total) as {{ sqlmetrics.float_type() }}), 0) end as {{ entry.alias }},
{% else %}
        case when count(value) = count(*) then {{ sqlmetrics.exact_sum('value', 0) }} / nullif(count(*), 0) end as {{ entry.alias }},
{% endif %}
{% endfor %}
        count(*) as n_parts
    from weighted
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
