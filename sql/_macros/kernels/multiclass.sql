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
  labels (scikit-learn's `labels=`, a list checked in Python; none: the union above): the
  classes of every slice are exactly the listed ones, in their order (per_class gains `idx`,
  the 0-based position); a listed class absent from the slice has tp = n_true = n_pred = 0.
  restrict false: the counts still come from every row (precision, recall, F-beta, Jaccard:
  scikit-learn's multilabel_confusion_matrix(labels=)); restrict true: only the rows whose
  label and prediction are both listed count (confusion_matrix(labels=), cohen_kappa).
  columns.multiplicity (merge's count per state row, sql/_macros/shared/state.sql): each row counts
  m times: w = m without weights (integer sums of m), exact_sum with m with them: the same
  integers as over the rows replayed, so the same bits.
#}

{# exact integer counts, or order-independent sums of weights (e: see exact_sum) #}
{% macro multiclass_total(expr, e, weight, m=none) -%}
{{ sqlmetrics.exact_sum(expr, e, m) if weight else 'sum(' ~ expr ~ ')' }}
{%- endmacro %}

{% macro multiclass_per_class(relation, by, columns, labels=none, restrict=false) -%}
{% set m = sqlmetrics.multiplicity(columns) if columns.weight else none %}
{{ 'source_rows' if columns.weight else 'source' }} as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.label }} as y,
        {{ columns.prediction }} as y_hat,
{% if m %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else columns.get('multiplicity') or '1' }} as w
    from {{ relation }}
{% if labels is not none and restrict %}
    -- only rows whose label and prediction are both listed (labels=)
    where {{ sqlmetrics.class_in(columns.label, labels) }} and {{ sqlmetrics.class_in(columns.prediction, labels) }}
{% endif %}
),
{% if columns.weight %}
-- w_exp: the slice's ceil(log2 max w), a per-slice aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('source', 'source_rows', by, [('w_exp', 'w')]) }},
{% endif %}
contrib as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        y as class,
        case when y = y_hat then w else {{ sqlmetrics.float_literal(0) if columns.weight else '0' }} end as tp,
        w as n_true,
        {{ sqlmetrics.float_literal(0) if columns.weight else '0' }} as n_pred{{ ',' if columns.weight }}
{% if m %}
        m,
{% endif %}
{% if columns.weight %}
        w_exp
{% endif %}
    from source
    union all
    select
        {{ sqlmetrics.slice_cols(by) }}
        y_hat as class,
        {{ sqlmetrics.float_literal(0) if columns.weight else '0' }} as tp,
        {{ sqlmetrics.float_literal(0) if columns.weight else '0' }} as n_true,
        w as n_pred{{ ',' if columns.weight }}
{% if m %}
        m,
{% endif %}
{% if columns.weight %}
        w_exp
{% endif %}
    from source
),
class_sums as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        class,
        {{ sqlmetrics.multiclass_total('tp', 'w_exp', columns.weight, m) }} as tp,
        {{ sqlmetrics.multiclass_total('n_true', 'w_exp', columns.weight, m) }} as n_true,
        {{ sqlmetrics.multiclass_total('n_pred', 'w_exp', columns.weight, m) }} as n_pred
    from contrib
    {{ sqlmetrics.group_by(by, ['class']) }}
),
{% if labels is not none %}
-- labels=: the listed classes in every slice of the data (slices read before any row filter)
listed_slices as (
    select distinct {{ sqlmetrics.slice_source(by) }}1 as one
    from {{ relation }}
),
listed as (
    select
        {% for col in by %}s.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        l.idx as idx,
        l.class as class
    from listed_slices as s
    cross join (
    {{ sqlmetrics.class_rows(labels) }}
    ) as l
),
listed_sums as (
    select
        {% for col in by %}listed.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        listed.idx as idx,
        listed.class as class,
        coalesce(c.tp, 0) as tp,
        coalesce(c.n_true, 0) as n_true,
        coalesce(c.n_pred, 0) as n_pred
    from listed
    left join class_sums as c
        on {{ sqlmetrics.calibration_join_on('listed', 'c', by) }} and c.class = listed.class
),
{% endif %}
-- the slice's exponents of the per-class sums: aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('per_class', 'class_sums' if labels is none else 'listed_sums', by, [('tp_exp', 'tp'), ('n_true_exp', 'n_true'), ('n_pred_exp', 'n_pred')]) }}
{%- endmacro %}

