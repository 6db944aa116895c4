{#
  Average ranks and the Mann-Whitney statistic, shared by auc and gauc.

  auc_rank_sums(by, groups): two CTEs over `source` (columns label 0/1, score, the slices and the
  `groups` columns):
     ranked     rank_lo = rank() = 1 + rows scored below; rank_hi = count(*) over the default
                RANGE frame = rows scored at or below (tied rows included). Their mean is the
                average rank of the row, so a tied positive/negative pair counts 1/2. One
                window order, hence one sort (measured ~4x faster than grouping by score first
                on 10M distinct scores).
     rank_sums  per slice (and group): n_pos, n_neg, rank_sum_pos = sum of the positives'
                average ranks. Counts and half-integer rank sums are exact in double below 2^53.
  auc_mann_whitney(): AUC = (rank_sum_pos - n_pos (n_pos + 1) / 2) / (n_pos n_neg), NULL for one class.
#}

{% macro auc_rank_sums(by, groups=[]) -%}
ranked as (
    select
        {{ slice_cols(by) }}{% for col in groups %}{{ col }}, {% endfor %}

        label,
        rank() over ({{ window(by, 'score', groups) }}) as rank_lo,
        count(*) over ({{ window(by, 'score', groups) }}) as rank_hi
    from source
),
rank_sums as (
    select
        {{ slice_cols(by) }}
        cast(sum(label) as {{ float_type() }}) as n_pos,
        cast(count(*) - sum(label) as {{ float_type() }}) as n_neg,
        sum(case when label = 1 then (rank_lo + rank_hi) / {{ float_literal(2) }} else 0 end) as rank_sum_pos
    from ranked
    {{ group_by(by, groups) }}
)
{%- endmacro %}

{% macro auc_mann_whitney() -%}
(rank_sum_pos - n_pos * (n_pos + 1) / 2) / nullif(n_pos * n_neg, 0)
{%- endmacro %}
