{#
  Metric anomalies over a daily table (sqlmetrics.metric_anomalies, issue 44): per (slice,
  day), is the day's value outside the band its recent history and its own sampling error
  allow? The input has one row per (slice, day): the value v, its interval [lo, hi] at level
  L (as evaluate(..., by=[day, ...], ci=L) writes it), optionally its rows n.

  dn(d) = the day's number (day_number: days since 1970-01-01).
  se    = (hi - lo) / (2 z), z = Phi^-1((1 + L) / 2) (options.z; the interval's half width in
          standard errors); 0 without lo/hi (the plain mode: the daily values alone, as
          z-score anomaly tests have them).
  Status of a row, the first that applies:
    pending    dn(d) > dn(last) - delay, `last` the latest day of the whole table: the most
               recent `delay` days wait for their labels (not scored, not in any baseline);
    undefined  v or se NULL;
    few_rows   n < min_rows (with row counts);
    eligible   otherwise: the day enters the baselines of later days.
  Baseline B(d): the eligible days b of the same slice (a NULL slice is a slice) with
  dn(d) - window <= dn(b) <= dn(d) - 1, and with weekday seasonality the same weekday
  (dn(b) = dn(d) mod 7, written dn - 7 floor(dn / 7): no integer division or mod operator);
  n_b = |B(d)|.
    m    = sum_B v / n_b                       (baseline)
    s2   = sum_B (v - m)^2 / (n_b - 1)         (spread = sqrt(s2))
    q    = sum_B se^2 / n_b                    (the baseline days' mean sampling variance)
    tau2 = max(0, s2 - q)                      (day-to-day variance beyond sampling error)
    sd   = sqrt(tau2 + se^2 + (tau2 + q) / n_b)
           (between-day variance + the day's sampling variance + the variance of m; the
           plain mode: spread * sqrt(1 + 1 / n_b))
    band = [m - threshold sd, m + threshold sd];  z = (v - m) / sd (NULL when sd = 0)
    deviation = 'drop' when v < band_lo, 'rise' when v > band_hi, else NULL
    anomaly   = deviation is the flagged one (options.flag: drop, rise or both)
  An eligible row with n_b >= max(min_history, 2) is 'scored'; else 'no_history'. Rows not
  scored have NULL baseline, band, z and deviation, and anomaly false.
  Every sum is an exact_sum (decision 0006) with one exponent per table (the largest |v|,
  se^2 and (max v - min v)^2 of the eligible rows), so each value has the same bits in any
  row order; the joins are equalities on an integer slice id (a window over the small daily
  table) with the calendar window in the where clause (ClickHouse joins on equalities).
  Output, ordered by the slices (NULL last) and day: slice_0.., day, value, lo, hi, n_rows,
  se, n_baseline, baseline, spread, tau, band_lo, band_hi, z, deviation, anomaly, status.

  metric_anomalies(relation, by, columns, options)
     columns  day, value, lo, hi, n_rows: quoted columns (lo, hi, n_rows none when unused)
     options  window, weekday (bool), delay, min_rows, min_history, threshold, z, flag
#}

{% macro anomaly_exponent(x) -%}
nullif(least(ceil(ln(nullif({{ x }}, 0)) / ln({{ sqlmetrics.float_literal(2) }})), 2000), 2000)
{%- endmacro %}

{% macro metric_anomalies(relation, by, columns, options) -%}
{% set f = sqlmetrics.float_type() %}
with days as (
    select
{% for col in by %}
        {{ col }} as slice_{{ loop.index0 }},
{% endfor %}
        {{ columns.day }} as day,
        {{ sqlmetrics.day_number(columns.day) }} as dn,
        cast({{ columns.value }} as {{ f }}) as v,
{% if columns.lo %}
        cast({{ columns.lo }} as {{ f }}) as lo,
        cast({{ columns.hi }} as {{ f }}) as hi,
        (cast({{ columns.hi }} as {{ f }}) - cast({{ columns.lo }} as {{ f }})) / {{ sqlmetrics.float_literal(2 * options.z) }} as se,
{% else %}
        cast(null as {{ f }}) as lo,
        cast(null as {{ f }}) as hi,
        {{ sqlmetrics.float_literal(0) }} as se,
{% endif %}
        {{ 'cast(' ~ columns.n_rows ~ ' as bigint)' if columns.n_rows else 'cast(null as bigint)' }} as n_rows,
        {{ sqlmetrics.day_number(columns.day) }} - 7 * floor({{ sqlmetrics.day_number(columns.day) }} / {{ sqlmetrics.float_literal(7) }}) as wd,
        {{ 'dense_rank() over (order by ' ~ (by | join(', ')) ~ ')' if by else '1' }} as sid
    from {{ relation }}
),
marked as (
    select days.*,
        case
            when dn > last_day.dn_last - {{ options.delay }} then 'pending'
            when v is null or se is null then 'undefined'
{% if columns.n_rows %}
            when n_rows < {{ options.min_rows }} then 'few_rows'
{% endif %}
            else 'eligible'
        end as state
    from days cross join (select max(dn) as dn_last from days) as last_day
),
exps as (
    select
        {{ sqlmetrics.anomaly_exponent('max(abs(v))') }} as e_v,
        {{ sqlmetrics.anomaly_exponent('max(se * se)') }} as e_q,
        {{ sqlmetrics.anomaly_exponent('(max(v) - min(v)) * (max(v) - min(v))') }} as e_d
    from marked
    where state = 'eligible'
),
pairs as (
    select t.sid as sid, t.dn as dn, b.v as b_v, b.se as b_se
    from marked as t
    join marked as b on t.sid = b.sid
    where t.state = 'eligible' and b.state = 'eligible'
        and b.dn >= t.dn - {{ options.window }} and b.dn <= t.dn - 1
{% if options.weekday %}
        and t.wd = b.wd
{% endif %}
),
means as (
    select sid, dn, count(*) as n_b,
        {{ sqlmetrics.exact_sum('b_v', 'e_v') }} / count(*) as m,
        {{ sqlmetrics.exact_sum('b_se * b_se', 'e_q') }} / count(*) as q
    from pairs cross join exps
    group by sid, dn
),
spreads as (
    select means.sid as sid, means.dn as dn, means.n_b as n_b, means.m as m, means.q as q,
        {{ sqlmetrics.exact_sum('(pairs.b_v - means.m) * (pairs.b_v - means.m)', 'e_d') }} / nullif(means.n_b - 1, 0) as s2
    from means
    join pairs on means.sid = pairs.sid and means.dn = pairs.dn
    cross join exps
    group by means.sid, means.dn, means.n_b, means.m, means.q
),
scored as (
    select marked.*, spreads.n_b as n_b, spreads.m as m, spreads.s2 as s2, spreads.q as q,
        case when spreads.s2 > spreads.q then spreads.s2 - spreads.q else {{ sqlmetrics.float_literal(0) }} end as tau2,
        case when marked.state = 'eligible' and spreads.n_b >= {{ [options.min_history, 2] | max }} then 1 else 0 end as is_scored
    from marked
    left join spreads on marked.sid = spreads.sid and marked.dn = spreads.dn
),
banded as (
    select scored.*,
        case when is_scored = 1 then sqrt(tau2 + se * se + (tau2 + q) / n_b) end as sd
    from scored
),
flagged as (
    select banded.*,
        case when is_scored = 1 then m - {{ sqlmetrics.float_literal(options.threshold) }} * sd end as band_lo,
        case when is_scored = 1 then m + {{ sqlmetrics.float_literal(options.threshold) }} * sd end as band_hi
    from banded
),
deviations as (
    select flagged.*,
        case when v < band_lo then 'drop' when v > band_hi then 'rise' end as deviation
    from flagged
)
select
{% for col in by %}
    slice_{{ loop.index0 }},
{% endfor %}
    day,
    v as value,
    lo,
    hi,
    n_rows,
    se,
    coalesce(n_b, 0) as n_baseline,
    case when is_scored = 1 then m end as baseline,
    case when is_scored = 1 then sqrt(s2) end as spread,
    case when is_scored = 1 then sqrt(tau2) end as tau,
    band_lo,
    band_hi,
    case when is_scored = 1 and sd > 0 then (v - m) / sd end as z,
    deviation,
    case when deviation in ({% for d in options.flagged %}'{{ d }}'{{ ', ' if not loop.last }}{% endfor %}) then true else false end as anomaly,
    case when is_scored = 1 then 'scored' when state = 'eligible' then 'no_history' else state end as status
from deviations
order by {% for col in by %}slice_{{ loop.index0 }} nulls last, {% endfor %}dn
{%- endmacro %}
