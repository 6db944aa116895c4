{#
  Shared pieces of the calibration family (expected_calibration_error, calibration_curve).

  calibration_source(relation, by, columns, options): the `source` CTE body: slices, the label
  as 0/1 (binary_label), the probability p and the weight w (1 without a weight column).

  calibration_binned_ctes(by, options, weighted): CTEs (each followed by a comma) ending in
  `binned` (slices, label, p, w, bin, bin_lower, bin_upper), after a CTE `source`.
  The bin edges are scikit-learn's calibration_curve's, exactly:
    uniform:  e_i = i * (1 / n_bins) in double (numpy.linspace(0, 1, n_bins + 1)), e_0 = 0,
              e_n = 1;
    quantile: e_i = numpy.percentile(p, 100 q_i) (method "linear", unweighted) with
              q_i = i * (1 / n_bins): v = q_i (n - 1), j = floor(v), g = v - j,
              e_i = a + (b - a) g if g < 0.5 else b - (b - a)(1 - g), a, b the values at
              sorted positions j, min(j + 1, n - 1) (numpy's _lerp); e_0 = min p, e_n = max p.
  A row's bin is numpy.searchsorted(inner edges, p, "left") = #{1 <= i < n_bins : e_i < p}, so
  p on an edge falls in the lower bin; bins are numbered 0 .. n_bins - 1. Repeated quantile
  edges leave bins empty. The quantile edges read the value at a sorted position: rows tied on
  p share that value, so the row order among ties cannot change it.
  counted (columns.multiplicity, merge's count per state row: a column m of `source`): binned
  carries m, a row holds the sorted positions pos .. pos + m - 1 (pos the rows of lower p
  before it: a running sum of m), and calibration_per_bin_ctes(by, weighted, counted) sums
  each row m times (integer sums times m, exact_sum with m): the same edges and integers as
  over the rows replayed, so the same bits.
#}
{% macro calibration_source(relation, by, columns, options) -%}
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as p,
{% if columns.get('multiplicity') %}
        {{ columns.multiplicity }} as m,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' }} as w
    from {{ relation }}
{%- endmacro %}

{# numpy.linspace(0, 1, n + 1)[i] as SQL: i * (1 / n) in double #}
{% macro calibration_uniform_edge(i, n_bins) -%}
cast({{ i }} as {{ sqlmetrics.float_type() }}) * (cast(1 as {{ sqlmetrics.float_type() }}) / cast({{ n_bins }} as {{ sqlmetrics.float_type() }}))
{%- endmacro %}

{# numpy's _lerp(a, b, g) #}
{% macro calibration_lerp(a, b, g) -%}
case when {{ g }} >= {{ sqlmetrics.float_literal(0.5) }} then {{ b }} - ({{ b }} - {{ a }}) * (1 - {{ g }}) else {{ a }} + ({{ b }} - {{ a }}) * {{ g }} end
{%- endmacro %}

{% macro calibration_join_on(left, right, by) -%}
{% if by %}{% for col in by %}{{ sqlmetrics.null_safe_equal(left ~ '.slice_' ~ loop.index0, right ~ '.slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}{% else %}1 = 1{% endif %}
{%- endmacro %}

{% macro calibration_binned_ctes(by, options, counted=false) -%}
{% set n = options.n_bins %}
{% if options.strategy == 'uniform' %}
candidate as (
    select
        source.*,
        least(greatest(cast(floor(p * {{ n }}) as integer), 0), {{ n - 1 }}) as c
    from source
),
binned as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        label,
        p,
        w,
{% if counted %}
        m,
{% endif %}
        bin,
        case when bin = 0 then cast(0 as {{ sqlmetrics.float_type() }}) else {{ sqlmetrics.calibration_uniform_edge('bin', n) }} end as bin_lower,
        case when bin = {{ n - 1 }} then cast(1 as {{ sqlmetrics.float_type() }}) else {{ sqlmetrics.calibration_uniform_edge('bin + 1', n) }} end as bin_upper
    from (
        select
            candidate.*,
            c
                - case when c >= 1 and {{ sqlmetrics.calibration_uniform_edge('c', n) }} >= p then 1 else 0 end
                + case when c + 1 <= {{ n - 1 }} and {{ sqlmetrics.calibration_uniform_edge('c + 1', n) }} < p then 1 else 0 end
                as bin
        from candidate
    ) as assigned
),
{% else %}
{{ sqlmetrics.calibration_quantile_edges(by, n, counted) }},
edge_values as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for i in range(1, n) %}
        case when a_{{ i }} = b_{{ i }} then a_{{ i }} else {{ sqlmetrics.calibration_lerp('a_' ~ i, 'b_' ~ i, 'g_' ~ i) }} end as e_{{ i }},
{% endfor %}
        e_0,
        e_{{ n }}
    from edges
),
assigned as (
    select {{ sqlmetrics.auc_broadcast('edge_values') }}
        {% for col in by %}source.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}
        source.label as label,
        source.p as p,
        source.w as w,
{% if counted %}
        source.m as m,
{% endif %}
        0{% for i in range(1, n) %} + case when edge_values.e_{{ i }} < source.p then 1 else 0 end{% endfor %} as bin,
{% for i in range(0, n + 1) %}
        edge_values.e_{{ i }}{{ ',' if not loop.last }}
{% endfor %}
    from source
    inner join edge_values on {{ sqlmetrics.calibration_join_on('source', 'edge_values', by) }}
),
binned as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        label,
        p,
        w,
{% if counted %}
        m,
{% endif %}
        bin,
        case bin{% for i in range(0, n) %} when {{ i }} then e_{{ i }}{% endfor %} end as bin_lower,
        case bin{% for i in range(0, n) %} when {{ i }} then e_{{ i + 1 }}{% endfor %} end as bin_upper
    from assigned
),
{% endif %}
{%- endmacro %}

{#
  per_bin: sums per slice and bin, exact_sum for the float sums (decision 0006): w_sum, wp_sum
  (sum w p), wy_sum (sum w label), n_rows; `weighted` false: w = 1, counts are integers and
  p in [0, 1] needs no exponent window.
  calibration_bin_exponents(by): the CTE `scaled` of the weighted per_bin: binned plus wp,
  wy and the exponents of w, wp, wy per (slice, bin). The default takes them by windows
  over the rows of each bin; on Spark (where such a window moves every row of a bin into
  one partition) they are a per-(slice, bin) aggregate joined back (broadcast, at most
  n_bins rows per slice): the same exponents, so the same bits.
#}
{% macro calibration_per_bin_ctes(by, weighted, counted=false) -%}
{% set m = 'm' if counted else none %}
{% if weighted %}
{{ sqlmetrics.calibration_bin_exponents(by) }},
per_bin as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bin,
        min(bin_lower) as bin_lower,
        min(bin_upper) as bin_upper,
        {{ 'sum(m)' if counted else 'count(*)' }} as n_rows,
        {{ sqlmetrics.exact_sum('w', 'w_exp', m) }} as w_sum,
        {{ sqlmetrics.exact_sum('wp', 'wp_exp', m) }} as wp_sum,
        {{ sqlmetrics.exact_sum('wy', 'wy_exp', m) }} as wy_sum
    from scaled
    {{ sqlmetrics.group_by(by, ['bin']) }}
),
{% else %}
per_bin as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        bin,
        min(bin_lower) as bin_lower,
        min(bin_upper) as bin_upper,
{% if counted %}
        sum(m) as n_rows,
        cast(sum(m) as {{ sqlmetrics.float_type() }}) as w_sum,
        {{ sqlmetrics.exact_sum('p', 0, m) }} as wp_sum,
        cast(sum(label * m) as {{ sqlmetrics.float_type() }}) as wy_sum
{% else %}
        count(*) as n_rows,
        cast(count(*) as {{ sqlmetrics.float_type() }}) as w_sum,
        {{ sqlmetrics.exact_sum('p', 0) }} as wp_sum,
        cast(sum(label) as {{ sqlmetrics.float_type() }}) as wy_sum
{% endif %}
    from binned
    {{ sqlmetrics.group_by(by, ['bin']) }}
),
{% endif %}
{%- endmacro %}


{% macro calibration_quantile_edges(by, n, counted=false) -%}
{{ adapter.dispatch('calibration_quantile_edges', 'sqlmetrics')(by, n, counted) }}
{%- endmacro %}

{% macro default__calibration_quantile_edges(by, n, counted=false) -%}
{% if counted %}
-- each row stands for m rows: it holds the sorted positions pos .. pos + m - 1
positioned as (
    select
        source.*,
        sum(m) over ({{ sqlmetrics.window(by, 'p') }} rows between unbounded preceding and current row) - m as pos,
        sum(m) over ({{ sqlmetrics.partition_by(by) }}) as n_slice
    from source
),
{% else %}
positioned as (
    select
        source.*,
        row_number() over ({{ sqlmetrics.window(by, 'p') }}) - 1 as pos,
        count(*) over ({{ sqlmetrics.partition_by(by) }}) as n_slice
    from source
),
{% endif %}
located as (
    select
        positioned.*,
{% for i in range(1, n) %}
{% set q = (i * (1.0 / n)) * 100 / 100 %}
        {{ sqlmetrics.float_literal(q) }} * (n_slice - 1) as v_{{ i }}{{ ',' if not loop.last }}
{% endfor %}
{% if n == 1 %}
        0 as no_inner_edge
{% endif %}
    from positioned
),
edges as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for i in range(1, n) %}
{% if counted %}
        max(case when least(floor(v_{{ i }}), cast(n_slice - 1 as {{ sqlmetrics.float_type() }})) between pos and pos + m - 1 then p end) as a_{{ i }},
        max(case when least(floor(v_{{ i }}) + 1, cast(n_slice - 1 as {{ sqlmetrics.float_type() }})) between pos and pos + m - 1 then p end) as b_{{ i }},
{% else %}
        max(case when pos = least(floor(v_{{ i }}), cast(n_slice - 1 as {{ sqlmetrics.float_type() }})) then p end) as a_{{ i }},
        max(case when pos = least(floor(v_{{ i }}) + 1, cast(n_slice - 1 as {{ sqlmetrics.float_type() }})) then p end) as b_{{ i }},
{% endif %}
        max(v_{{ i }} - floor(v_{{ i }})) as g_{{ i }},
{% endfor %}
        min(p) as e_0,
        max(p) as e_{{ n }}
    from located
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{% macro spark__calibration_quantile_edges(by, n, counted=false) -%}
per_value as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        p as score,
        {{ 'sum(m)' if counted else 'count(*)' }} as cnt
    from source
    {{ sqlmetrics.group_by(by, ['p']) }}
),
{{ sqlmetrics.auc_prefixed('per_value', by, ['cnt']) }},
located as (
    select
        prefixed.*{% for i in range(1, n) %},
{% set q = (i * (1.0 / n)) * 100 / 100 %}
        {{ sqlmetrics.float_literal(q) }} * (cnt_total - 1) as v_{{ i }}
{%- endfor %}

    from prefixed
),
edges as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for i in range(1, n) %}
        max(case when least(floor(v_{{ i }}), cnt_total - 1) between cnt_before and cnt_before + cnt - 1 then score end) as a_{{ i }},
        max(case when least(floor(v_{{ i }}) + 1, cnt_total - 1) between cnt_before and cnt_before + cnt - 1 then score end) as b_{{ i }},
        max(v_{{ i }} - floor(v_{{ i }})) as g_{{ i }},
{% endfor %}
        min(score) as e_0,
        max(score) as e_{{ n }}
    from located
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}


