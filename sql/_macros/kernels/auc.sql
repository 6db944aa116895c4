{#
  Average ranks and the Mann-Whitney statistic, shared by auc and gauc.

  auc_rank_sums(by, groups): two CTEs over `source` (columns label 0/1, score, the slices and the
  `groups` columns):
     ranked     rank_lo = rank() = 1 + rows scored below; rank_hi = count(*) over the default
                RANGE frame = rows scored at or below (tied rows included). Their mean is the
                average rank of the row, so a tied positive/negative pair counts 1/2. One
                window order, hence one sort (measured ~4x faster than grouping by score first
                on 10M distinct scores).
     rank_sums  per slice (and group): n_pos, n_neg and u2 = 2 U = sum over the positives of
                (rank_lo + rank_hi) - n_pos (n_pos + 1), twice the Mann-Whitney U: an exact
                integer sum (int_sum: a bigint sum of ranks overflows past about 3e9 rows; no
                per-row halving, no float partial sums: past 2^53, about 1e8 rows, a double sum
                of rank terms would round in an order that depends on the threads), cast to
                double once. Every sum of label here goes through int_sum: DataFusion names
                sum(cast(label as decimal)) and sum(label) alike and refuses both in one select
                (tests/test_datafusion.py).
  With m (a count column of `source`, merge's states read as they are: each row stands for m
  rows): rank_hi = sum(m) over the same frame, rank_lo = rank_hi - sum(m) of the row's tied
  peers + 1, and every count and rank term times m: the same integers as over the m copies.
  auc_mann_whitney(): AUC = u2 / 2 / (n_pos n_neg), NULL for one class; the same expression as
  spark__auc_kernel's, so the engines give the same bits.
#}

{% macro auc_rank_sums(by, groups=[], m=none) -%}
ranked as (
    select
        {{ sqlmetrics.slice_cols(by) }}{% for col in groups %}{{ col }}, {% endfor %}

        label,
{% if m %}
        {{ m }} as m,
        sum({{ m }}) over ({{ sqlmetrics.window(by, 'score', groups) }}) - sum({{ m }}) over ({{ sqlmetrics.partition_by(by, groups + [sqlmetrics.float_key('score')]) }}) + 1 as rank_lo,
        sum({{ m }}) over ({{ sqlmetrics.window(by, 'score', groups) }}) as rank_hi
{% else %}
        rank() over ({{ sqlmetrics.window(by, 'score', groups) }}) as rank_lo,
        count(*) over ({{ sqlmetrics.window(by, 'score', groups) }}) as rank_hi
{% endif %}
    from source
),
rank_sums as (
{% set pos = sqlmetrics.int_sum('label * m' if m else 'label') %}
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast({{ pos }} as {{ sqlmetrics.float_type() }}) as n_pos,
        cast({{ sqlmetrics.int_sum('m') if m else 'count(*)' }} - {{ pos }} as {{ sqlmetrics.float_type() }}) as n_neg,
        cast(
            {{ sqlmetrics.int_sum('case when label = 1 then ' ~ ('m * ' if m else '') ~ '(rank_lo + rank_hi) else 0 end' if m else 'case when label = 1 then rank_lo + rank_hi else 0 end') }} - {{ pos }} * ({{ pos }} + 1)
            as {{ sqlmetrics.float_type() }}
        ) as u2
    from ranked
    {{ sqlmetrics.group_by(by, groups) }}
)
{%- endmacro %}

{% macro auc_mann_whitney() -%}
u2 / 2 / nullif(n_pos * n_neg, 0)
{%- endmacro %}

{#
  auc_pooled_rank_sums(source, by): the CTEs `ranked` and `per_part` of multiclass_auc's
  pooled (micro) AUC over `source` (slices, s, y 0/1): per slice r = the sum of the
  positives' average ranks in ascending s (ties: the mean of their positions), p, n = the
  positive and negative rows, as doubles (multiclass_auc_ranked / multiclass_auc_per_part
  with no partition column, sql/multiclass/multiclass_auc.sql).
  Spark: the rows of a score s hold positions cnt_before + 1 .. cnt_before + cnt, average
  (2 cnt_before + cnt + 1) / 2, cnt_before = rows of lower score: a running count over
  score buckets (auc_prefixed); 2 r is an exact integer sum, so r is the default's value.
#}
{% macro auc_pooled_rank_sums(source, by) -%}
{{ adapter.dispatch('auc_pooled_rank_sums', 'sqlmetrics')(source, by) }}
{%- endmacro %}

{% macro default__auc_pooled_rank_sums(source, by) -%}
ranked as (
{{ sqlmetrics.multiclass_auc_ranked(source, by, []) }}
),
per_part as (
{{ sqlmetrics.multiclass_auc_per_part(by, []) }}
)
{%- endmacro %}

{% macro spark__auc_pooled_rank_sums(source, by) -%}
pooled_scores as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        s as score,
        sum(y) as pos,
        count(*) as cnt
    from {{ source }}
    {{ sqlmetrics.group_by(by, ['s']) }}
),
{{ sqlmetrics.auc_prefixed('pooled_scores', by, ['cnt']) }},
per_part as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        cast(sum(cast(pos as {{ sqlmetrics.exact_int() }}) * (2 * cnt_before + cnt + 1)) as {{ sqlmetrics.float_type() }}) / 2 as r,
        cast(sum(pos) as {{ sqlmetrics.float_type() }}) as p,
        cast(sum(cnt) - sum(pos) as {{ sqlmetrics.float_type() }}) as n
    from prefixed
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{#
  Distributed running sums over the distinct scores of a slice (the spark__ kernels of auc,
  auc_bounds, the curves and average_precision). On Spark a window without `partition by`
  moves every row into one partition; these macros never do that with row-level data:
    1. the caller aggregates per (slice, score) first: a partitioned aggregate, ties collapse;
    2. `bucket_bounds`: per slice, auc_n_buckets() - 1 approximate quantiles of a sample of
       the distinct scores (percentile_approx, itself a partial + final aggregate);
       `bucketed`: each distinct score gets bucket = number of bounds below it (a binary
       search written out as nested `case`, log2(buckets) comparisons), non-decreasing in
       the score, so tied scores share a bucket and a bucket holds a run of consecutive
       scores (auc_row_buckets, below);
    3. `bucket_totals`: the sums per (slice, bucket): at most auc_n_buckets() rows per slice;
       `bucket_prefix`: running sums over those buckets (a window over the small table);
    4. `prefixed`: the caller's rows plus, for each column c of `sums`,
          c_before = sum of c over the scores strictly before this one in the order
                   = (sum over the earlier buckets) + (running sum inside the bucket,
                     `partition by slices, bucket`),
          c_total  = sum of c over the slice,
       for each column m of `maxes`, m_max = max |m| over the slice, and for each column f of
       `firsts`, f_next = f of the first score of the next non-empty bucket (NULL for the
       last bucket), has_prev_bucket = whether an earlier non-empty bucket exists.
  The bounds only decide where the work is split, never a value: every `sums` column must
  be an integer (counts, or weights in fixed point), so the sums are exact, and the results
  are the same whatever the bounds, the partitioning or the row order.
  `table` must hold one row per (slice, score); `order`: 'asc' or 'desc'.
#}
{% macro auc_n_buckets() -%}
64
{%- endmacro %}

{# count of q[lo..hi-1] (0-based, sorted) strictly below `value`, known to lie in [lo, hi] #}
{% macro auc_bucket_search(q, value, lo, hi) -%}
{% if lo == hi %}{{ lo }}{% else %}
{% set mid = (lo + hi + 1) // 2 %}
case when {{ q }}[{{ mid - 1 }}] < {{ value }} then {{ sqlmetrics.auc_bucket_search(q, value, mid, hi) }} else {{ sqlmetrics.auc_bucket_search(q, value, lo, mid - 1) }} end
{%- endif %}
{%- endmacro %}

{# `slice_0 is not distinct from p_slice_0 and ...` (a NULL slice is a slice) #}
{% macro auc_join_slices(by, prefix) -%}
{% for col in by %}{{ sqlmetrics.null_safe_equal("slice_" ~ loop.index0, prefix ~ "slice_" ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}
{%- endmacro %}

{% macro auc_prefixed(table, by, sums, maxes=[], firsts=[], order='asc') -%}
{% set bucket_order = 'bucket ' ~ order %}
{{ sqlmetrics.auc_row_buckets(table, by, 'bucket_bounds', 'bucketed') }},
bucket_totals as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bucket,
{% for c in sums %}
        sum({{ c }}) as {{ c }}_b,
{% endfor %}
{% for m in maxes %}
        max(abs({{ m }})) as {{ m }}_b_max,
{% endfor %}
{% for f in firsts %}
        {{ 'max_by' if order == 'desc' else 'min_by' }}({{ f }}, score) as {{ f }}_first,
{% endfor %}
        count(*) as n_scores
    from bucketed
    {{ sqlmetrics.group_by(by, ['bucket']) }}
),
bucket_prefix as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as p_slice_{{ loop.index0 }}, {% endfor %}

        bucket as p_bucket,
{% for c in sums %}
        coalesce(sum({{ c }}_b) over (
            {{ sqlmetrics.window(by, bucket_order) }} rows between unbounded preceding and 1 preceding
        ), 0) as {{ c }}_before_bucket,
        sum({{ c }}_b) over ({{ sqlmetrics.partition_by(by) }}) as {{ c }}_total,
{% endfor %}
{% for m in maxes %}
        max({{ m }}_b_max) over ({{ sqlmetrics.partition_by(by) }}) as {{ m }}_max,
{% endfor %}
{% for f in firsts %}
        {{ sqlmetrics.lead_or_null(f ~ '_first', by, bucket_order) }} as {{ f }}_next,
{% endfor %}
        row_number() over ({{ sqlmetrics.window(by, bucket_order) }}) > 1 as has_prev_bucket
    from bucket_totals
),
prefixed as (
    select {{ sqlmetrics.auc_broadcast('bucket_prefix') }}
        bucketed.*,
{% for c in sums %}
        {{ c }}_before_bucket + coalesce(sum({{ c }}) over (
            {{ sqlmetrics.window(by, 'score ' ~ order, ['bucket']) }} rows between unbounded preceding and 1 preceding
        ), 0) as {{ c }}_before,
        {{ c }}_total,
{% endfor %}
{% for m in maxes %}
        {{ m }}_max,
{% endfor %}
{% for f in firsts %}
        {{ f }}_next,
{% endfor %}
        has_prev_bucket
    from bucketed
    join bucket_prefix
        on {{ sqlmetrics.auc_join_slices(by, 'p_') }}{{ ' and ' if by }}bucket = p_bucket
)
{%- endmacro %}

{#
  auc_broadcast(name): on Spark a broadcast hint for the small per-slice or per-bucket table
  `name` joined to row-level data: joined by a shuffle on the slice columns instead, every row
  of a slice would meet in one partition. Empty elsewhere.
#}
{% macro auc_broadcast(name) -%}
{{ adapter.dispatch('auc_broadcast', 'sqlmetrics')(name) }}
{%- endmacro %}

{% macro default__auc_broadcast(name) -%}
{%- endmacro %}

{% macro spark__auc_broadcast(name) -%}
/*+ BROADCAST({{ name }}) */
{%- endmacro %}

{# the exponent sum_exponent computes, of an aggregate already taken (no window): ceil(log2 x) #}
{% macro auc_exponent(x) -%}
nullif(least(ceil(ln(nullif({{ x }}, 0)) / ln({{ sqlmetrics.float_literal(2) }})), 2000), 2000)
{%- endmacro %}

{#
  auc_row_buckets(table, by, bounds, bucketed): the rows of `table` (slice_.., score, ...) cut
  into score buckets without a window over a slice (step 2 of auc_prefixed; the unweighted
  spark__auc_kernel's row-level buckets); `bounds` and `bucketed` name the two CTEs:
    `bounds`: per slice, auc_n_buckets() - 1 approximate quantiles of the scores of a random
    1/auc_sample_every() of the rows (percentile_approx with relative error 1/1000: the
    bounds only need to split the rows into buckets of roughly equal size, and a sample costs
    a filter instead of a quantile sketch of every row; measured in benchmarks/RESULTS.md);
    `bucketed`: every row of `table` plus bucket = number of bounds strictly below its score
    (non-decreasing in the score: tied scores share a bucket, a bucket holds a run of
    consecutive scores, and every score of bucket k is above every score of bucket k - 1).
    A slice without a sampled row has no bounds: its rows all go to bucket 0 (left join,
    NULL comparisons are false).
  The bounds only decide where the work is split, never a value: the sample (rand with a
  fixed seed, so the same for the same input partitions) may differ between runs, the
  results may not.
#}
{% macro auc_sample_every() -%}
64
{%- endmacro %}

{#
  auc_quantiles(x, n): the array of the n - 1 approximate quantiles 1/n, ..., (n-1)/n of x
  (an aggregate): Spark's percentile_approx takes the array of percentages at once, one
  sketch; Sail's takes one percentage, so it gets n - 1 aggregates (its bounds interpolate
  between values where Spark's are values: the bounds decide no value, see above).
#}
{% macro auc_quantiles(x, n) -%}
{{ adapter.dispatch('auc_quantiles', 'sqlmetrics')(x, n) }}
{%- endmacro %}

{% macro default__auc_quantiles(x, n) -%}
percentile_approx(
            {{ x }},
            array({% for i in range(1, n) %}{{ sqlmetrics.float_literal(i / n) }}{{ ', ' if not loop.last }}{% endfor %}),
            1000
        )
{%- endmacro %}

{% macro sail__auc_quantiles(x, n) -%}
array({% for i in range(1, n) %}percentile_approx({{ x }}, {{ sqlmetrics.float_literal(i / n) }}, 1000){{ ', ' if not loop.last }}{% endfor %})
{%- endmacro %}

{% macro auc_row_buckets(table, by, bounds='row_bounds', bucketed='row_bucketed') -%}
{% set n = sqlmetrics.auc_n_buckets() | int %}
{{ bounds }} as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as q_slice_{{ loop.index0 }}, {% endfor %}

        {{ sqlmetrics.auc_quantiles('score', n) }} as q
    from {{ table }}
    where rand(0) * {{ sqlmetrics.auc_sample_every() }} < 1
    {{ sqlmetrics.group_by(by) }}
),
{{ bucketed }} as (
    select {{ sqlmetrics.auc_broadcast(bounds) }}
        {{ table }}.*,
        {{ sqlmetrics.auc_bucket_search('q', 'score', 0, n - 1) }} as bucket
    from {{ table }}
{% if by %}
    left join {{ bounds }} on {{ sqlmetrics.auc_join_slices(by, 'q_') }}
{% else %}
    cross join {{ bounds }}
{% endif %}
)
{%- endmacro %}
