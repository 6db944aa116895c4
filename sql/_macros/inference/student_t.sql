{#
  Student's t-test p-value in SQL: the paired t-test of sqlmetrics.compare (test='t': ranking
  metrics and GAUC over per-group differences, the losses over per-row differences), computed
  as sqlmetrics/_inference/compare.py::_t_result and stats.py::t_two_sided_p compute it, step
  for step, so that a query needs no Python for its p-value (the dbt gate champion_challenger).

  compare_t_p(sums, n_by): `sums` is a statement with slice_0..slice_{n_by-1}, d (the mean
  difference), ss (the weighted sum of squared deviations), n (the number of pairs) and sw
  (the sum of weights); compare_groups gives them per (slice, metric, model), compare_losses
  their ingredients. Output: the slices and p_value, one row per input row:
     se = sqrt(max(ss, 0) n / (n - 1)) / sw, t = d / se, df = n - 1;
     p = NULL for n < 2; 1 if se = 0 and d = 0, 0 if se = 0 and d != 0;
     else p = 2 P(T_df > |t|) = I_x(df/2, 1/2), x = df / (df + t^2), by the regularized
     incomplete beta function exactly as stats.py evaluates it: the side of the switch point
     x < (a + 1) / (a + 2.5) (a = df / 2) picks I_x(a, 1/2) / 2 or 1/2 - I_y(1/2, a) / 2
     (y = t^2 / (df + t^2)); betainc's own switch, its front factor
     exp(A ln X + B log1p(-X) - ln B(A, B)), ln B(a, 1/2) from exact factorial ratios below
     df = 20 and from stats.py's Stirling form above, and the continued fraction by modified
     Lentz's method (Numerical Recipes' betacf: the same recurrence, guard 1e-300, stop when
     |delta - 1| < 1e-16, at most 100000 steps) in a recursive CTE, one half-step per row
     (fewer than 100 rows per slice for every df and t).
  log1p is a Horner series below 0.05 (ln(1 - X) above it, exact there where it matters).
  Guards that keep PostgreSQL's float checks quiet: |t| < 1e-17 gives p = 1 (its true value
  rounds to 1), |t| > 1e150 gives p = 0 (the true value is below 1e-140), a front factor
  below exp(-700) counts 0 (a p-value below 1e-300).
  Agreement with t_two_sided_p: tests/test_student_t.py, on DuckDB and PostgreSQL (the
  engines the dbt gates are tested on; Spark's SQL is not run here: it needs WITH RECURSIVE).
#}

{% macro compare_t_p(sums, n_by) -%}
{%- set f = sqlmetrics.float_type() -%}
{%- set slices -%}{% for i in range(n_by) %}slice_{{ i }}, {% endfor %}{%- endset -%}
with recursive
t_stat as (
    select
        {{ slices }}
        n,
        d,
        case when n >= 2 then sqrt(case when ss > 0 then ss else {{ sqlmetrics.float_literal(0) }} end * n / (n - 1)) / sw end as se
    from (
{{ sums | indent(8, true) }}
    ) as t_sums
),
t_value as (
    select
        t_stat.*,
        case when se > 0 then abs(d / se) end as abs_t,
        cast(n - 1 as {{ f }}) as df
    from t_stat
),
{{ sqlmetrics.compare_t_beta(slices) }}
{{ sqlmetrics.compare_t_lentz(slices) }}
t_tail as (
    select
        {{ slices }}
        side,
        case when swap then 1.0e0 - front * h / p else front * h / p end as i_x
    from t_fraction
    where done
)
select
    {{ slices }}
    case
        when n < 2 then null
        when se = 0 or se is null then case when d = 0 then {{ sqlmetrics.float_literal(1) }} else {{ sqlmetrics.float_literal(0) }} end
        when abs_t < 1e-17 then {{ sqlmetrics.float_literal(1) }}
        when abs_t > 1e150 then {{ sqlmetrics.float_literal(0) }}
        else 2.0e0 * (select case when t_tail.side = 1 then 0.5e0 * t_tail.i_x else 0.5e0 - 0.5e0 * t_tail.i_x end from t_tail where {% for i in range(n_by) %}{{ sqlmetrics.null_safe_equal('t_tail.slice_' ~ i, 't_value.slice_' ~ i) }} and {% endfor %}true)
    end as p_value
from t_value
{%- endmacro %}

{#- log1p(u) for |u| <= 0.05 by its Taylor series (Horner, 18 terms: below 1e-22 relative) -#}
{% macro compare_log1p_series(u) -%}
{%- set ns = namespace(text='') -%}
{%- for k in range(18, 0, -1) -%}
{%- set coef = sqlmetrics.float_literal((1 if k % 2 == 1 else -1) / k) -%}
{%- set ns.text = coef if k == 18 else '(' ~ coef ~ ' + ' ~ u ~ ' * ' ~ ns.text ~ ')' -%}
{%- endfor -%}
({{ u }} * {{ ns.text }})
{%- endmacro %}

{#- stats.py's _stirling_tail(x): lgamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2), x >= 10 -#}
{% macro compare_stirling_tail(x) -%}
{%- set r = '(1.0e0 / (' ~ x ~ ' * ' ~ x ~ '))' -%}
(({{ sqlmetrics.float_literal(1 / 12) }} - {{ r }} * ({{ sqlmetrics.float_literal(1 / 360) }} - {{ r }} * ({{ sqlmetrics.float_literal(1 / 1260) }} - {{ r }} * ({{ sqlmetrics.float_literal(1 / 1680) }} - {{ r }} / 1188.0e0)))) / {{ x }})
{%- endmacro %}

{#- Lentz's guard: a value whose magnitude is at most 1e-300 becomes 1e-300 -#}
{% macro compare_lentz_guard(v) -%}
(case when abs({{ v }}) > {{ sqlmetrics.float_literal(1e-300) }} then {{ v }} else {{ sqlmetrics.float_literal(1e-300) }} end)
{%- endmacro %}

{#- the incomplete beta function's arguments, front factor and fraction arguments per slice
    (compare_t_p's stages t_args .. t_fraction_args) -#}
{% macro compare_t_beta(slices) -%}
{#- ln B(df/2, 1/2) for df < 20 from exact ratios of factorials: df = 2m: (m-1)! m! 4^m / (2m)!,
    df = 2m + 1: pi (2m)! / (4^m m!^2) -#}
{%- set small_beta = [] -%}
{%- for df in range(1, 20) -%}
{%- set m = df // 2 -%}
{%- set fact = namespace(m=1, m1=1, m2=1) -%}
{%- for i in range(1, 2 * m + 1) -%}
{%- set fact.m2 = fact.m2 * i -%}
{%- if i <= m -%}{%- set fact.m = fact.m * i -%}{%- endif -%}
{%- if i <= m - 1 -%}{%- set fact.m1 = fact.m1 * i -%}{%- endif -%}
{%- endfor -%}
{%- if df % 2 == 0 -%}
{%- set ratio = (fact.m1 * fact.m * 4 ** m) / fact.m2 -%}
{%- else -%}
{%- set ratio = 3.141592653589793 * (fact.m2 / (4 ** m * fact.m * fact.m)) -%}
{%- endif -%}
{%- do small_beta.append('when ' ~ df ~ ' then ln(' ~ sqlmetrics.float_literal(ratio) ~ ')') -%}
{%- endfor -%}
t_args as (
    select
        t_value.*,
        abs_t * abs_t as t2,
        df / 2.0e0 as a
    from t_value
    where abs_t >= 1e-17 and abs_t <= 1e150
),
t_sides as (
    select
        t_args.*,
        df / (df + t2) as x,
        t2 / (df + t2) as y
    from t_args
),
t_beta as (
    -- betainc(A, B, X) of stats.py's _upper_tail: side 1 is I_x(a, 1/2), side 2 I_y(1/2, a)
    select
        t_sides.*,
        case when x < (a + 1.0e0) / (a + 2.5e0) then 1 else 2 end as side,
        case when x < (a + 1.0e0) / (a + 2.5e0) then a else {{ sqlmetrics.float_literal(0.5) }} end as big_a,
        case when x < (a + 1.0e0) / (a + 2.5e0) then {{ sqlmetrics.float_literal(0.5) }} else a end as big_b,
        case when x < (a + 1.0e0) / (a + 2.5e0) then x else y end as big_x,
        case
            when df < 20 then case cast(df as integer) {{ small_beta | join(' ') }} end
            else {{ sqlmetrics.float_literal(0.5723649429247004) }}
                - (a - 0.5e0) * {{ sqlmetrics.compare_log1p_series('(0.5e0 / a)') }}
                - 0.5e0 * ln(0.5e0 + a) + 0.5e0
                + ({{ sqlmetrics.compare_stirling_tail('a') }} - {{ sqlmetrics.compare_stirling_tail('(0.5e0 + a)') }})
        end as log_beta
    from t_sides
),
t_front as (
    select
        t_beta.*,
        not (big_x < (big_a + 1.0e0) / (big_a + big_b + 2.0e0)) as swap,
        big_a * ln(big_x)
            + big_b * case when big_x < 0.05e0 then {{ sqlmetrics.compare_log1p_series('(-big_x)') }} else ln(1.0e0 - big_x) end
            - log_beta as log_front
    from t_beta
    where big_x > 0 and big_x < 1
),
t_fraction_args as (
    select
        {{ slices }}
        side,
        swap,
        case when log_front < -700 then {{ sqlmetrics.float_literal(0) }} else exp(log_front) end as front,
        case when swap then big_b else big_a end as p,
        case when swap then big_a else big_b end as q,
        case when swap then 1.0e0 - big_x else big_x end as z
    from t_front
),
{%- endmacro %}

{#- Lentz's continued fraction (stats.py's _beta_fraction) as a recursive CTE: one half-step
    per row, the state (m, half, c, d, h) carried; done after the second half-step whose
    delta is within 1e-16 of 1 -#}
{% macro compare_t_lentz(slices) -%}
{%- set f = sqlmetrics.float_type() -%}
{%- set mm = '(case when half = 2 then m + 1 else m end)' -%}
{%- set aa -%}
(case when half = 2 then {{ mm }} * (q - {{ mm }}) * z / ((p - 1.0e0 + 2 * {{ mm }}) * (p + 2 * {{ mm }})) else -(p + {{ mm }}) * (p + q + {{ mm }}) * z / ((p + 2 * {{ mm }}) * (p + 1.0e0 + 2 * {{ mm }})) end)
{%- endset -%}
{%- set d_new = '(1.0e0 / ' ~ sqlmetrics.compare_lentz_guard('(1.0e0 + ' ~ aa ~ ' * d)') ~ ')' -%}
{%- set c_new = sqlmetrics.compare_lentz_guard('(1.0e0 + ' ~ aa ~ ' / c)') %}
t_fraction (
    {{ slices }}side, swap, front, p, q, z, m, half, c, d, h, done
) as (
    select
        {{ slices }}
        side,
        swap,
        cast(front as {{ f }}),
        cast(p as {{ f }}),
        cast(q as {{ f }}),
        cast(z as {{ f }}),
        0,
        2,
        cast(1.0e0 as {{ f }}),
        cast(1.0e0 / {{ sqlmetrics.compare_lentz_guard('(1.0e0 - (p + q) * z / (p + 1.0e0))') }} as {{ f }}),
        cast(1.0e0 / {{ sqlmetrics.compare_lentz_guard('(1.0e0 - (p + q) * z / (p + 1.0e0))') }} as {{ f }}),
        false
    from t_fraction_args
    union all
    select
        {{ slices }}
        side,
        swap,
        front,
        p,
        q,
        z,
        {{ mm }},
        case when half = 2 then 1 else 2 end,
        cast({{ c_new }} as {{ f }}),
        cast({{ d_new }} as {{ f }}),
        cast(h * ({{ d_new }} * {{ c_new }}) as {{ f }}),
        half = 1 and abs({{ d_new }} * {{ c_new }} - 1.0e0) < 1e-16
    from t_fraction
    where not done and m < 100000
),
{%- endmacro %}
