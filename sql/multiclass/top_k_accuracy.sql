{#
  top_k_accuracy: the (weighted) fraction of rows whose true class is among the k classes of
  highest score, as scikit-learn's top_k_accuracy_score, from the long table of
  multiclass_auc (row id: role group, class: role item, score, 0/1 label marking the row's
  true class).
     top_k_accuracy = sum_r w_r [rank_r(t_r) <= k] / sum_r w_r
  rank_r(c): the position of class c in row r's classes ordered by score desc, ties by class
  desc (scikit-learn's reversed stable argsort puts the later of tied classes first).
  labels (scikit-learn's labels=, the classes that index the scores): ties by the class's
  position in the list, the later first (the Python layer has checked that every class of
  the data is listed).
  k none (evaluate's name without @k): every class counts, as for the ranking metrics. A
  row with no class labelled 1 counts as a miss. w_r: the row's weight (the weight column,
  the same on every line of the row; 1 without one).
  Ties: broken by class as above (a total order within a row). Float sums are exact_sums.
  Wide form (scikit-learn's y_score matrix, a score column per class; sqlmetrics/
  multiclass_roc.py): the same kernel over multiclass_wide_scores (sql/_macros/kernels/multiclass.sql,
  numbered: the row's key is g; the weight column carried on every class), so the same rule
  and values as the long table of those columns: with labels (the class of each column, in
  column order) ties go by column position, the later first, exactly scikit-learn's argsort
  over its columns; without (a list: the sorted classes; a mapping: its order is not read)
  by class desc.
  Undefined: the weights sum to 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; one column per entry alias (top_k_accuracy), n_rows (rows).
  Oracle: tests/oracle/multiclass_auc.py::top_k_accuracy
#}
{% macro top_k_accuracy_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group }} as g,
        {{ columns.item }} as c,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as s,
        {{ sqlmetrics.binary_label(columns.label) }} as y,
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' }} as w
    from {{ relation }}
),
{% if options.labels is not none %}
-- labels=: each class's position in the list, the tie-break
listed_source as (
    select
        source.*,
        listed.idx as idx
    from source
    inner join (
    {{ sqlmetrics.class_rows(options.labels) }}
    ) as listed on listed.class = source.c
),
{% endif %}
ranked as (
    select
        {{ 'listed_source' if options.labels is not none else 'source' }}.*,
        row_number() over ({{ sqlmetrics.window(by, 's desc, ' ~ ('idx desc' if options.labels is not none else 'c desc'), ['g']) }}) as pos
    from {{ 'listed_source' if options.labels is not none else 'source' }}
),
per_row as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        g,
        max(w) as w,
{% for entry in entries %}
        max(case when y = 1{{ ' and pos <= ' ~ entry.k if entry.k is not none }} then 1 else 0 end) as hit_{{ loop.index0 }},
{% endfor %}
        count(*) as n_classes
    from ranked
    {{ sqlmetrics.group_by(by, ['g']) }}
),
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled', 'per_row', by, [('w_exp', 'w')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.exact_sum('w * hit_' ~ loop.index0, 'w_exp') }} / nullif({{ sqlmetrics.exact_sum('w', 'w_exp') }}, 0) as {{ entry.alias }},
{% endfor %}
        count(*) as n_rows
    from scaled
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
