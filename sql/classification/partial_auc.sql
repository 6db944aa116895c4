{#
  partial_auc: the area under the ROC curve up to FPR = max_fpr, McClish-standardised, as
  scikit-learn's roc_auc_score(max_fpr=).
     A_m = integral_0^m TPR d(FPR), trapezoids between the ROC points (one per distinct
           score, from (0, 0); sql/_macros/kernels/score_points.sql); the segment crossing FPR = m is
           cut there, TPR interpolated linearly (numpy.interp, as scikit-learn)
     partial_auc = 1/2 (1 + (A_m - m^2 / 2) / (m - m^2 / 2))    (McClish 1989)
  m = max_fpr in (0, 1]; m = 1 is the plain ROC AUC (no standardisation, as scikit-learn).
  0.5 is a random score, 1 a perfect one. Ties: rows of equal score form one ROC point (the
  trapezoid, i.e. half credit for tied pairs). w_i = 1 without weight. The area is an
  exact_sum of the segments' areas (each in [0, 1]).
  Undefined: no positive or no negative label -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; one column per entry alias (partial_auc), n_pos, n_neg.
  Kernel: score_points_kernel (sql/_macros/kernels/score_points.sql), which computes ks_statistic
  from the same pass over the score points when both are requested.
  Oracle: tests/oracle/separation.py::partial_auc
#}
{# the CTEs of partial_auc after score_points_ctes' `points` (each followed by a comma):
   `segments`, then `areas` (per slice n_pos, n_neg, area; its slice keys renamed
   `<prefix>slice_0..` for a join with ks_statistic's `at_best`) #}
{% macro partial_auc_ctes(by, options, prefix='') -%}
{% set m_sql = sqlmetrics.float_literal(options.max_fpr | float) %}
segments as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        p_total,
        n_total,
        case
            when fpr <= {{ m_sql }}
                then (fpr - prev_fpr) * (tpr + prev_tpr) / 2
            when prev_fpr < {{ m_sql }}
                then ({{ m_sql }} - prev_fpr) * (
                    prev_tpr + (
                        ((tpr - prev_tpr) / (fpr - prev_fpr)) * ({{ m_sql }} - prev_fpr) + prev_tpr
                    )
                ) / 2
            else cast(0 as {{ sqlmetrics.float_type() }})
        end as area
    from points
),
areas as (
    select
        {{ sqlmetrics.slice_cols_as(by, prefix) if prefix else sqlmetrics.slice_cols(by) }}
        max(p_total) as n_pos,
        max(n_total) as n_neg,
        {{ sqlmetrics.exact_sum('area', 0) }} as area
    from segments
    {{ sqlmetrics.group_by(by) }}
),
{%- endmacro %}

{# an entry's value in the row of `areas`: the McClish standardisation of the area #}
{% macro partial_auc_value(options) -%}
{% set m = options.max_fpr | float %}
{% set m_sql = sqlmetrics.float_literal(m) %}
{% if m == 1.0 -%}
case when n_pos > 0 and n_neg > 0 then area end
{%- else -%}
case
            when n_pos > 0 and n_neg > 0
                then {{ sqlmetrics.float_literal(0.5) }} * (1 + (area - {{ sqlmetrics.float_literal(0.5 * m ** 2) }}) / ({{ m_sql }} - {{ sqlmetrics.float_literal(0.5 * m ** 2) }}))
        end
{%- endif %}
{%- endmacro %}
