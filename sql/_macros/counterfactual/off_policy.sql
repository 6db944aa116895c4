{#
  Off-policy value estimators (sqlmetrics.off_policy_value, issue 43): the value of a target
  (evaluation) policy pi_e estimated from rows logged under a logging (behaviour) policy pi_b,
  as obp (Saito et al. 2021) defines each estimator.

  A row i is one round (single action) or one (slate, position) (slates): its observed reward
  r_i, the logging propensity p_i = pi_b(a_i | x_i) in (0, 1], the target propensity
  t_i = pi_e(a_i | x_i) in [0, 1] (Python checks both), for DR the reward model's q_i =
  q^(x_i, a_i) (reward_hat) and g_i = sum_a pi_e(a | x_i) q^(x_i, a) (reward_hat_target).
  Importance weight w_i = t_i / p_i, clipped (options.clip = obp's lambda_): min(t_i / p_i,
  clip); no clipping when clip is none. The same clipped w enters every estimator.
  Assumptions: common support (t_i > 0 only where p_i > 0; p_i > 0 is checked); the logged
  p_i are the logging policy's true propensities; for DR the reward model only enters through
  q_i and g_i (any model, fitted elsewhere; DR is unbiased when either the propensities or the
  model are right).
  Units u: the rounds (single action); the slates s (slate estimators), S = #slates.
  Single action, n rounds:
    ips    V = sum_i w_i r_i / n                            (InverseProbabilityWeighting)
    snips  V = sum_i w_i r_i / sum_i w_i                    (SelfNormalizedInverseProbability-
                                                             Weighting); undefined when sum w = 0
    dr     V = sum_i [g_i + w_i (r_i - q_i)] / n            (DoublyRobust)
  Slates (obp's Slate*IPS: the rows' w r summed, divided by the number of distinct slates):
    V = sum_s sum_{i in s} w_i r_i / S, the propensities being
    slate_standard_ips     the slate's joint propensity (the same on its rows: Python checks)
    slate_independent_ips  each (item, position)'s marginal propensity
    slate_rips             the cascade propensity of the slate's first k items, k the row's
                           position (non-increasing along the positions: Python checks)
  Per unit: a_u (round: w r; slate: sum_{i in s} w_i r_i), d_u (round: g + w (r - q)), the
  unit weight W_u (round: w; slate: the mean of its rows' w, the joint weight for
  slate_standard_ips). Diagnostics over the units: n (rounds or slates), ess = (sum W)^2 /
  sum W^2 (Kish), max_weight = max W, mean_weight = sum W / n (near 1 when the target's
  support is covered). No rows: NULL (undefined).
  Intervals at level L (options.method):
    't'          each estimator is a ratio V = A / B of sums over units (ips, slates: A = sum a,
                 B = n; snips: A = sum a, B = sum W; dr: A = sum d, B = n), and
                 SE = sqrt(n / (n - 1) sum_u (x_u - V b_u)^2) / B  (x_u the unit's term, b_u
                 1 or W_u): the t interval of a mean over rounds (ips, dr) or slates, the
                 delta-method (linearised) interval of the ratio for snips; Python takes
                 V -+ t_{n-1}((1 + L) / 2) SE (intervals.py::t_row_interval) from n, A, B and
                 ss = sum_u (x_u - V b_u)^2. Undefined for n < 2 or B = 0.
    'bootstrap'  the library's Poisson(1) bootstrap (resample.sql): unit u's count in
                 replicate b is poisson1(replicate_uniform(key_u, b, seed)), key_u the round's
                 row_key (its position in the order of r, p, t, q, g within its slice) or the
                 slate id's key_hash (clustered by slate); V_b = sum n_ub x_u / sum n_ub b_u;
                 lo, hi the type-7 percentiles (1 -+ L) / 2 of the defined V_b.
  Every sum is an exact_sum (decision 0006) at the slice's exponents (with_slice_exponents,
  or the same values as literals from Python's check pass: options.exponents, below
  off_policy_units): the same bits in any row order and thread count. Exponent of a centred term: (a - V)^2 <=
  2^(2 e_a + 2) (|V| <= max|a|); (W (r - V))^2 <= 2^(2 (e_w + e_r + 1)) (V is a weighted mean
  of r). A slice is the slice columns' values; a NULL slice is a slice of its own.
  Output, ordered by the slices (NULL last), then the estimators as given: slice_0..,
  estimator, est_order, value, n, a, b, ss (t: value = a / b) / lo, hi (bootstrap), ess,
  max_weight, mean_weight.

  off_policy_value(relation, by, columns, options)
    columns  reward, pscore, target, reward_hat, reward_hat_target, slate: quoted (none: unused)
    options  estimators (names), clip (float or none), method (none, 't', 'bootstrap'),
             n_boot, seed, level; exponents (optional, single actions: off_policy_bounds'
             table-wide e_a, e_w, e_ww, e_r (t), e_d (dr) as integers; the output then has
             fixed_ok, 1 where the slice's own exponents are those)
#}

{% macro off_policy_units(relation, by, columns, options) -%}
{% set f = sqlmetrics.float_type() %}
{% set slices = sqlmetrics.slice_cols(by) %}
{% set dr = columns.reward_hat is not none %}
op_source as (
    select
        {{ sqlmetrics.slice_source(by) }}
{% if columns.slate %}
        {{ columns.slate }} as slate_id,
{% elif options.method == 'bootstrap' %}
        {{ sqlmetrics.row_key([columns.reward, columns.pscore, columns.target] + ([columns.reward_hat, columns.reward_hat_target] if dr else []), by) }} as ukey,
{% endif %}
{% if dr %}
        cast({{ columns.reward_hat }} as {{ f }}) as q,
        cast({{ columns.reward_hat_target }} as {{ f }}) as g,
{% endif %}
        cast({{ columns.reward }} as {{ f }}) as r,
        cast({{ columns.target }} as {{ f }}) / cast({{ columns.pscore }} as {{ f }}) as raw_w
    from {{ relation }}
),
op_weighted as (
    select
        op_source.*,
{% if options.clip is not none %}
        case when raw_w > {{ sqlmetrics.float_literal(options.clip) }} then {{ sqlmetrics.float_literal(options.clip) }} else raw_w end as w
{% else %}
        raw_w as w
{% endif %}
    from op_source
),
{% if columns.slate %}
{{ sqlmetrics.with_slice_exponents('op_rows', 'op_weighted', by, [('e_rw', 'w'), ('e_rwr', 'w * r')]) }},
op_units as (
    -- named apart from the rows' w, r inside the aggregates (ClickHouse resolves an alias first)
    select
        {{ slices }}
{% if options.method == 'bootstrap' %}
        ukey,
{% endif %}
        slate_w / slate_n as w,
        slate_wr as a,
        {{ sqlmetrics.float_literal(0) }} as r
    from (
        select
            {{ slices }}
{% if options.method == 'bootstrap' %}
            {{ sqlmetrics.key_hash('slate_id') }} as ukey,
{% endif %}
            {{ sqlmetrics.exact_sum('w', 'e_rw') }} as slate_w,
            {{ sqlmetrics.exact_sum('w * r', 'e_rwr') }} as slate_wr,
            count(*) as slate_n
        from op_rows
        {{ sqlmetrics.group_by(by, ['slate_id']) }}
    ) as op_slates
),
{% else %}
op_units as (
    select
        op_weighted.*,
{% if dr %}
        g + w * (r - q) as d,
{% endif %}
        w * r as a
    from op_weighted
),
{% endif %}
{% set fixed = options.get('exponents') or {} %}
{% if fixed %}
op_scaled as (
    -- the table-wide exponents of the check pass, as literals (op_values.fixed_ok checks them)
    select
        op_units.*,
{% for col, e in fixed | dictsort %}
        {{ e }} as {{ col }}{{ ',' if not loop.last }}
{% endfor %}
    from op_units
),
{% else %}
{{ sqlmetrics.with_slice_exponents('op_scaled', 'op_units', by, [('e_a', 'a'), ('e_w', 'w'), ('e_ww', 'w * w'), ('e_r', 'r')] + ([('e_d', 'd')] if dr else [])) }},
{% endif %}
{{ sqlmetrics.off_policy_sums(by, dr, fixed) }}
{%- endmacro %}

{# op_sums (per slice: n, the exact sums, the exponents the t interval reads) and op_values (the
   estimates); with `fixed` (the check pass's exponents) the sums at those and fixed_ok #}
{% macro off_policy_sums(by, dr, fixed) -%}
{% set ex = {} %}
{% for col in ['e_a', 'e_w', 'e_ww', 'e_d'] %}
{% do ex.update({col: ([fixed[col], -940] | max) | string if fixed and col in fixed else col}) %}
{% endfor %}
op_sums as (
    select
        {{ sqlmetrics.slice_cols_as(by, 's_') }}
        count(*) as n,
        {{ sqlmetrics.exact_sum('a', ex.e_a, fallback=not fixed) }} as sa,
        {{ sqlmetrics.exact_sum('w', ex.e_w, fallback=not fixed) }} as sw,
        {{ sqlmetrics.exact_sum('w * w', ex.e_ww, fallback=not fixed) }} as sww,
{% if dr %}
        {{ sqlmetrics.exact_sum('d', ex.e_d, fallback=not fixed) }} as sd,
        {{ fixed.e_d if fixed else 'max(e_d)' }} as s_e_d,
{% endif %}
{% if fixed %}
        -- each slice's own exponents (what with_slice_exponents gives): equal to the literals,
        -- or Python runs the statement again without them
        {{ sqlmetrics.auc_exponent('max(abs(a))') }} as c_e_a,
{% if 'e_r' in fixed %}
        {{ sqlmetrics.auc_exponent('max(abs(r))') }} as c_e_r,
{% endif %}
{% if dr %}
        {{ sqlmetrics.auc_exponent('max(abs(d))') }} as c_e_d,
{% endif %}
{% endif %}
        max(w) as max_weight,
        {{ fixed.e_a if fixed else 'max(e_a)' }} as s_e_a,
        {{ fixed.e_w if fixed else 'max(e_w)' }} as s_e_w,
        {{ fixed.get('e_r', 0) if fixed else 'max(e_r)' }} as s_e_r
    from op_scaled
    {{ sqlmetrics.group_by(by) }}
),
op_values as (
    select
        op_sums.*,
{% if fixed %}
        -- w >= 0 (Python checks target >= 0 and pscore > 0): max |w| is max_weight, and max
        -- |w w| is max_weight^2 (rounding is monotone), so e_w and e_ww need no aggregate
        case when c_e_a = {{ fixed.e_a }} and {{ sqlmetrics.auc_exponent('max_weight') }} = {{ fixed.e_w }} and {{ sqlmetrics.auc_exponent('max_weight * max_weight') }} = {{ fixed.e_ww }}{{ (' and c_e_r = ' ~ fixed.e_r) if 'e_r' in fixed }}{{ (' and c_e_d = ' ~ fixed.e_d) if dr }} then 1 else 0 end as fixed_ok,
{% endif %}
        {{ sqlmetrics.safe_div('sa', 'n') }} as v_a,
        {{ sqlmetrics.safe_div('sa', 'sw') }} as v_snips,
        {{ sqlmetrics.safe_div('sd' if dr else 'null', 'n') }} as v_d
    from op_sums
)
{%- endmacro %}

{#
  Exponents from the check pass (options.exponents, issue 43's speed-up): Python's check query
  (off_policy_bounds) also takes each summed quantity's table-wide e = ceil(log2 max|x|), and
  the statement sums at those e, written as literals: no pass over the rows for the
  exponents, no join back to the slices. The bits stay those of with_slice_exponents (the
  slice's own e) because the statement checks, per slice, that its own e equals the
  table-wide one (op_values.fixed_ok): exact_sum's value is a function of e and the terms, so
  with the same e the same bits; where a slice's e is smaller (a slice of smaller terms, or
  of only zeros), Python discards the result and runs the statement without exponents (the
  slice's own, as before). Without slices the table is the one slice: the check holds unless
  the data changed between the two queries. Single actions only (slates sum over slates,
  whose exponents need the slates first); Python passes none when any e is NULL (all terms
  0, or a non-finite term: exact_sum's plain-sum fallback then). The output gains fixed_ok.
#}

{#
  off_policy_bounds(columns, options): the select items (`<expr> as e_a, ...`) the check query
  appends: each summed quantity's table-wide exponent, as auc_exponent over max|x| (e_a: w r,
  e_w: w, e_ww: w w, e_r: r for the t interval, e_d: DR's term), from the same expressions as
  off_policy_units. The weight is computed only where pscore and target pass their checks (a
  row failing them makes the call raise anyway, and would divide by 0 on PostgreSQL or
  overflow on PostgreSQL and Spark instead of reaching Python's message); those weights are
  >= 0, so max|w| is max(w) and max|w w| is max(w)^2 (rounding is monotone).
#}
{% macro off_policy_bounds(columns, options) -%}
{% set f = sqlmetrics.float_type() %}
{% set p, t = columns.pscore, columns.target %}
{% set raw_w = '(case when ' ~ p ~ ' > 0 and ' ~ p ~ ' <= 1 and ' ~ t ~ ' >= 0 and ' ~ t ~ ' <= 1 then cast(' ~ t ~ ' as ' ~ f ~ ') / cast(' ~ p ~ ' as ' ~ f ~ ') end)' %}
{% if options.clip is not none %}
{% set w = '(case when ' ~ raw_w ~ ' > ' ~ sqlmetrics.float_literal(options.clip) ~ ' then ' ~ sqlmetrics.float_literal(options.clip) ~ ' else ' ~ raw_w ~ ' end)' %}
{% else %}
{% set w = raw_w %}
{% endif %}
{% set r = 'cast(' ~ columns.reward ~ ' as ' ~ f ~ ')' %}
{% set items = [('e_a', 'max(abs(' ~ w ~ ' * ' ~ r ~ '))'), ('e_w', 'max(' ~ w ~ ')'), ('e_ww', 'max(' ~ w ~ ') * max(' ~ w ~ ')')] %}
{% if options.method == 't' %}
{% do items.append(('e_r', 'max(abs(' ~ r ~ '))')) %}
{% endif %}
{% if columns.reward_hat is not none %}
{% set q = 'cast(' ~ columns.reward_hat ~ ' as ' ~ f ~ ')' %}
{% set g = 'cast(' ~ columns.reward_hat_target ~ ' as ' ~ f ~ ')' %}
{% do items.append(('e_d', 'max(abs(' ~ g ~ ' + ' ~ w ~ ' * (' ~ r ~ ' - ' ~ q ~ ')))')) %}
{% endif %}
{% for col, expr in items %}{{ sqlmetrics.auc_exponent(expr) }} as {{ col }}{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro %}

{# the t interval's centred sums, per slice: ss_a (ips, slates), ss_snips, ss_d (dr), those the
   estimators read (`parts`); with the check pass's exponents (`fixed`) their exponents are
   literals too (the same values: s_e_a is fixed.e_a, and so on) #}
{% macro off_policy_t(by, dr, parts, fixed={}) -%}
{% set qs = [] %}
{% if 'a' in parts %}
{% do qs.append(('qa', '(op_scaled.a - op_values.v_a) * (op_scaled.a - op_values.v_a)', '2 * op_values.s_e_a + 2', (2 * fixed.e_a + 2) if fixed, 'ss_a')) %}
{% endif %}
{% if 'snips' in parts %}
{% do qs.append(('qs', '(op_scaled.a - op_values.v_snips * op_scaled.w) * (op_scaled.a - op_values.v_snips * op_scaled.w)', '2 * (op_values.s_e_w + op_values.s_e_r + 1)', (2 * (fixed.e_w + fixed.e_r + 1)) if fixed, 'ss_snips')) %}
{% endif %}
{% if 'd' in parts and dr %}
{% do qs.append(('qd', '(op_scaled.d - op_values.v_d) * (op_scaled.d - op_values.v_d)', '2 * op_values.s_e_d + 2', (2 * fixed.e_d + 2) if fixed, 'ss_d')) %}
{% endif %}
op_centred as (
    select
        {{ sqlmetrics.slice_cols_of('op_scaled', by) }}
{% for q, expr, e, lit, ss in qs %}
        {{ expr }} as {{ q }}{{ ',' if not loop.last or not fixed }}
{% endfor %}
{% if not fixed %}
{% for q, expr, e, lit, ss in qs %}
        {{ e }} as e_{{ q }}{{ ',' if not loop.last }}
{% endfor %}
{% endif %}
    from op_scaled
    join op_values
        on {{ sqlmetrics.join_on_slices('op_scaled', 'op_values', by, [], 's_') }}
),
op_spread as (
    select
        {{ sqlmetrics.slice_cols_as(by, 't_') }}
{% for q, expr, e, lit, ss in qs %}
        {{ sqlmetrics.exact_sum(q, ([lit, -940] | max) | string if fixed else 'e_' ~ q, fallback=not fixed) }} as {{ ss }}{{ ',' if not loop.last }}
{% endfor %}
    from op_centred
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{# the bootstrap's percentiles per slice: lo_a, hi_a (ips, slates), lo_snips, .., lo_d, .. #}
{% macro off_policy_bootstrap(by, dr, options) -%}
{% set f = sqlmetrics.float_type() %}
{% set slices = sqlmetrics.slice_cols(by) %}
op_keyed as (
    select
        op_scaled.*,
        {{ sqlmetrics.replicate_key('ukey', options.seed) }} as key_a
    from op_scaled
),
op_replicated as (
    select
        {{ sqlmetrics.slice_cols_of('op_keyed', by) }}
        replicates.b as b,
        op_keyed.a as a,
        op_keyed.w as w,
        {{ 'op_keyed.d' if dr else sqlmetrics.float_literal(0) }} as d,
        op_keyed.e_a as e_a,
        op_keyed.e_w as e_w,
        {{ 'op_keyed.e_d' if dr else '0' }} as e_d,
        op_keyed.key_a as key_a,
        {{ sqlmetrics.replicate_x1('op_keyed.key_a', 'replicates.b') }} as x1
    from op_keyed
    cross join (
{{ sqlmetrics.replicates(options.n_boot) }}
    ) as replicates
    {{ sqlmetrics.resample_fence() }}
),
op_uniforms as (
    select
        op_replicated.*,
        cast({{ sqlmetrics.replicate_x('x1', 'key_a', 'b') }} as {{ f }}) / {{ sqlmetrics.float_literal(2147483647) }} as u
    from op_replicated
    {{ sqlmetrics.resample_fence() }}
),
op_drawn as (
    select
        op_uniforms.*,
        cast({{ sqlmetrics.poisson1('u') }} as {{ f }}) as nb
    from op_uniforms
),
op_replicate_values as (
    select
        {{ slices }}
        b,
        {{ sqlmetrics.exact_sum('nb * a', 'e_a + 3') }} / nullif(sum(nb), 0) as x_a,
        {{ sqlmetrics.exact_sum('nb * a', 'e_a + 3') }} / nullif({{ sqlmetrics.exact_sum('nb * w', 'e_w + 3') }}, 0) as x_snips,
        {{ sqlmetrics.exact_sum('nb * d', 'e_d + 3') }} / nullif(sum(nb), 0) as x_d
    from op_drawn
    {{ sqlmetrics.group_by(by, ['b']) }}
),
op_spread as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as t_slice_{{ loop.index0 }}, {% endfor %}

{% for x in ['a', 'snips', 'd'] %}
        {{ sqlmetrics.ci_percentile('x_' ~ x, (1 - options.level) / 2) }} as lo_{{ x }},
        {{ sqlmetrics.ci_percentile('x_' ~ x, (1 + options.level) / 2) }} as hi_{{ x }}{{ ',' if not loop.last }}
{% endfor %}
    from op_replicate_values
    {{ sqlmetrics.group_by(by) }}
)
{%- endmacro %}

{% macro off_policy_value(relation, by, columns, options) -%}
{% set dr = columns.reward_hat is not none %}
{% set part = {'ips': 'a', 'snips': 'snips', 'dr': 'd', 'slate_standard_ips': 'a', 'slate_independent_ips': 'a', 'slate_rips': 'a'} %}
with {{ sqlmetrics.off_policy_units(relation, by, columns, options) }},
{% if options.method == 't' %}
{% set fixed = options.get('exponents') or {} %}
{% set parts = [] %}
{% for name in options.estimators %}{% do parts.append(part[name]) %}{% endfor %}
{{ sqlmetrics.off_policy_t(by, dr, parts, fixed) }},
{% elif options.method == 'bootstrap' %}
{{ sqlmetrics.off_policy_bootstrap(by, dr, options) }},
{% endif %}
op_summary as (
    select
        op_values.*{{ ',' if options.method }}
{% if options.method %}
        op_spread.*
{% endif %}
    from op_values
{% if options.method %}
    left join op_spread
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('op_values.s_slice_' ~ loop.index0, 'op_spread.t_slice_' ~ loop.index0) }} and {% endfor %}1 = 1
{% endif %}
)
select * from (
{% for name in options.estimators %}
{% set x = part[name] %}
    select
        {% for col in by %}s_slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        '{{ name }}' as estimator,
        {{ loop.index0 }} as est_order,
        v_{{ x }} as value,
        n,
{% if options.method == 't' %}
        {{ 'sd' if x == 'd' else 'sa' }} as a,
        {{ 'sw' if x == 'snips' else 'cast(n as ' ~ sqlmetrics.float_type() ~ ')' }} as b,
        ss_{{ x }} as ss,
{% elif options.method == 'bootstrap' %}
        lo_{{ x }} as lo,
        hi_{{ x }} as hi,
{% endif %}
{% if options.get('exponents') %}
        fixed_ok,
{% endif %}
        sw * sw / nullif(sww, 0) as ess,
        max_weight,
        {{ sqlmetrics.safe_div('sw', 'n') }} as mean_weight
    from op_summary
{% if not loop.last %}
    union all
{% endif %}
{% endfor %}
) as op_out
order by {{ sqlmetrics.slice_order(by) }}est_order
{%- endmacro %}
