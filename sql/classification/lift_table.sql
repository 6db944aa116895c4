{#
  lift_table: the lift / cumulative gains table of a binary score by score quantile bins
  (deciles by default), rows ordered by score, highest first.
  Bin of a row: b = 1 + floor(n_bins * r / n), r = the number of rows of the slice with a
  strictly higher score (rank() - 1), n = rows in the slice. Rows of equal score therefore
  share a bin (ties are never split), the bins hold n / n_bins rows each when scores are
  distinct, and a bin can be empty (left out) when ties are heavy.
  Per bin b:
     n_b, n_pos_b (rows with label 1), min_score, max_score
     response_rate = n_pos_b / n_b
     lift          = response_rate / (P / n)                    (P: positives in the slice)
     cumulative_n, cumulative_pos: over bins 1 .. b
     gain          = cumulative_pos / P                         (cumulative capture rate)
     cumulative_lift = (cumulative_pos / cumulative_n) / (P / n)
  Undefined: no positive label in the slice (P = 0) -> lift, gain and cumulative_lift NULL
  (NaN + UndefinedMetricWarning).
  Counts are integers (exact); the running sums run over the bins in order.
  On Spark (spark__lift_table_per_bin) r is not a rank over the slice's rows (a window that
  moves every row of a slice into one partition): r = rows of higher score, a running count
  over the slice's distinct scores in descending order, distributed by score buckets
  (auc_prefixed, sql/_macros/kernels/auc.sql); the same integers, so the same bins and values.
  Output: one row per slice and non-empty bin, ordered by slices then bin: bin, n, n_pos,
  min_score, max_score, response_rate, lift, cumulative_n, cumulative_pos, gain,
  cumulative_lift.
  Oracle: tests/oracle/separation.py::lift_table
#}
{% macro lift_table_kernel(relation, by, columns, options, entries) -%}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as s
    from {{ relation }}
),
{{ sqlmetrics.lift_table_per_bin(by, options) }},
cumulated as (
    select
        per_bin.*,
        sum(n) over ({{ sqlmetrics.window(by, 'bin') }} rows between unbounded preceding and current row) as cumulative_n,
        sum(n_pos) over ({{ sqlmetrics.window(by, 'bin') }} rows between unbounded preceding and current row) as cumulative_pos
    from per_bin
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bin,
        n,
        n_pos,
        min_score,
        max_score,
        {{ sqlmetrics.safe_div('n_pos', 'n') }} as response_rate,
        {{ sqlmetrics.safe_div(sqlmetrics.safe_div('n_pos', 'n'), sqlmetrics.safe_div('p_slice', 'n_slice')) }} as lift,
        cumulative_n,
        cumulative_pos,
        {{ sqlmetrics.safe_div('cumulative_pos', 'p_slice') }} as gain,
        {{ sqlmetrics.safe_div(sqlmetrics.safe_div('cumulative_pos', 'cumulative_n'), sqlmetrics.safe_div('p_slice', 'n_slice')) }} as cumulative_lift
    from cumulated
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}bin
{%- endmacro %}


{# the `per_bin` CTE (and those before it) of lift_table, after `source` #}
{% macro lift_table_per_bin(by, options) -%}
{{ adapter.dispatch('lift_table_per_bin', 'sqlmetrics')(by, options) }}
{%- endmacro %}

{% macro default__lift_table_per_bin(by, options) -%}
ranked as (
    select
        source.*,
        rank() over ({{ sqlmetrics.window(by, 's desc') }}) - 1 as higher,
        count(*) over ({{ sqlmetrics.partition_by(by) }}) as n_slice,
        sum(label) over ({{ sqlmetrics.partition_by(by) }}) as p_slice
    from source
),
binned as (
    select
        ranked.*,
        1 + cast(floor(cast(higher * {{ options.n_bins }} as {{ sqlmetrics.float_type() }}) / cast(n_slice as {{ sqlmetrics.float_type() }})) as integer) as bin
    from ranked
),
per_bin as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bin,
        count(*) as n,
        sum(label) as n_pos,
        min(s) as min_score,
        max(s) as max_score,
        max(n_slice) as n_slice,
        max(p_slice) as p_slice
    from binned
    {{ sqlmetrics.group_by(by, ['bin']) }}
)
{%- endmacro %}

{% macro spark__lift_table_per_bin(by, options) -%}
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        s as score,
        count(*) as cnt,
        sum(label) as pos
    from source
    {{ sqlmetrics.group_by(by, ['s']) }}
),
{{ sqlmetrics.auc_prefixed('per_score', by, ['cnt', 'pos'], [], [], 'desc') }},
binned as (
    select
        prefixed.*,
        1 + cast(floor(cast(cnt_before * {{ options.n_bins }} as {{ sqlmetrics.float_type() }}) / cast(cnt_total as {{ sqlmetrics.float_type() }})) as integer) as bin
    from prefixed
),
per_bin as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bin,
        sum(cnt) as n,
        sum(pos) as n_pos,
        min(score) as min_score,
        max(score) as max_score,
        max(cnt_total) as n_slice,
        max(pos_total) as p_slice
    from binned
    {{ sqlmetrics.group_by(by, ['bin']) }}
)
{%- endmacro %}
