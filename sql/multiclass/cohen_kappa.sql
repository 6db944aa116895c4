{#
  cohen_kappa: Cohen's kappa between label and prediction, as scikit-learn's
  cohen_kappa_score(y, yhat, weights=).
     kappa = 1 - sum_ij v_ij C_ij / sum_ij v_ij E_ij,   E_ij = t_i p_j / s
  C_ij: (weighted) rows with label class i and prediction class j; t_i = sum_j C_ij,
  p_j = sum_i C_ij, s = sum_ij C_ij; classes: the union of the values of label and
  prediction in the slice, numbered 0, 1, ... in sorted order (scikit-learn's unique_labels).
  Disagreement weights v_ij (`weights`): none -> 1 - [i = j]; linear -> |i - j|;
  quadratic -> (i - j)^2 (ordinal classes: their sorted order is their scale).
  Unweighted this is (p_o - p_e) / (1 - p_e).
  labels (scikit-learn's labels=): the classes are the listed ones, numbered by their
  position in the list (the scale of linear and quadratic weights); rows whose label or
  prediction is not listed are left out, as scikit-learn's cohen_kappa_score(labels=).
  Ties: none. Float sums are exact_sums (decision 0006). With a count per row (merge's
  columns.multiplicity): multiclass_per_class's w is the count without weights, and each
  weight counts m times (exact_sum with m) with them.
  Undefined: sum_ij v_ij E_ij = 0 or s = 0 (one class only in label and prediction alike, the
  same single class, no listed row: labels=, or weights that sum to 0) -> NULL (NaN +
  UndefinedMetricWarning).
  Output: one row per slice; columns cohen_kappa, n_classes.
  Oracle: tests/oracle/agreement.py::cohen_kappa
#}
{# v_ij of the classes aliased a and b; unweighted by the classes themselves, so that no
   class numbering (a window over a slice's classes, gathered in one partition on Spark) is
   computed when it is not needed #}
{% macro cohen_kappa_disagreement(a, b, weights) -%}
{% if weights == 'linear' %}
cast(abs({{ a }}.idx - {{ b }}.idx) as {{ sqlmetrics.float_type() }})
{%- elif weights == 'quadratic' %}
cast(({{ a }}.idx - {{ b }}.idx) * ({{ a }}.idx - {{ b }}.idx) as {{ sqlmetrics.float_type() }})
{%- else %}
cast(case when {{ a }}.class = {{ b }}.class then 0 else 1 end as {{ sqlmetrics.float_type() }})
{%- endif %}
{%- endmacro %}

{% macro cohen_kappa_kernel(relation, by, columns, options, entries) -%}
with {{ sqlmetrics.multiclass_per_class(relation, by, columns, options.labels, true) }},
cells as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        y,
        y_hat,
        cast({{ sqlmetrics.multiclass_total('w', 'w_exp', columns.weight, sqlmetrics.multiplicity(columns) if columns.weight else none) }} as {{ sqlmetrics.float_type() }}) as c
    from source
    {{ sqlmetrics.group_by(by, ['y', 'y_hat']) }}
),
classes as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        class,
        cast(n_true as {{ sqlmetrics.float_type() }}) as t,
        cast(n_pred as {{ sqlmetrics.float_type() }}) as p{{ ',' if options.weights in ('linear', 'quadratic') }}
{% if options.weights not in ('linear', 'quadratic') %}
{% elif options.labels is not none %}
        idx
{% else %}
        row_number() over ({{ sqlmetrics.window(by, 'class') }}) - 1 as idx
{% endif %}
    from per_class
),
totals as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast({{ sqlmetrics.multiclass_total('n_true', 'n_true_exp', columns.weight) }} as {{ sqlmetrics.float_type() }}) as s,
        count(*) as n_classes
    from per_class
    {{ sqlmetrics.group_by(by) }}
),
observed as (
    select
        {% for col in by %}cells.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        {{ sqlmetrics.cohen_kappa_disagreement('ci', 'cj', options.weights) }} * cells.c as term
    from cells
    inner join classes as ci
        on {{ sqlmetrics.calibration_join_on('cells', 'ci', by) }} and ci.class = cells.y
    inner join classes as cj
        on {{ sqlmetrics.calibration_join_on('cells', 'cj', by) }} and cj.class = cells.y_hat
),
expected as (
    select
        {% for col in by %}ci.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        {{ sqlmetrics.cohen_kappa_disagreement('ci', 'cj', options.weights) }} * ci.t * cj.p / nullif(totals.s, 0) as term
    from classes as ci
    inner join classes as cj on {{ sqlmetrics.calibration_join_on('ci', 'cj', by) }}
    inner join totals on {{ sqlmetrics.calibration_join_on('ci', 'totals', by) }}
),
terms as (
    select {{ sqlmetrics.slice_cols(by) }} term as o, cast(0 as {{ sqlmetrics.float_type() }}) as e from observed
    union all
    select {{ sqlmetrics.slice_cols(by) }} cast(0 as {{ sqlmetrics.float_type() }}) as o, term as e from expected
),
-- the slice's exponents of the terms: per-slice aggregates joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scaled_terms', 'terms', by, [('o_exp', 'o'), ('e_exp', 'e')]) }},
sums as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ sqlmetrics.exact_sum('o', 'o_exp') }} as o_sum,
        {{ sqlmetrics.exact_sum('e', 'e_exp') }} as e_sum
    from scaled_terms
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {% for col in by %}totals.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

{% for entry in entries %}
        1 - sums.o_sum / nullif(sums.e_sum, 0) as {{ entry.alias }},
{% endfor %}
        totals.n_classes as n_classes
    from totals
    left join sums on {{ sqlmetrics.calibration_join_on('totals', 'sums', by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
