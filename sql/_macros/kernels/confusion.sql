{#
  The threshold family's kernel: confusion-matrix counts and every threshold metric over one
  scan (accuracy, precision, recall, specificity, fpr, f1, fbeta, confusion_matrix).

  confusion_kernel(relation, by, columns, options, entries):
    relation  SQL after `from`; by: quoted slice identifiers (may be empty)
    columns   label, score | prediction, weight (quoted identifiers or none)
    options   threshold, pos_label, and each entry metric's own (beta)
    entries   list of {alias, metric, k}: one output column per entry, the value
              `<metric>_value(options)` over tp, fp, tn, fn (from the metric's file, by
              confusion_value)
  Predicted positive: score >= threshold, or prediction = 1 when a prediction column is given.
  With weight, each row counts its weight instead of 1. With columns.multiplicity (merge:
  a relation of states, the column sqlmetrics_n) each row stands for that many rows: the
  counts are its exact integer sums, the weighted counts exact_sum's with the multiplicity,
  the same numbers, in the same bits, as over the rows replayed.
  CTEs: source (canonical column names) -> counts (tp, fp, tn, fn per slice) -> final.
  Output: slice_0.., one column per entry (its alias), tp, fp, tn, fn. No entry: the counts
  alone (confusion_matrix).
#}

{# exact integer counts, or order-independent sums of weights (exact_sum, decision 0006) #}
{% macro confusion_total(expr, weight, m=none) -%}
{{ sqlmetrics.exact_sum(expr, 'w_exp', 'm' if m else none) if weight else 'sum(' ~ expr ~ ')' }}
{%- endmacro %}

{% macro confusion_counts(relation, by, columns, options) -%}
{{ 'source_rows' if columns.weight else 'source' }} as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
{% if columns.prediction %}
        {{ sqlmetrics.binary_label(columns.prediction) }} as predicted,
{% else %}
        case when {{ sqlmetrics.score_value(columns.score) }} >= {{ sqlmetrics.float_literal(options.threshold) }} then 1 else 0 end as predicted,
{% endif %}
{% if columns.get('multiplicity') and columns.weight %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else columns.get('multiplicity') or '1' }} as w
    from {{ relation }}
),
{% if columns.weight %}
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('source', 'source_rows', by, [('w_exp', 'w')]) }},
{% endif %}
counts as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.confusion_total('case when label = 1 and predicted = 1 then w else 0 end', columns.weight, columns.get('multiplicity')) }} as tp,
        {{ sqlmetrics.confusion_total('case when label = 0 and predicted = 1 then w else 0 end', columns.weight, columns.get('multiplicity')) }} as fp,
        {{ sqlmetrics.confusion_total('case when label = 0 and predicted = 0 then w else 0 end', columns.weight, columns.get('multiplicity')) }} as tn,
        {{ sqlmetrics.confusion_total('case when label = 1 and predicted = 0 then w else 0 end', columns.weight, columns.get('multiplicity')) }} as fn
    from source
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{% macro confusion_kernel(relation, by, columns, options, entries) -%}
with {{ sqlmetrics.confusion_counts(relation, by, columns, options) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.confusion_value(entry.metric, options) }} as {{ entry.alias }},
{% endfor %}
        tp, fp, tn, fn
    from counts
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{# an entry's value over tp, fp, tn, fn: the macro <metric>_value(options) of the metric's
   file, each written out once (no macro is looked up by a computed name) #}
{% macro confusion_value(metric, options) -%}
{%- if metric == 'accuracy' -%}{{ sqlmetrics.accuracy_value(options) }}
{%- elif metric == 'f1' -%}{{ sqlmetrics.f1_value(options) }}
{%- elif metric == 'fbeta' -%}{{ sqlmetrics.fbeta_value(options) }}
{%- elif metric == 'fpr' -%}{{ sqlmetrics.fpr_value(options) }}
{%- elif metric == 'precision' -%}{{ sqlmetrics.precision_value(options) }}
{%- elif metric == 'recall' -%}{{ sqlmetrics.recall_value(options) }}
{%- elif metric == 'specificity' -%}{{ sqlmetrics.specificity_value(options) }}
{%- else -%}{{ exceptions.raise_compiler_error('confusion_value: the metric ' ~ metric ~ ' has no <metric>_value(options) here; define it in its file and add its line to confusion_value (sql/_macros/kernels/confusion.sql)') }}
{%- endif -%}
{%- endmacro %}
