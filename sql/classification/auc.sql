{#
  auc: area under the ROC curve, as the Mann-Whitney U statistic.
     AUC = (sum_{i: label_i = 1} r_i - P (P + 1) / 2) / (P N)
  r_i: rank of score_i among all rows of the slice, ascending, tied scores sharing the mean
  of the ranks they span (average ranks), so a tied positive/negative pair counts 1/2;
  P, N: number of positive and negative rows. Equals scikit-learn's roc_auc_score.
  With weight w (sample weights, scikit-learn's sample_weight):
     AUC = sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) / (W_pos W_neg)
  computed per distinct score s as sum_s wpos_s (Wneg_{<s} + wneg_s / 2) / (W_pos W_neg).
  Formulation (unweighted): average ranks from one window sort (sql/_macros/auc.sql).
  Weighted sums use stable_sum (summands in a canonical order): shuffled input gives
  bit-identical results.
  Undefined: P = 0 or N = 0 -> NULL (NaN + UndefinedMetricWarning).
  Output: one row per slice; columns auc, n_pos, n_neg (weighted: sums of weights).
  Oracle: tests/oracle/classification.py::auc
#}
{% import "_macros/common.sql" as c %}
{% import "_macros/labels.sql" as lab %}
{% import "_macros/auc.sql" as mw %}
with source as (
    select
        {{ c.slice_source(by) }}
        {{ lab.binary_label(label, pos_label) }} as label,
        cast({{ score }} as double) as score{{ ',' if weight }}
{% if weight %}
        cast({{ weight }} as double) as w
{% endif %}
    from {{ relation }}
),
{% if not weight %}
{{ mw.rank_sums(by) }},
final as (
    select
        {{ c.slice_cols(by) }}
        {{ mw.mann_whitney() }} as auc,
        n_pos,
        n_neg
    from rank_sums
)
{% else %}
per_score as (
    select
        {{ c.slice_cols(by) }}
        score,
        {{ c.stable_sum('case when label = 1 then w else 0 end') }} as w_pos,
        {{ c.stable_sum('case when label = 0 then w else 0 end') }} as w_neg
    from source
    {{ c.group_by(by, ['score']) }}
),
ranked as (
    select
        {{ c.slice_cols(by) }}
        w_pos,
        w_neg,
        sum(w_neg) over (
            {{ c.window(by, 'score') }} rows between unbounded preceding and current row
        ) - w_neg as w_neg_below
    from per_score
),
per_slice as (
    select
        {{ c.slice_cols(by) }}
        {{ c.stable_sum('w_pos') }} as n_pos,
        {{ c.stable_sum('w_neg') }} as n_neg,
        {{ c.stable_sum('w_pos * (w_neg_below + w_neg / 2)') }} as pairs
    from ranked
    {{ c.group_by(by) }}
),
final as (
    select
        {{ c.slice_cols(by) }}
        pairs / nullif(n_pos * n_neg, 0) as auc,
        n_pos,
        n_neg
    from per_slice
)
{% endif %}
select * from final
{{ c.order_by(by) }}
