{#
  Confidence intervals (issue 12): the SQL of every interval method. Python
  (sqlmetrics/intervals.py) picks the method, renders one of the queries below around the
  metric's own kernel, and does only per-slice arithmetic on the small result (a normal or t
  quantile, Wilson's formula). Resampling weights, and the replicates b = 1..n_boot
  (replicates(n)), come from sql/_macros/inference/resample.sql: the
  weight of a row (or group) in replicate b is poisson1(replicate_uniform(key, b, seed)), so
  the same seed gives the same interval on every engine and under any row order.
  Replicates are b = 1..n_boot. Percentile intervals are linear-interpolation quantiles
  (type 7: numpy's default) of the replicate values that are defined (NULL ones are left out;
  n_valid counts the others).
  The relation these macros wrap is aliased __sqlm_source, never a short name: ClickHouse
  resolves a name inside a subquery to an alias of an enclosing select (a kernel's
  `... as t`) before the subquery's own table alias (multiclass_auc's ovo bootstrap failed).

  ci_percentile(x, q)         the type-7 q-quantile of x (an aggregate)
  ci_rows_relation(...)       row bootstrap: the user's relation with every row repeated per
                              replicate (column __sqlm_b) and its Poisson count, either as a
                              weight (__sqlm_w, times the user's weight) or as copies
  ci_binary_mcc(inner, n_by)  binary MCC per replicate from confusion counts (mcc at a threshold)
  ci_replicate_percentiles(inner, n_by, alias, level)
                              lo/hi per slice over the replicate values of `inner` (a kernel
                              query sliced by the user's slices and then __sqlm_b)
  ci_group_query(...)         per-group values (a kernel query sliced by the slices and then
                              the group) -> t sums or a cluster bootstrap
  ci_t_bounds(...)            the t interval from ci_group_query's t sums (render(ci=)), or
                              from ci_row_mean_query's (centred=true)
  ci_row_mean_query(...)      means of per-row losses (log_loss, brier_score, hamming_loss):
                              the t sums over rows, or the row bootstrap in one pass
  ci_delong(...)              AUC with DeLong's variance from placement values
  ci_auc_bootstrap(...)       AUC's row bootstrap over one shared sort (score buckets)
#}

{% macro ci_percentile(x, q) -%}
{{ adapter.dispatch('ci_percentile', 'sqlmetrics')(x, q) }}
{%- endmacro %}

{% macro default__ci_percentile(x, q) -%}
percentile_cont({{ sqlmetrics.float_literal(q) }}) within group (order by {{ x }})
{%- endmacro %}

{% macro duckdb__ci_percentile(x, q) -%}
quantile_cont({{ x }}, {{ sqlmetrics.float_literal(q) }})
{%- endmacro %}

{# quantileExactInclusive: linear interpolation between the order statistics (type 7) #}
{% macro clickhouse__ci_percentile(x, q) -%}
quantileExactInclusive({{ sqlmetrics.float_literal(q) }})({{ x }})
{%- endmacro %}

{% macro spark__ci_percentile(x, q) -%}
percentile({{ x }}, {{ sqlmetrics.float_literal(q) }})
{%- endmacro %}

{#
  ci_rows_relation(relation, by, order, key, n_boot, seed, weight, mode, group):
    relation  the user's relation (SQL after `from`); by: quoted slice identifiers
    order     quoted columns the metric reads: the row key is the row's position in this
              order within its slice (row_key); rows equal in all of them are interchangeable
    key       none (row key), or a quoted key column (a sample id, e.g. the group of a
              multiclass score table): its key_hash, so all rows of a sample share a weight
    weight    'weight': __sqlm_w = count (times the user's weight column `user_weight`)
              'copies': each row repeated count times; a `group` column is renamed apart per
              copy (__sqlm_g = group || '~' || copy), so copies of one sample stay two samples
  Rows drawn 0 times are left out. `keyed` ends in resample_fence(): PostgreSQL would pull it
  up and hash a key column (md5) three times per replicate.
#}
{% macro ci_rows_relation(relation, by, order, key, n_boot, seed, mode, user_weight=none, group=none) -%}
(
    select
        drawn.*,
{% if mode == 'weight' %}
        {{ 'cast(' ~ user_weight ~ ' as ' ~ sqlmetrics.float_type() ~ ') * ' if user_weight }}cast(__sqlm_n as {{ sqlmetrics.float_type() }}) as __sqlm_w
{% else %}
        copies.copy as __sqlm_copy{{ ',' if group }}
{% if group %}
        cast({{ group }} as {{ sqlmetrics.string_type() }}) || '~' || cast(copies.copy as {{ sqlmetrics.string_type() }}) as __sqlm_g
{% endif %}
{% endif %}
    from (
        select
            uniforms.*,
            {{ sqlmetrics.poisson1('__sqlm_u') }} as __sqlm_n
        from (
            select
                keyed.*,
                replicates.b as __sqlm_b,
                {{ sqlmetrics.replicate_uniform('keyed.__sqlm_key', 'replicates.b', seed) }} as __sqlm_u
            from (
                select
                    __sqlm_source.*,
{% if key %}
                    {{ sqlmetrics.key_hash('__sqlm_source.' ~ key) }} as __sqlm_key
{% else %}
                    {{ sqlmetrics.row_key(order, by) }} as __sqlm_key
{% endif %}
                from {{ relation }} as __sqlm_source
                {{ sqlmetrics.resample_fence() }}
            ) as keyed
            cross join (
{{ sqlmetrics.replicates(n_boot) }}
    ) as replicates
            {{ sqlmetrics.resample_fence() }}
        ) as uniforms
    ) as drawn
{% if mode == 'copies' %}
    join (
{%- for c in range(1, 9) %}
        select {{ c }} as copy{{ ' union all' if not loop.last }}
{%- endfor %}
    ) as copies
        on copies.copy <= drawn.__sqlm_n
{% else %}
    where drawn.__sqlm_n > 0
{% endif %}
)
{%- endmacro %}

{#
  ci_binary_mcc(inner, n_by): binary MCC per (slice, replicate) from the confusion counts of
  `inner` (confusion_kernel sliced by the slices and then the replicate, slice_<n_by>):
  (tp tn - fp fn) / sqrt((tp + fp)(tp + fn)(tn + fp)(tn + fn)), counts first divided by their
  sum and the root taken factor by factor (weights far from 1 neither overflow nor
  underflow); NULL when a factor is 0 (as the metric's NaN). Column ci_value.
#}
{% macro ci_binary_mcc(inner, n_by) -%}
{% set keys %}{% for i in range(n_by + 1) %}slice_{{ i }}, {% endfor %}{% endset %}
select
    {{ keys }}
    (tp * tn - fp * fn) / nullif(sqrt(tp + fp) * sqrt(tp + fn) * sqrt(tn + fp) * sqrt(tn + fn), 0) as ci_value
from (
    select
        {{ keys }}
        cast(tp as {{ sqlmetrics.float_type() }}) / total as tp,
        cast(fp as {{ sqlmetrics.float_type() }}) / total as fp,
        cast(tn as {{ sqlmetrics.float_type() }}) / total as tn,
        cast(fn as {{ sqlmetrics.float_type() }}) / total as fn
    from (
        select counts.*, nullif(cast(tp + fp + tn + fn as {{ sqlmetrics.float_type() }}), 0) as total
        from (
{{ inner }}
        ) as counts
    ) as totals
) as scaled
{%- endmacro %}

{% macro ci_replicate_percentiles(inner, n_by, alias, level) -%}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    {{ sqlmetrics.ci_percentile(alias, (1 - level) / 2) }} as lo,
    {{ sqlmetrics.ci_percentile(alias, (1 + level) / 2) }} as hi,
    count({{ alias }}) as n_valid
from (
{{ inner }}
) as boot
{% if n_by %}
group by {% for i in range(n_by) %}slice_{{ i }}{{ ', ' if not loop.last }}{% endfor %}

order by {% for i in range(n_by) %}slice_{{ i }} nulls last{{ ', ' if not loop.last }}{% endfor %}
{% endif %}
{%- endmacro %}

{#
  ci_group_query(inner, n_by, alias, method, n_boot, seed, level, aggregate, weights):
    inner     the metric's kernel sliced by the user's slices and then the group column
              (slice_<n_by> = the group): one row per group, its value in column `alias`
              (NULL when undefined for the group: left out, as the metric's mean does)
    weights   none (every group 1), or a query of the group weights v_g:
              columns slice_0.. (the same slices), grp, v
    aggregate 'mean' (sum_g v_g x_g / sum_g v_g) | 'geometric' (exp of the mean of ln x_g)
    method    't': per slice n, sum v, sum v x, sum v^2, sum v^2 x, sum v^2 x^2 (Python,
              or ci_t_bounds in SQL, turns them into the weighted mean and its t interval)
              'bootstrap': group g's weight in replicate b is
              poisson1(replicate_uniform(key_hash(g), b, seed)); the replicate value is the
              aggregate with weights v_g times it; lo/hi are percentiles over replicates.
  One pass over the per-group values per replicate: the groups' rows are never re-sorted.
  PostgreSQL (issue 41): the level `keyed` ends in resample_fence(), or the planner pulls it
  up into `uniforms` and hashes each group's key (md5) three times per replicate, not once
  (50,000 groups x 200 replicates: 30M md5 where 50,000 do); `uniforms` comes out in the
  order of the group by (b, then the slices: resample_fence(replicate_keys)), so no sort of
  the groups x replicates rows; the replicate sums are replicate_exact_sum's (resample.sql),
  of the rounded terms computed once per draw in `drawn` (ci_term). The same integers, so
  the same bounds, as before (ndcg@10, 1M rows, 50,000 groups, 200 replicates: 68 s -> 17 s,
  the metric alone 6.5 s; benchmarks/intervals.py).
#}
{% macro ci_group_query(inner, n_by, alias, method, n_boot, seed, level, aggregate, weights=none) -%}
{% set slices %}{% for i in range(n_by) %}slice_{{ i }}, {% endfor %}{% endset %}
{% set replicate_keys = ['b'] %}{% for i in range(n_by) %}{% do replicate_keys.append('slice_' ~ i) %}{% endfor %}
{% set x = 'ln(' ~ alias ~ ')' if aggregate == 'geometric' else alias %}
with per_group as (
    select
        {% for i in range(n_by) %}g.slice_{{ i }} as slice_{{ i }}, {% endfor %}

        g.slice_{{ n_by }} as grp,
        cast({{ x }} as {{ sqlmetrics.float_type() }}) as x,
        {{ 'cast(wt.v as ' ~ sqlmetrics.float_type() ~ ')' if weights else sqlmetrics.float_literal(1) }} as v
    from (
{{ inner }}
    ) as g
{% if weights %}
    join (
{{ weights }}
    ) as wt
        on {% for i in range(n_by) %}{{ sqlmetrics.null_safe_equal('g.slice_' ~ i, 'wt.slice_' ~ i) }} and {% endfor %}g.slice_{{ n_by }} = wt.grp
{% endif %}
    where g.{{ alias }} is not null
),
-- exponents of exact_sum (decision 0006): the sums below do not depend on the row order
scaled as (
    select
        per_group.*,
        {{ sqlmetrics.sum_exponent('v * x', range(n_by)) }} + 3 as e_vx,
        {{ sqlmetrics.sum_exponent('v * v * x', range(n_by)) }} as e_v2x,
        {{ sqlmetrics.sum_exponent('v * v * x * x', range(n_by)) }} as e_v2x2
    from per_group
),
{% if method == 't' %}
final as (
    select
        {{ slices }}
        count(*) as n,
        sum(v) as sv,
        {{ sqlmetrics.exact_sum('v * x', 'e_vx') }} as svx,
        sum(v * v) as sv2,
        {{ sqlmetrics.exact_sum('v * v * x', 'e_v2x') }} as sv2x,
        {{ sqlmetrics.exact_sum('v * v * x * x', 'e_v2x2') }} as sv2x2
    from scaled
    {% if n_by %}group by {% for i in range(n_by) %}slice_{{ i }}{{ ', ' if not loop.last }}{% endfor %}{% endif %}

)
select * from final
{% else %}
keyed as (
    select
        scaled.*,
        {{ sqlmetrics.key_hash('grp') }} as gkey
    from scaled
    {{ sqlmetrics.resample_fence() }}
),
uniforms as (
    select
        {{ slices }}
        keyed.x as x,
        keyed.v as v,
        keyed.e_vx as e_vx,
        replicates.b as b,
        {{ sqlmetrics.replicate_uniform('keyed.gkey', 'replicates.b', seed) }} as u
    from keyed
    cross join (
{{ sqlmetrics.replicates(n_boot) }}
    ) as replicates
    {{ sqlmetrics.resample_fence(replicate_keys | join(', ')) }}
),
drawn as (
    select
        {{ slices }}
        b,
        e_vx,
        vb,
        vb * x as ci_vbx,
        {{ sqlmetrics.replicate_exact_term('vb * x', 'e_vx') }} as ci_term
    from (
        select {{ slices }}b, x, e_vx, v * {{ sqlmetrics.poisson1('u') }} as vb
        from uniforms
    ) as counted
    {{ sqlmetrics.resample_fence(replicate_keys | join(', ')) }}
),
replicate_values as (
    select
        {{ slices }}
        b,
{% if aggregate == 'geometric' %}
        exp({{ sqlmetrics.replicate_exact_sum('ci_vbx', 'e_vx', 'ci_term') }} / nullif(sum(vb), 0)) as x
{% else %}
        {{ sqlmetrics.replicate_exact_sum('ci_vbx', 'e_vx', 'ci_term') }} / nullif(sum(vb), 0) as x
{% endif %}
    from drawn
    group by {{ replicate_keys | join(', ') }}
),
final as (
    select
        {{ slices }}
        {{ sqlmetrics.ci_percentile('x', (1 - level) / 2) }} as lo,
        {{ sqlmetrics.ci_percentile('x', (1 + level) / 2) }} as hi,
        count(x) as n_valid
    from replicate_values
    {% if n_by %}group by {% for i in range(n_by) %}slice_{{ i }}{{ ', ' if not loop.last }}{% endfor %}{% endif %}

)
select * from final
{% endif %}
{% if n_by %}order by {% for i in range(n_by) %}slice_{{ i }} nulls last{{ ', ' if not loop.last }}{% endfor %}
{% endif %}
{%- endmacro %}

{#
  ci_stack_values(inner, n_by, aliases, alias): several metrics' per-group values as the
  `inner` of one ci_group_query (evaluate(ci=): one interval statement per kernel).
    inner    one kernel call sliced by the user's slices and then the group column
             (slice_<n_by> = the group), one column per metric: `aliases`
    output   a row per (metric, slice, group): slice_0.. the slices, slice_<n_by> the metric's
             index in `aliases` (0, 1, ...), slice_<n_by + 1> the group, `alias` its value
  ci_group_query(stacked, n_by + 1, alias, ...) then gives per metric and slice the sums and
  draws of that metric's own query (sums and exponents per slice, draws keyed by the group).
#}
{% macro ci_stack_values(inner, n_by, aliases, alias) -%}
with ci_values as (
{{ inner }}
)
{% for name in aliases %}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    {{ loop.index0 }} as slice_{{ n_by }},
    slice_{{ n_by }} as slice_{{ n_by + 1 }},
    {{ name }} as {{ alias }}
from ci_values
{% if not loop.last %}
union all
{% endif %}
{% endfor %}
{%- endmacro %}

{#
  ci_row_mean_query(relation, by, columns, options, kind, method, order, n_boot, seed, level):
  intervals of a mean of per-row losses, M = sum_i w_i l_i / sum_i w_i (log_loss, brier_score,
  hamming_loss; w_i = 1 without weight), with the metric's own per-row terms:
     kind 'll' (log_loss):     l_i = -ln(q_i), q_i the clipped probability of the row's label
                               (options.eps), w_i l_i written `w * l`
     kind 'sq' (brier_score):  l_i = (p_i - y_i)^2, w_i l_i written `w * (p - y) * (p - y)`
     kind 'miss' (hamming):    l_i = [label_i != prediction_i], w_i l_i written `w * miss`, summed
                               at the exponent of w (as hamming_loss's kernel)
  so that the sums below are the kernel's exact_sums (decision 0006) and M its value bit for
  bit.
  method 't' (the losses' default): per slice
     n   = #{i : w_i <> 0}                 (rows that count)
     sv  = sum_i w_i, svx = sum_i w_i l_i   (M = svx / sv, the metric's value)
     su  = sum_i u_i, u_i = w_i / 2^e, e = ceil(log2 max_i |w_i|) of the slice (exact scaling)
     ss  = sum_i (u_i (l_i - M))^2         (centred: a second pass with M joined back)
  Python (intervals.py::t_row_interval) or ci_t_bounds(centred=true) turn them into
     SE = sqrt(ss n / (n - 1)) / su = sqrt(n / (n - 1) sum_i w_i^2 (l_i - M)^2) / sum_i w_i
     bounds M -+ t_{n-1}((1 + level) / 2) SE
  (unweighted: SE = s / sqrt(n), s the sample standard deviation of the l_i; weighted: the
  linearised variance of a ratio estimator with the n / (n - 1) correction, as ci_group_query's
  t over per-group values). Undefined (NULL bounds): n < 2, or sum w = 0 (M undefined).
  The weights enter as u (scale-free: a power-of-two factor on w gives the same bits; weights
  of 1e300 do not overflow their squares). ss is an exact_sum at the exponent 2 e_l + 2 of the
  bound (2 max|l|)^2 (|u| <= 1, |l - M| <= 2 max|l|): any row order, the same bits.
  Output (t): slice_0.., n, sv, svx, su, ss.
  method 'bootstrap': the row bootstrap of ci_rows_relation, the same draws (row key: the
  row's position in `order` within its slice; count n_ib = poisson1(replicate_uniform(key, b,
  seed))) and the same per-row terms with w_i n_ib for w_i, but in one pass over rows x
  replicates with no per-replicate kernel: the loss l_i and the key's hash part are computed
  once per row, and each (slice, replicate) sums
     M_b = sum_i n_ib w_i l_i / sum_i n_ib w_i
  as exact_sums at the slice's exponents of |w| and |w l| plus 3 (n_ib <= 8 = 2^3, so every
  term is within the bound: the same bits in any row order and on any thread count). The
  kernel over ci_rows_relation (the generic row bootstrap) sums at each replicate's own
  exponent instead, a finer grid by 0 to 3 bits: the two agree bit for bit unless an exact
  sum lies within ~2^-80 of its largest term from a rounding boundary of the double
  (tests/test_intervals_losses.py compares them). Replicates with sum n_ib w_i = 0 are NULL,
  left out. Output (bootstrap): slice_0.., lo, hi, n_valid.
#}
{% macro ci_row_mean_query(relation, by, columns, options, kind, method, order=[], n_boot=200, seed=0, level=0.95) -%}
{% set f = sqlmetrics.float_type() %}
{% set slices = sqlmetrics.slice_cols(by) %}
{% set slice_names = [] %}{% for col in by %}{% do slice_names.append('slice_' ~ loop.index0) %}{% endfor %}
{% set tail = {'ll': ' * l', 'sq': ' * (p - label) * (p - label)', 'miss': ' * miss'}[kind] %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
{% if kind == 'miss' %}
        case when {{ columns.label }} = {{ columns.prediction }} then 0 else 1 end as miss,
{% elif kind == 'sq' %}
        cast({{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as {{ f }}) as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ f }}) as p,
{% else %}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ f }}) as p,
{% endif %}
{% if method == 'bootstrap' %}
        {{ sqlmetrics.row_key(order, by) }} as row_key,
{% endif %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ f ~ ')' if columns.weight else 'cast(1 as ' ~ f ~ ')' }} as w
    from {{ relation }}
),
terms as (
    select
        source.*,
{% if kind == 'll' %}
        -ln(
            case
                when label = 1 then greatest(least(p, {{ sqlmetrics.float_literal(1.0 - options.eps) }}), {{ sqlmetrics.float_literal(options.eps) }})
                else greatest(least(1 - p, {{ sqlmetrics.float_literal(1.0 - options.eps) }}), {{ sqlmetrics.float_literal(options.eps) }})
            end
        ) as l
{% elif kind == 'sq' %}
        (p - label) * (p - label) as l
{% else %}
        cast(miss as {{ f }}) as l
{% endif %}
    from source
),
weighted_terms as (
    select
        terms.*,
        w{{ tail }} as wl
    from terms
),
{% if method == 't' %}
{{ sqlmetrics.ci_row_mean_t(by, kind, slices) }}
{% else %}
{{ sqlmetrics.ci_row_mean_bootstrap(by, kind, slices, tail, seed, n_boot, level) }}
{% endif %}
{%- endmacro %}

{# ci_row_mean_query's t tail: the sums and the centred squares (stages after weighted_terms) #}
{% macro ci_row_mean_t(by, kind, slices) -%}
{{ sqlmetrics.with_slice_exponents('scaled', 'weighted_terms', by, [('e_w', 'w'), ('e_wl', 'w' if kind == 'miss' else 'wl'), ('e_l', 'l')]) }},
sums as (
    select
        {% for col in by %}slice_{{ loop.index0 }} as s_slice_{{ loop.index0 }}, {% endfor %}

        sum(case when w <> 0 then 1 else 0 end) as n,
        {{ sqlmetrics.exact_sum('w', 'e_w') }} as sv,
        {{ sqlmetrics.exact_sum('wl', 'e_wl') }} as svx,
        max(e_w) as s_e_w,
        max(e_l) as s_e_l
    from scaled
    {{ sqlmetrics.group_by(by) }}
),
centred_terms as (
    select
        {{ slices }}
        sums.n as n,
        sums.sv as sv,
        sums.svx as svx,
        2 * sums.s_e_l + 2 as e_dd,
        {{ sqlmetrics.ldexp('scaled.w', '-sums.s_e_w') }} as u,
        scaled.l - sums.svx / nullif(sums.sv, 0) as dev
    from scaled
    join sums
        on {{ sqlmetrics.join_on_slices('scaled', 'sums', by, [], 's_') }}
),
squares as (
    select
        centred_terms.*,
        (u * dev) * (u * dev) as dd
    from centred_terms
),
final as (
    select
        {{ slices }}
        max(n) as n,
        max(sv) as sv,
        max(svx) as svx,
        {{ sqlmetrics.exact_sum('u', 0) }} as su,
        {{ sqlmetrics.exact_sum('dd', 'e_dd') }} as ss
    from squares
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{# ci_row_mean_query's bootstrap tail: rows x replicates, one grouped sum per (slice, replicate) #}
{% macro ci_row_mean_bootstrap(by, kind, slices, tail, seed, n_boot, level) -%}
{% set f = sqlmetrics.float_type() %}
{{ sqlmetrics.with_slice_exponents('scaled', 'weighted_terms', by, [('e_w', 'w'), ('e_wl', 'w' if kind == 'miss' else 'wl')]) }},
keyed as (
    select
        scaled.*,
        {{ sqlmetrics.replicate_key('row_key', seed) }} as key_a
    from scaled
),
-- rows x replicates: the replicate's first hash step (the count's uniform one level up)
replicated as (
    select
        {{ sqlmetrics.slice_cols_of('keyed', by) }}
        replicates.b as b,
        keyed.w as w,
{% if kind == 'll' %}
        keyed.l as l,
{% elif kind == 'sq' %}
        keyed.p as p,
        keyed.label as label,
{% else %}
        keyed.miss as miss,
{% endif %}
        keyed.e_w as e_w,
        keyed.e_wl as e_wl,
        keyed.key_a as key_a,
        {{ sqlmetrics.replicate_x1('keyed.key_a', 'replicates.b') }} as x1
    from keyed
    cross join (
{{ sqlmetrics.replicates(n_boot) }}
    ) as replicates
    {{ sqlmetrics.resample_fence() }}
),
uniforms as (
    select
        replicated.*,
        cast({{ sqlmetrics.replicate_x('x1', 'key_a', 'b') }} as {{ f }}) / {{ sqlmetrics.float_literal(2147483647) }} as u
    from replicated
    {{ sqlmetrics.resample_fence() }}
),
drawn as (
    select
        uniforms.*,
        w * cast({{ sqlmetrics.poisson1('u') }} as {{ f }}) as wb
    from uniforms
),
replicate_values as (
    select
        {{ slices }}
        b,
        {{ sqlmetrics.exact_sum('wb' ~ tail, 'e_wl + 3') }}
            / nullif({{ sqlmetrics.exact_sum('wb', 'e_w + 3') }}, 0) as x
    from drawn
    {{ sqlmetrics.group_by(by, ['b']) }}
),
final as (
    select
        {{ slices }}
        {{ sqlmetrics.ci_percentile('x', (1 - level) / 2) }} as lo,
        {{ sqlmetrics.ci_percentile('x', (1 + level) / 2) }} as hi,
        count(x) as n_valid
    from replicate_values
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{#
  ci_group_weights(relation, by, group, kind, label, options): v_g per (slice, group):
    rows      rows of the group (gauc weighting='samples')
    positives its positive rows (gauc weighting='positives')
    relevant  its relevant rows, label >= relevance_level (hit_ratio: relevant items)
    column    the group's value of the column `label` (the ranking metrics' group_weight=,
              constant within a group)
    tfr       weight= on a ranking mean other than dcg/ndcg: TF-Ranking's list weight W_g
              (ranking_list_weights, the kernel's), from the label column `label`, the item
              weight column options.weight_column and, when given, times the group weight
              column options.group_weight_column
#}
{% macro ci_group_weights(relation, by, group, kind, label, options) -%}
{% if kind == 'tfr' %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ group }} as grp,
{% if options.get('group_weight_column') %}
        cast({{ options.group_weight_column }} as {{ sqlmetrics.float_type() }}) as gw,
{% endif %}
        cast({{ options.weight_column }} as {{ sqlmetrics.float_type() }}) as w,
        cast({{ label }} as {{ sqlmetrics.float_type() }}) as label
    from {{ relation }}
),
{{ sqlmetrics.ranking_list_weights(by, options.relevance_level, options.get('group_weight_column')) | trim | trim(',') }}
select
{% for col in by %}
    l_slice_{{ loop.index0 }} as slice_{{ loop.index0 }},
{% endfor %}
    l_grp as grp,
    lw as v
from list_weights
-- a list of weight 0 leaves the interval, as a group of group_weight 0 does
where lw > 0
{% else %}
select
    {{ sqlmetrics.slice_source(by) }}
    {{ group }} as grp,
{% if kind == 'rows' %}
    count(*) as v
{% elif kind == 'positives' %}
    sum({{ sqlmetrics.binary_label(label, options.pos_label) }}) as v
{% elif kind == 'column' %}
    max({{ label }}) as v
{% else %}
    sum(case when {{ label }} >= {{ sqlmetrics.float_literal(options.relevance_level) }} then 1 else 0 end) as v
{% endif %}
from {{ relation }}
group by {% for col in by %}{{ col }}, {% endfor %}{{ group }}
{% endif %}
{%- endmacro %}

{#
  ci_delong(relation, by, columns, options): AUC and DeLong's variance (DeLong, DeLong &
  Clarke-Pearson 1988) from placement values (Sun & Xu 2014: the placements are the
  positives' and negatives' counts below/above):
     per distinct score s: pos_s, neg_s, neg_below_s, pos_below_s; P, N: the slice's classes
     V10(s) = (neg_below_s + neg_s / 2) / N             placement of a positive scored s
     V01(s) = (P - (pos_below_s + pos_s / 2)) / P       placement of a negative scored s
     AUC    = sum_s pos_s V10(s) / P            (the Mann-Whitney U / (P N), exactly)
     S10    = (sum_s pos_s V10(s)^2 - P AUC^2) / (P - 1)
     S01    = (sum_s neg_s V01(s)^2 - N AUC^2) / (N - 1)
     var    = S10 / P + S01 / N
  Unweighted only (Python refuses weight= for this method). Undefined: P < 2 or N < 2 ->
  var NULL; P = 0 or N = 0 -> auc NULL.
  Output: slice_0.., auc, var, n_pos, n_neg.
  Spark (spark__ci_delong): the per-score running sums of ci_score_placements, distributed.
#}
{% macro ci_delong(relation, by, columns, options) -%}
{{ adapter.dispatch('ci_delong', 'sqlmetrics')(relation, by, columns, options) }}
{%- endmacro %}

{#
  default__ci_delong: the AUC's own window over the rows, then a second sort of one class's
  rows only; no aggregate per score (on 3M distinct scores that aggregate and its sort cost
  as much again as the AUC: benchmarks/RESULTS.md, "Intervals' cost").
    classes     per slice: P (n_pos_rows), the rows, and the own class o: the positives when
                2 P <= P + N, else the negatives (t: the other class). Only o's rows are
                sorted again: at most half of the slice. A scan of its own (`source`, read
                twice, would be materialised: DuckDB and PostgreSQL store a CTE read twice).
    ranked      auc_rank_sums' window: rank_lo = rows scored below + 1, rank_hi = rows
                scored at or below (the AUC's one sort of all rows).
    own_ranked  o's rows by score: rank() - 1, row_number(), lead(rank_lo) (one window, so
                one order of the tied rows for the three).
    score_groups  the last o row of each o score s (o_le = n_own, or the next o row has another
                rank_lo; rows of one score and class are interchangeable, so any order of
                the ties gives the same rows):
                  o_lt, o_le (o_n = o_le - o_lt)  o rows below s, at or below s (at s)
                  t_lt = rank_lo - 1 - o_lt, t_le = rank_hi - o_le (t_n = t_le - t_lt)
                  gap  t rows above s and below the next o score: its rank_lo - 1 - rank_hi
                       (after the last o score: the slice's rows - rank_hi)
                  low  t rows below the first o score (its rank_lo - 1; 0 at the others)
  A t row is tied with an o score, in a gap or below the first o score, and its placement
  depends only on the o rows below it: o_lt + o_n / 2 when tied, o_le in the gap after s, 0
  below the first. So both classes' sums come per o score, as counts times placements:
    o = positives:  sum_pos V10^2 = sum_s o_n ((t_lt + t_n / 2) / N)^2
                    sum_neg V01^2 = sum_s t_n ((P - (o_lt + o_n / 2)) / P)^2
                                    + gap ((P - o_le) / P)^2 + low (P / P)^2
    o = negatives:  sum_neg V01^2 = sum_s o_n ((P - (t_lt + t_n / 2)) / P)^2
                    sum_pos V10^2 = sum_s t_n ((o_lt + o_n / 2) / N)^2 + gap (o_le / N)^2
  Each term is the per-score term of spark__ci_delong (a count times the same placement,
  multiplied in the same order); only the scores of a gap add as one term, and the order of
  the sum differs. 2U = S = sum_s o_n (t_lt + t_le) when o = positives (each positive's
  negatives below plus at or below), 2 P N - S when o = negatives: exact integers, the same
  integer as auc_rank_sums' u2, so the AUC has auc's bits.
#}
{% macro default__ci_delong(relation, by, columns, options) -%}
{% set slices = sqlmetrics.slice_cols(by) %}
{% set window = sqlmetrics.window(by, 'score') %}
{% set f = sqlmetrics.float_type() %}
{% set two = sqlmetrics.float_literal(2) %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
        {{ sqlmetrics.score_value(columns.score) }} as score
    from {{ relation }}
),
classes as (
    select
        {{ sqlmetrics.slice_cols_as(by, 'c_') }}
        sum(label) as n_pos_rows,
        count(*) as n_rows,
        case when 2 * sum(label) <= count(*) then 1 else 0 end as own
    from (
        select
            {{ sqlmetrics.slice_source(by) }}
            {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label
        from {{ relation }}
    ) as class_rows
    {{ sqlmetrics.group_by(by) }}
),
ranked as (
    select
        {{ slices }}
        label,
        score,
        rank() over ({{ window }}) as rank_lo,
        count(*) over ({{ window }}) as rank_hi
    from source
),
own_rows as (
    select
        {{ slices }}
        score,
        rank_lo,
        rank_hi,
        own,
        n_rows,
        case when own = 1 then n_pos_rows else n_rows - n_pos_rows end as n_own
    from ranked
    join classes
        on label = own{{ ' and ' ~ sqlmetrics.auc_join_slices(by, 'c_') if by }}
),
{{ sqlmetrics.ci_delong_placed(by) }}
per_slice as (
    select
        {{ slices }}
        {{ sqlmetrics.int_sum('pairs') }} as pairs,
        sum(case when own = 1 then o_n * own_v * own_v else t_n * tie_v * tie_v + gap_n * gap_v * gap_v end) as s10,
        sum(case when own = 1 then t_n * tie_v * tie_v + gap_n * gap_v * gap_v + low_n else o_n * own_v * own_v end) as s01
    from placed
    {{ sqlmetrics.group_by(by) }}
),
totals as (
    select
        {% for col in by %}classes.c_slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        cast(n_pos_rows as {{ f }}) as n_pos,
        cast(n_rows - n_pos_rows as {{ f }}) as n_neg,
        -- twice the Mann-Whitney U: an exact integer
        cast(case when own = 1 then pairs else 2 * cast(n_pos_rows as {{ sqlmetrics.exact_int() }}) * (n_rows - n_pos_rows) - pairs end as {{ f }}) as u2,
        s10,
        s01
    from classes
    left join per_slice
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('classes.c_slice_' ~ loop.index0, 'per_slice.slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}{{ '1 = 1' if not by }}
),
final as (
    select
        {{ slices }}
        u2 / 2 / nullif(n_pos * n_neg, 0) as auc,
        (s10 - n_pos * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_pos - 1, 0) / nullif(n_pos, 0)
            + (s01 - n_neg * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_neg - 1, 0) / nullif(n_neg, 0)
            as var,
        n_pos,
        n_neg
    from totals
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{# default__ci_delong's middle stages: own_ranked (the smaller class's rows ranked again
   among themselves), score_groups (one row per score of that class, with the other class's
   rows below, tied and in the gap up to the next score; not `groups`, a reserved word of
   BigQuery's) and placed (their placement values) #}
{% macro ci_delong_placed(by) -%}
{% set slices = sqlmetrics.slice_cols(by) %}
{% set window = sqlmetrics.window(by, 'score') %}
{% set f = sqlmetrics.float_type() %}
{% set two = sqlmetrics.float_literal(2) %}
own_ranked as (
    select
        {{ slices }}
        rank_lo,
        rank_hi,
        own,
        n_rows,
        n_own,
        rank() over ({{ window }}) - 1 as o_lt,
        row_number() over ({{ window }}) as o_le,
        lead(rank_lo) over ({{ window }}) as next_rank_lo
    from own_rows
),
score_groups as (
    select
        {{ slices }}
        own,
        o_lt,
        o_le,
        rank_lo - 1 - o_lt as t_lt,
        rank_hi - o_le as t_le,
        case when o_le = n_own then n_rows else next_rank_lo - 1 end - rank_hi as gap,
        case when o_lt = 0 then rank_lo - 1 else 0 end as low,
        n_own,
        n_rows - n_own as n_other
    from own_ranked
    where o_le = n_own or next_rank_lo <> rank_lo
),
-- floats: o_n, t_n = the o and t rows at s; placements of the o rows at s (own_v), of the t
-- rows tied with them (tie_v) and of the gap's t rows (gap_v), each as V10 or V01
placed as (
    select
        {{ slices }}
        own,
        (o_le - o_lt) * (t_lt + t_le) as pairs,
        cast(o_le - o_lt as {{ f }}) as o_n,
        cast(t_le - t_lt as {{ f }}) as t_n,
        cast(gap as {{ f }}) as gap_n,
        cast(low as {{ f }}) as low_n,
        (case when own = 1 then t_lt + (t_le - t_lt) / {{ two }}
              else n_other - (t_lt + (t_le - t_lt) / {{ two }}) end) / nullif(cast(n_other as {{ f }}), 0) as own_v,
        (case when own = 1 then n_own - (o_lt + (o_le - o_lt) / {{ two }})
              else o_lt + (o_le - o_lt) / {{ two }} end) / nullif(cast(n_own as {{ f }}), 0) as tie_v,
        cast(case when own = 1 then n_own - o_le else o_le end as {{ f }}) / nullif(cast(n_own as {{ f }}), 0) as gap_v
    from score_groups
),
{%- endmacro %}

{# Spark: one sort of the distinct scores, the distributed running sums of
   ci_score_placements (no window over a whole slice: default__ci_delong's two row windows
   would move every row of a slice into one partition) #}
{% macro spark__ci_delong(relation, by, columns, options) -%}
with {{ sqlmetrics.ci_score_placements(relation, by, columns.label, columns.score, options.pos_label) }},
per_slice as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        sum(pos) as n_pos,
        sum(neg) as n_neg,
        -- twice the Mann-Whitney terms: exact integers
        cast(sum(pos * (2 * neg_below + neg)) as {{ sqlmetrics.float_type() }}) as u2,
        sum(pos * (a / nullif(neg_total, 0)) * (a / nullif(neg_total, 0))) as s10,
        sum(neg * ((pos_total - x) / nullif(pos_total, 0)) * ((pos_total - x) / nullif(pos_total, 0))) as s01
    from placements
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        u2 / 2 / nullif(n_pos * n_neg, 0) as auc,
        (s10 - n_pos * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_pos - 1, 0) / nullif(n_pos, 0)
            + (s01 - n_neg * power(u2 / 2 / nullif(n_pos * n_neg, 0), 2)) / nullif(n_neg - 1, 0) / nullif(n_neg, 0)
            as var,
        n_pos,
        n_neg
    from per_slice
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{#
  ci_score_placements(relation, by, label, score, pos_label, scores=false): the CTEs source,
  per_score, running and placements (no leading `with`): one row per (slice, distinct score)
  of one model, ascending, with pos, neg (floats), neg_below, pos_below, neg_total, pos_total
  and the placement counts
     a = neg_below + neg / 2   (of a positive scored `score`: negatives below, ties 1/2)
     x = pos_below + pos / 2   (of a negative: positives below, ties 1/2; its placement among
                                the positives above is pos_total - x)
  (with scores=true, running also has scores_below and n_scores). One sort of the distinct
  scores (distributed on Spark): Spark's DeLong interval (spark__ci_delong), AUC's bucket
  bootstrap (ci_auc_bootstrap) and compare's DeLong test (compare_delong, once per model)
  read it.
#}
{% macro ci_score_placements(relation, by, label, score, pos_label, scores=false) -%}
source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(label, pos_label) }} as label,
        {{ sqlmetrics.score_value(score) }} as score
    from {{ relation }}
),
per_score as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        sum(label) as pos,
        count(*) - sum(label) as neg,
        1 as one
    from source
    {{ sqlmetrics.group_by(by, ['score']) }}
),
{{ sqlmetrics.ci_delong_running(by, scores) }},
placements as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        cast(pos as {{ sqlmetrics.float_type() }}) as pos,
        cast(neg as {{ sqlmetrics.float_type() }}) as neg,
        neg_below,
        pos_below,
        neg_total,
        pos_total,
        neg_below + neg / {{ sqlmetrics.float_literal(2) }} as a,
        pos_below + pos / {{ sqlmetrics.float_literal(2) }} as x
    from running
)
{%- endmacro %}

{# running (per slice, per distinct score ascending): pos, neg, neg_below, pos_below, totals;
   with scores=true also scores_below (distinct scores below) and n_scores (the slice's), from
   a column `one` = 1 of per_score #}
{% macro ci_delong_running(by, scores=false) -%}
{{ adapter.dispatch('ci_delong_running', 'sqlmetrics')(by, scores) }}
{%- endmacro %}

{% macro default__ci_delong_running(by, scores=false) -%}
running as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        pos,
        neg,
{% if scores %}
        row_number() over ({{ sqlmetrics.window(by, 'score') }}) - 1 as scores_below,
        count(*) over ({{ sqlmetrics.partition_by(by) }}) as n_scores,
{% endif %}
        cast(sum(neg) over ({{ sqlmetrics.window(by, 'score') }} rows between unbounded preceding and current row) - neg as {{ sqlmetrics.float_type() }}) as neg_below,
        cast(sum(pos) over ({{ sqlmetrics.window(by, 'score') }} rows between unbounded preceding and current row) - pos as {{ sqlmetrics.float_type() }}) as pos_below,
        cast(sum(neg) over ({{ sqlmetrics.partition_by(by) }}) as {{ sqlmetrics.float_type() }}) as neg_total,
        cast(sum(pos) over ({{ sqlmetrics.partition_by(by) }}) as {{ sqlmetrics.float_type() }}) as pos_total
    from per_score
)
{%- endmacro %}

{# Spark: the distributed running sums of sql/_macros/kernels/auc.sql (no window over a whole slice) #}
{% macro spark__ci_delong_running(by, scores=false) -%}
{{ sqlmetrics.auc_prefixed('per_score', by, ['neg', 'pos', 'one'] if scores else ['neg', 'pos']) }},
running as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        score,
        pos,
        neg,
{% if scores %}
        one_before as scores_below,
        one_total as n_scores,
{% endif %}
        cast(neg_before as {{ sqlmetrics.float_type() }}) as neg_below,
        cast(pos_before as {{ sqlmetrics.float_type() }}) as pos_below,
        cast(neg_total as {{ sqlmetrics.float_type() }}) as neg_total,
        cast(pos_total as {{ sqlmetrics.float_type() }}) as pos_total
    from prefixed
)
{%- endmacro %}

{#
  ci_auc_bootstrap(relation, by, columns, options, n_boot, seed, level, n_buckets): AUC and the
  percentile interval of its Poisson row bootstrap, from one sort of the distinct scores
  (the running sums of ci_delong) and draws per score bucket, never per row.
  Buckets: per slice, when it has at most n_buckets distinct scores, one bucket per distinct
  score (k = distinct scores below); else k = floor(rows scored below / ceil(n / n_buckets))
  (runs of consecutive scores of about n / n_buckets rows; tied scores share a bucket). Per
  bucket, from the full sample: P_k, N_k and U_k, the Mann-Whitney count of the bucket's own
  positive/negative pairs (ties 1/2), c_k = U_k / (P_k N_k).
  Replicate b: in the row bootstrap, the bucket's count of positives is a sum of P_k iid
  Poisson(1) row weights, i.e. Poisson(P_k) (likewise N_k): drawn directly, once per (bucket,
  class, replicate), by poisson_counts (sql/_macros/inference/resample.sql) from
  x = replicate_int(key_hash(2 k + class), b, seed): P_kb, N_kb. Then
     U_b = sum_k P_kb (N_b(<k) + c_k N_kb),    AUC_b = U_b / (P_b N_b)
  Pairs in different buckets are ordered by their buckets exactly. With one distinct score
  per bucket (c_k = 1/2 for ties), the replicate AUCs have exactly the law of the row
  bootstrap's (the rows of one class and score are interchangeable). APPROXIMATION with more
  distinct scores than n_buckets: a replicate's pairs inside bucket k count c_k each, the
  full sample's share of concordant pairs there, instead of their own: at most a
  ~1/n_buckets share of all pairs; and poisson_counts' Cornish-Fisher draw for a mean above
  20 (never more than 1 off the exact Poisson quantile of its uniform).
  Cost: the hash aggregate per distinct score, a window over the distinct scores, then
  buckets x 2 x n_boot draws: no per-row work per replicate.
  The AUC is the exact Mann-Whitney U / (P N) of the same running sums (bit-equal to auc's).
  Output: slice_0.., auc, n_pos, n_neg, lo, hi, n_valid.
#}
{% macro ci_auc_bootstrap(relation, by, columns, options, n_boot, seed, level, n_buckets) -%}
{% set slices = sqlmetrics.slice_cols(by) %}
with {{ sqlmetrics.ci_score_placements(relation, by, columns.label, columns.score, options.pos_label, true) }},
scored as (
    select
        {{ slices }}
        pos,
        neg,
        neg_below,
        pos_total,
        neg_total,
        case
            when n_scores <= {{ n_buckets }} then cast(scores_below as bigint)
            else cast(floor((neg_below + pos_below) / ceil((pos_total + neg_total) / {{ sqlmetrics.float_literal(n_buckets) }})) as bigint)
        end as bucket
    from running
),
-- per bucket: P_k, N_k, twice its own Mann-Whitney count, the slice's twice-U terms
buckets as (
    select
        {{ slices }}
        bucket,
        sum(pos) as p,
        sum(neg) as q,
        sum(pos * (2 * neg_below + neg)) - 2 * sum(pos) * min(neg_below) as u2_own,
        sum(pos * (2 * neg_below + neg)) as u2
    from scored
    {{ sqlmetrics.group_by(by, ['bucket']) }}
),
cells as (
    select {{ slices }}bucket, 1 as cls, p as lam, {{ sqlmetrics.key_hash('2 * bucket + 1') }} as cell_key from buckets where p > 0
    union all
    select {{ slices }}bucket, 0 as cls, q as lam, {{ sqlmetrics.key_hash('2 * bucket') }} as cell_key from buckets where q > 0
),
draws as (
    select
        {{ slices }}
        cells.bucket as bucket,
        cells.cls as cls,
        replicates.b as b,
        cast(cells.lam as bigint) as lam,
        {{ sqlmetrics.replicate_int('cells.cell_key', 'replicates.b', seed) }} as x
    from cells
    cross join (
{{ sqlmetrics.replicates(n_boot) }}
    ) as replicates
),
counts as (
{%- set keys = [] %}{% for col in by %}{% do keys.append('slice_' ~ loop.index0) %}{% endfor %}{% do keys.extend(['bucket', 'cls', 'b']) %}
{{ sqlmetrics.poisson_counts('draws', keys) | indent(4, true) }}
),
drawn as (
    select
        {{ slices }}
        bucket,
        b,
        sum(case when cls = 1 then n else 0 end) as pb,
        sum(case when cls = 0 then n else 0 end) as qb
    from counts
    {{ sqlmetrics.group_by(by, ['bucket', 'b']) }}
),
joined as (
    select
        drawn.*,
        coalesce(buckets.u2_own / {{ sqlmetrics.float_literal(2) }} / nullif(cast(buckets.p as {{ sqlmetrics.float_type() }}) * buckets.q, 0), 0) as c
    from drawn
    join buckets
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('drawn.slice_' ~ loop.index0, 'buckets.slice_' ~ loop.index0) }} and {% endfor %}drawn.bucket = buckets.bucket
),
replicate_pairs as (
    select
        {{ slices }}
        b,
        cast(pb as {{ sqlmetrics.float_type() }}) as pb,
        cast(qb as {{ sqlmetrics.float_type() }}) as qb,
        c,
        cast(coalesce(sum(qb) over ({{ sqlmetrics.window(by, 'bucket', ['b']) }} rows between unbounded preceding and 1 preceding), 0) as {{ sqlmetrics.float_type() }}) as q_before
    from joined
),
-- each term pb (q_before + c qb) <= P_b N_b: one exponent per (slice, replicate), exact_sum
replicate_terms as (
    select
        replicate_pairs.*,
        pb * (q_before + c * qb) as pairs,
        {{ sqlmetrics.sum_exponent('pb * (q_before + qb)', by, ['b']) }} as e_pairs
    from replicate_pairs
),
replicate_values as (
    select
        {{ slices }}
        b,
        {{ sqlmetrics.exact_sum('pairs', 'e_pairs') }} / nullif(sum(pb) * sum(qb), 0) as auc
    from replicate_terms
    {{ sqlmetrics.group_by(by, ['b']) }}
),
intervals as (
    select
        {{ slices }}
        {{ sqlmetrics.ci_percentile('auc', (1 - level) / 2) }} as lo,
        {{ sqlmetrics.ci_percentile('auc', (1 + level) / 2) }} as hi,
        count(auc) as n_valid
    from replicate_values
    {{ sqlmetrics.group_by(by) }}
),
totals as (
    select
        {{ slices }}
        cast(sum(u2) as {{ sqlmetrics.float_type() }}) / 2 / nullif(cast(sum(p) as {{ sqlmetrics.float_type() }}) * sum(q), 0) as auc,
        cast(sum(p) as {{ sqlmetrics.float_type() }}) as n_pos,
        cast(sum(q) as {{ sqlmetrics.float_type() }}) as n_neg
    from buckets
    {{ sqlmetrics.group_by(by) }}
),
final as (
    select
        {% for col in by %}totals.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        totals.auc as auc,
        totals.n_pos as n_pos,
        totals.n_neg as n_neg,
        intervals.lo as lo,
        intervals.hi as hi,
        coalesce(intervals.n_valid, 0) as n_valid
    from totals
    left join intervals
        on {% for col in by %}{{ sqlmetrics.null_safe_equal('totals.slice_' ~ loop.index0, 'intervals.slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% endfor %}{{ '1 = 1' if not by }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{#
  ci_wilson_weights(relation, weight): the relation with the weights of a weighted Wilson
  interval, normalised by a power of two: __sqlm_u = weight / 2^e, e = ceil(log2 max weight)
  over the relation (an exact scaling: u in (0, 2]), and __sqlm_u2 = u^2. The proportion
  sum u [successes] / sum u and Kish's effective size n_eff = (sum u)^2 / sum u^2 are ratios
  in which 2^e cancels, so the interval does not depend on the weights' scale: a power-of-two
  factor gives the same bits, weights of 1e300 do not overflow their squares and weights of
  1e-300 or subnormal ones do not underflow them. All-zero weights: u NULL (undefined).
#}
{% macro ci_wilson_weights(relation, weight) -%}
(
    select
        scaled.*,
        scaled.__sqlm_u * scaled.__sqlm_u as __sqlm_u2
    from (
        select
            __sqlm_source.*,
            {{ sqlmetrics.ldexp('cast(' ~ weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')', '-wilson_scale.e') }} as __sqlm_u
        from {{ relation }} as __sqlm_source
        cross join (
            select ceil(ln(nullif(max(cast({{ weight }} as {{ sqlmetrics.float_type() }})), 0)) / ln({{ sqlmetrics.float_literal(2) }})) as e
            from {{ relation }}
        ) as wilson_scale
    ) as scaled
) as wilson_weighted
{%- endmacro %}

{#
  The last step of an interval in SQL, for render(ci=) and the dbt macros with ci (the
  Python path computes the same numbers with the same operations in the same order:
  sqlmetrics/_inference/intervals.py; tests/test_render_ci.py checks them bit for bit).
  z is an SQL expression of the two-sided normal factor (render: its exact literal).

  ci_normal_bounds(inner, n_by, value, z): DeLong's normal interval from ci_delong's columns
    (`value`, var): half = z * sqrt(max(var, 0)), bounds value -+ half clipped to [0, 1].
    Output: slice_0.., value, lo, hi.
  ci_wilson_bounds(inner, n_by, s, n, z): Wilson's score interval of p = s / n with sample
    size n (s and n SQL expressions over `inner`'s columns), clamped to [0, p] and [p, 1];
    NULL when n <= 0. Output: slice_0.., lo, hi.
  ci_t_bounds(inner, n_by, table, terms): the t interval of a weighted mean over groups from
    ci_group_query's t sums (n, sv, svx, sv2, sv2x, sv2x2), as intervals.py::t_interval:
      mean = svx / sv, ss = sv2x2 - 2 mean sv2x + mean^2 sv2,
      se = sqrt(max(ss, 0) n / (n - 1)) / sv, bounds mean -+ t se; NULL for n < 2.
    The factor t with df = n - 1 (per slice: the only part that depends on the data) is
    stats.py::two_sided_t_interval in SQL: `table` holds two_sided_t(level, df) for
    df = 1..len(table) (1000, exact literals computed by render or the caller), joined on df;
    above it the four-term Cornish-Fisher expansion of the t quantile in z (Abramowitz &
    Stegun 26.7.5; `terms` = z, g1..g4 as SQL literals of the level):
      t = z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df,
    the same operations as Python's, so the bounds are Python's bit for bit.
    centred=true: the sums of ci_row_mean_query (n, sv, svx, su, ss; a mean of per-row
    losses), as intervals.py::t_row_interval: mean = svx / sv, se = sqrt(max(ss, 0) n /
    (n - 1)) / su. The expansion's
    relative error for df > 1000 is about its first omitted term g5(z) / df^5: below 3e-14
    for levels up to 0.999, 4e-12 at 1 - 1e-8 (tests/test_stats.py checks it against scipy).
    Output: slice_0.., lo, hi.
  ci_render(metric_sql, bounds_sql, n_by, value, lo, hi, contain): the metric's statement
    (its value column `value`; none when bounds_sql holds it) joined to its bounds on the
    slices: slice_0.., value, lo, hi (the last two named `lo`, `hi`, quoted), NULL bounds
    where the value is NULL; contain (Wilson): the bounds widened to hold the value.
#}
{% macro ci_normal_bounds(inner, n_by, value, z) -%}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    {{ value }},
    case when {{ value }} - half < 0 then {{ sqlmetrics.float_literal(0) }} when {{ value }} - half > 1 then {{ sqlmetrics.float_literal(1) }} else {{ value }} - half end as lo,
    case when {{ value }} + half < 0 then {{ sqlmetrics.float_literal(0) }} when {{ value }} + half > 1 then {{ sqlmetrics.float_literal(1) }} else {{ value }} + half end as hi
from (
    select
        normal_inner.*,
        ({{ z }}) * sqrt(case when var < 0 then {{ sqlmetrics.float_literal(0) }} else var end) as half
    from (
{{ inner | indent(8, true) }}
    ) as normal_inner
) as normal_half
{%- endmacro %}

{% macro ci_wilson_bounds(inner, n_by, s, n, z) -%}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    case when n > 0 then case when center - half < 0 then {{ sqlmetrics.float_literal(0) }} when center - half > p then p else center - half end end as lo,
    case when n > 0 then case when center + half > 1 then {{ sqlmetrics.float_literal(1) }} when center + half < p then p else center + half end end as hi
from (
    select
        wilson_p.*,
        (p + zz / (2 * n)) / denom as center,
        ({{ z }}) / denom * sqrt(p * (1 - p) / n + zz / ((4 * n) * n)) as half
    from (
        select
            wilson_n.*,
            1 + zz / n as denom,
            case when n > 0 then case when s / n < 0 then {{ sqlmetrics.float_literal(0) }} when s / n > 1 then {{ sqlmetrics.float_literal(1) }} else s / n end end as p
        from (
            select
                {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

                cast({{ s }} as {{ sqlmetrics.float_type() }}) as s,
                case when {{ n }} > 0 then cast({{ n }} as {{ sqlmetrics.float_type() }}) end as n,
                ({{ z }}) * ({{ z }}) as zz
            from (
{{ inner | indent(16, true) }}
            ) as wilson_inner
        ) as wilson_n
    ) as wilson_p
) as wilson_bounds
{%- endmacro %}

{% macro ci_t_bounds(inner, n_by, table, terms, centred=false) -%}
{%- set f = sqlmetrics.float_type() -%}
{%- set df = 'cast(t_sums.n - 1 as ' ~ f ~ ')' -%}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    case when n >= 2 then mean - half end as lo,
    case when n >= 2 then mean + half end as hi
from (
    select
        t_se.*,
        coalesce(t_table.t, {{ terms[0] }} + ({{ terms[1] }} + ({{ terms[2] }} + ({{ terms[3] }} + {{ terms[4] }} / t_se.df) / t_se.df) / t_se.df) / t_se.df) * se as half
    from (
        select
            t_ss.*,
            sqrt(case when ss < 0 then {{ sqlmetrics.float_literal(0) }} else ss end * n / (n - {{ sqlmetrics.float_literal(1) }})) / {{ 'nullif(su, 0)' if centred else 'sv' }} as se
        from (
            select
                t_mean.*{{ ',' if not centred }}
{% if not centred %}
                sv2x2 - {{ sqlmetrics.float_literal(2) }} * mean * sv2x + mean * mean * sv2 as ss
{% endif %}
            from (
                select
                    {% for i in range(n_by) %}t_sums.slice_{{ i }}, {% endfor %}

                    cast(t_sums.n as {{ f }}) as n,
                    {{ df }} as df,
                    cast(t_sums.sv as {{ f }}) as sv,
{% if centred %}
                    cast(t_sums.su as {{ f }}) as su,
                    cast(t_sums.ss as {{ f }}) as ss,
                    cast(t_sums.svx as {{ f }}) / nullif(cast(t_sums.sv as {{ f }}), 0) as mean
{% else %}
                    cast(t_sums.sv2 as {{ f }}) as sv2,
                    cast(t_sums.sv2x as {{ f }}) as sv2x,
                    cast(t_sums.sv2x2 as {{ f }}) as sv2x2,
                    cast(t_sums.svx as {{ f }}) / cast(t_sums.sv as {{ f }}) as mean
{% endif %}
                from (
{{ inner | indent(20, true) }}
                ) as t_sums
            ) as t_mean
        ) as t_ss
    ) as t_se
    left join (
        values
{%- for t in table %}
            ({{ loop.index }}, {{ sqlmetrics.float_literal(t) }}){{ ',' if not loop.last }}
{%- endfor %}

    ) as t_table (df, t)
        on t_table.df = t_se.df
) as t_bounds
{%- endmacro %}

{% macro ci_render(metric_sql, bounds_sql, n_by, value, lo, hi, contain=false) -%}
{% set v = ('metric.' if metric_sql else 'bounds.') ~ value %}
{% set lo_expr = 'case when ' ~ v ~ ' < bounds.lo then ' ~ v ~ ' else bounds.lo end' if contain else 'bounds.lo' %}
{% set hi_expr = 'case when ' ~ v ~ ' > bounds.hi then ' ~ v ~ ' else bounds.hi end' if contain else 'bounds.hi' %}
select * from (
    select
        {% for i in range(n_by) %}{{ 'metric' if metric_sql else 'bounds' }}.slice_{{ i }} as slice_{{ i }}, {% endfor %}

        {{ v }},
        case when {{ v }} is not null then {{ lo_expr }} end as {{ lo }},
        case when {{ v }} is not null then {{ hi_expr }} end as {{ hi }}
    from (
{{ bounds_sql | indent(8, true) }}
    ) as bounds
{% if metric_sql %}
    right join (
{{ metric_sql | indent(8, true) }}
    ) as metric
        on {% for i in range(n_by) %}{{ sqlmetrics.null_safe_equal('metric.slice_' ~ i, 'bounds.slice_' ~ i) }}{{ ' and ' if not loop.last }}{% endfor %}{{ '1 = 1' if not n_by }}
{% endif %}
) as rendered
{{ sqlmetrics.order_by(range(n_by) | list) }}
{%- endmacro %}