{# per-class value of `family` (precision | recall | f1 | fbeta | jaccard); NULL when its
   denominator is 0, but jaccard's, which is 0 then (scikit-learn's default); f1 is fbeta at
   beta 1 #}
{% macro multiclass_class_value(family, beta) -%}
{% if family == 'precision' %}
{{ sqlmetrics.safe_div('tp', 'n_pred') }}
{%- elif family == 'recall' %}
{{ sqlmetrics.safe_div('tp', 'n_true') }}
{%- elif family == 'jaccard' %}
coalesce({{ sqlmetrics.safe_div('tp', 'n_true + n_pred - tp') }}, cast(0 as {{ sqlmetrics.float_type() }}))
{%- else %}
{% set b2 = sqlmetrics.float_literal(1.0 if family == 'f1' else beta * beta) %}
{{ sqlmetrics.safe_div('(1 + ' ~ b2 ~ ') * tp', b2 ~ ' * n_true + n_pred') }}
{%- endif %}
{%- endmacro %}

{# the same over the sums of the counts (micro average) #}
{% macro multiclass_micro_value(family, beta, weight) -%}
{% set tp = sqlmetrics.multiclass_total('tp', 'tp_exp', weight) %}
{% set n_true = sqlmetrics.multiclass_total('n_true', 'n_true_exp', weight) %}
{% set n_pred = sqlmetrics.multiclass_total('n_pred', 'n_pred_exp', weight) %}
{% if family == 'precision' %}
{{ sqlmetrics.safe_div(tp, n_pred) }}
{%- elif family == 'recall' %}
{{ sqlmetrics.safe_div(tp, n_true) }}
{%- elif family == 'jaccard' %}
{{ sqlmetrics.safe_div(tp, sqlmetrics.multiclass_total('n_union', 'greatest(n_true_exp, n_pred_exp) + 1', weight)) }}
{%- else %}
{% set b2 = sqlmetrics.float_literal(1.0 if family == 'f1' else beta * beta) %}
{{ sqlmetrics.safe_div('(1 + ' ~ b2 ~ ') * ' ~ tp, b2 ~ ' * ' ~ n_true ~ ' + ' ~ n_pred) }}
{%- endif %}
{%- endmacro %}

{# per-class value with the zero_division policy: a number replaces NULL; 'warn'/nan keep it #}
{% macro multiclass_policy(expr, zero_division) -%}
{% if zero_division is number and zero_division == zero_division %}
coalesce({{ expr }}, {{ sqlmetrics.float_literal(zero_division) }})
{%- else %}
{{ expr }}
{%- endif %}
{%- endmacro %}

{#
  multiclass_kernel: every averaged multiclass metric of a call (precision, recall, f1, fbeta
  and jaccard, each macro-, micro- or weighted-averaged) over ONE multiclass_per_class: the
  per-class counts are computed once for all of them (on Spark, 15 metrics were 15 copies of
  the counts' shuffles). An entry's metric is `<family>_<average>`.
  Per-class values, in `valued`, one pair per family requested (multiclass_class_value):
     r_<family>  the family's v_c, NULL when its denominator is 0 (jaccard: never NULL, 0)
     v_<family>  r_<family> with the zero_division policy
  (f1 is fbeta at beta 1; fbeta reads options.beta.) Each entry's average over the classes is
  the macro <metric>_value(columns, options) of its file (multiclass_value below):
     macro    = mean over classes of v_c
     weighted = sum_c n_true_c v_c / sum_c n_true_c
     micro    = the metric of the summed counts (sum tp / sum n_pred, ...)
  v_c NULL (0/0, zero_division 'warn' or nan) is left out of macro and weighted, whose weights
  are renormalised over the classes left (scikit-learn's zero_division=nan); weighted falls
  back to macro when the classes left all have support 0 (as scikit-learn).
  Output columns: slices, one per entry alias, n_classes, n_undefined: the classes whose v_c
  was 0/0 for the first entry (0 when it is micro or jaccard; the functions ask one metric).
#}
{% macro multiclass_kernel(relation, by, columns, options, entries) -%}
{% set families = [] %}
{% for entry in entries %}
{% set family = entry.metric.split('_')[0] %}
{% if family not in families %}{% do families.append(family) %}{% endif %}
{% endfor %}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns, options.labels) }},
valued as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        tp,
        n_true,
        n_pred,
        tp_exp,
        n_true_exp,
        n_pred_exp,
{% if 'jaccard' in families %}
        n_true + n_pred - tp as n_union,
{% endif %}
{% for family in families %}
        {{ sqlmetrics.multiclass_class_value(family, options.beta) }} as r_{{ family }},
        {{ sqlmetrics.multiclass_policy(sqlmetrics.multiclass_class_value(family, options.beta), options.zero_division) }} as v_{{ family }}{{ ',' if not loop.last }}
{% endfor %}
    from per_class
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
        {{ sqlmetrics.multiclass_value(entry.metric, columns, options) }} as {{ entry.alias }},
{% endfor %}
{% set first = entries[0].metric.split('_') %}
        count(*) as n_classes,
        {{ '0' if first[1] == 'micro' or first[0] == 'jaccard' else 'count(*) - count(r_' ~ first[0] ~ ')' }} as n_undefined
    from valued
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{# an entry's average over the classes: the macro <metric>_value(columns, options) of the metric's
   file, each written out once (no macro is looked up by a computed name) #}
{% macro multiclass_value(metric, columns, options) -%}
{%- if metric == 'precision_macro' -%}{{ sqlmetrics.precision_macro_value(columns, options) }}
{%- elif metric == 'precision_micro' -%}{{ sqlmetrics.precision_micro_value(columns, options) }}
{%- elif metric == 'precision_weighted' -%}{{ sqlmetrics.precision_weighted_value(columns, options) }}
{%- elif metric == 'recall_macro' -%}{{ sqlmetrics.recall_macro_value(columns, options) }}
{%- elif metric == 'recall_micro' -%}{{ sqlmetrics.recall_micro_value(columns, options) }}
{%- elif metric == 'recall_weighted' -%}{{ sqlmetrics.recall_weighted_value(columns, options) }}
{%- elif metric == 'f1_macro' -%}{{ sqlmetrics.f1_macro_value(columns, options) }}
{%- elif metric == 'f1_micro' -%}{{ sqlmetrics.f1_micro_value(columns, options) }}
{%- elif metric == 'f1_weighted' -%}{{ sqlmetrics.f1_weighted_value(columns, options) }}
{%- elif metric == 'fbeta_macro' -%}{{ sqlmetrics.fbeta_macro_value(columns, options) }}
{%- elif metric == 'fbeta_micro' -%}{{ sqlmetrics.fbeta_micro_value(columns, options) }}
{%- elif metric == 'fbeta_weighted' -%}{{ sqlmetrics.fbeta_weighted_value(columns, options) }}
{%- elif metric == 'jaccard_macro' -%}{{ sqlmetrics.jaccard_macro_value(columns, options) }}
{%- elif metric == 'jaccard_micro' -%}{{ sqlmetrics.jaccard_micro_value(columns, options) }}
{%- elif metric == 'jaccard_weighted' -%}{{ sqlmetrics.jaccard_weighted_value(columns, options) }}
{%- else -%}{{ exceptions.raise_compiler_error('multiclass_value: the metric ' ~ metric ~ ' has no <metric>_value(columns, options) here; define it in its file and add its line to multiclass_value (sql/_macros/kernels/multiclass.sql)') }}
{%- endif -%}
{%- endmacro %}

{# the three averages of a family's per-class values (v_<family>, r_<family>) #}
{% macro multiclass_macro_average(family) -%}
{{ sqlmetrics.exact_sum('v_' ~ family, '0') }} / nullif(count(v_{{ family }}), 0)
{%- endmacro %}

{% macro multiclass_weighted_average(family, weight) -%}
coalesce(
            {{ sqlmetrics.exact_sum('case when v_' ~ family ~ ' is not null then n_true * v_' ~ family ~ ' end', 'n_true_exp') }}
                / nullif({{ sqlmetrics.multiclass_total('case when v_' ~ family ~ ' is not null then n_true end', 'n_true_exp', weight) }}, 0),
            {{ sqlmetrics.multiclass_macro_average(family) }}
        )
{%- endmacro %}

{#
  multiclass_wide_scores(relation, by, label, scores, numbered=false, weight=none): the long
  table of multiclass_auc (and multilabel_average_precision, top_k_accuracy) made from wide
  columns (scikit-learn's y_score matrix), a parenthesized select without alias. `scores`: a list of [class, quoted
  score column] pairs (multiclass: the row's true class in the quoted column `label`), or of
  [class, quoted score column, quoted 0/1 indicator column] triples (multilabel,
  scikit-learn's indicator matrix Y; `label` none). Classes are checked in Python and written
  as literals by class_literal.
  Output columns: the slice columns by their names, sqlmetrics_class, sqlmetrics_score
  (double), sqlmetrics_label (1 where the class is a true class of the row: label = class, or
  the class's indicator is 1), with weight (a quoted column, the row's weight: top_k_accuracy,
  numbered only) sqlmetrics_weight (double, on each of the row's classes), and sqlmetrics_truth,
  the column the kernels partition rows by:
     without numbered: multiclass, the row's true class (multiclass_auc's one-vs-one pairs
                 partition by it, as they would by a row id); multilabel, 0;
     numbered (multilabel average='samples' and top_k_accuracy, which partition by the
                 row; any bootstrap, whose sample is the row): the row's key, row_key
                 (sql/_macros/inference/resample.sql): its position within its slice in the order of all
                 its score columns, then its label or indicator columns, then its weight.
                 Rows equal in all of them get distinct keys in some order, and which gets
                 which changes no value (nor any replicate), so the key is deterministic
                 wherever it matters, on every engine.
  Without numbered: one select per class glued with union all, so every engine runs it. With
  numbered the rows are numbered once (one sort) and crossed with the classes (class_rows).
#}
{% macro multiclass_wide_scores(relation, by, label, scores, numbered=false, weight=none) -%}
(
{% if numbered %}
{% set order = scores | map(attribute=1) | list + ([label] if label is not none else scores | map(attribute=2) | list) + ([weight] if weight is not none else []) %}
    select
        {% for col in by %}r.{{ col }}, {% endfor %}

        k.class as sqlmetrics_class,
        case k.idx
{% for pair in scores %}
            when {{ loop.index0 }} then cast(r.{{ pair[1] }} as {{ sqlmetrics.float_type() }})
{% endfor %}
        end as sqlmetrics_score,
{% if label is none %}
        case k.idx
{% for pair in scores %}
            when {{ loop.index0 }} then {{ sqlmetrics.binary_label('r.' ~ pair[2]) }}
{% endfor %}
        end as sqlmetrics_label,
{% else %}
        case when r.{{ label }} = k.class then 1 else 0 end as sqlmetrics_label,
{% endif %}
{% if weight is not none %}
        cast(r.{{ weight }} as {{ sqlmetrics.float_type() }}) as sqlmetrics_weight,
{% endif %}
        r.sqlmetrics_row as sqlmetrics_truth
    from (
        select
            __sqlm_source.*,
            {{ sqlmetrics.row_key(order, by) }} as sqlmetrics_row
        from {{ relation }} as __sqlm_source
    ) as r
    cross join (
    {{ sqlmetrics.class_rows(scores | map('first') | list) }}
    ) as k
{% else %}
{% for pair in scores %}
    select
        {% for col in by %}{{ col }}, {% endfor %}

        {{ sqlmetrics.class_literal(pair[0]) }} as sqlmetrics_class,
        cast({{ pair[1] }} as {{ sqlmetrics.float_type() }}) as sqlmetrics_score,
{% if label is none %}
        {{ sqlmetrics.binary_label(pair[2]) }} as sqlmetrics_label,
        0 as sqlmetrics_truth
{% else %}
        case when {{ label }} = {{ sqlmetrics.class_literal(pair[0]) }} then 1 else 0 end as sqlmetrics_label,
        {{ label }} as sqlmetrics_truth
{% endif %}
    from {{ relation }}
{% if not loop.last %}
    union all
{% endif %}
{% endfor %}
{% endif %}
)
{%- endmacro %}