{% macro calibration_bin_exponents(by) -%}
{{ adapter.dispatch('calibration_bin_exponents', 'sqlmetrics')(by) }}
{%- endmacro %}

{% macro default__calibration_bin_exponents(by) -%}
scaled as (
    select
        binned.*,
        w * p as wp,
        w * label as wy,
        {{ sqlmetrics.sum_exponent('w', by, ['bin']) }} as w_exp,
        {{ sqlmetrics.sum_exponent('w * p', by, ['bin']) }} as wp_exp,
        {{ sqlmetrics.sum_exponent('w * label', by, ['bin']) }} as wy_exp
    from binned
)
{%- endmacro %}

{% macro spark__calibration_bin_exponents(by) -%}
bin_exponents as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as e_slice_{{ loop.index0 }}, {% endfor %}

        bin as e_bin,
        {{ sqlmetrics.auc_exponent('max(abs(w))') }} as w_exp,
        {{ sqlmetrics.auc_exponent('max(abs(w * p))') }} as wp_exp,
        {{ sqlmetrics.auc_exponent('max(abs(w * label))') }} as wy_exp
    from binned
    {{ sqlmetrics.group_by(by, ['bin']) }}
),
scaled as (
    select {{ sqlmetrics.auc_broadcast('bin_exponents') }}
        binned.*,
        w * p as wp,
        w * label as wy,
        w_exp,
        wp_exp,
        wy_exp
    from binned
    join bin_exponents
        on {{ sqlmetrics.auc_join_slices(by, 'e_') }}{{ ' and ' if by }}bin = e_bin
)
{%- endmacro %}
