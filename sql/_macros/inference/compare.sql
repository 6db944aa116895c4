{#
  Paired comparison of models (sqlmetrics.compare, issue 12): the statistics every test needs,
  computed where the data live; Python turns the few numbers per (slice, metric, model) into
  p-values and intervals (t and normal distributions, Holm). Every float sum is an exact_sum
  (decision 0006; exponents from sum_exponent windows per (slice, metric, model), fixed ones
  for DeLong's half-integer placements, the slice's weight exponent for sums of weights), so
  the output has the same bits under any row order, thread count or partitioning.
  Models are numbered 0..n_models-1, model 0 the baseline; metrics 0..n_metrics-1.

  (the replicates b = 1..n of the randomization test and the bootstrap: replicates(n) of
  sql/_macros/inference/resample.sql, shared with the intervals)
  compare_slice_rows(relation, by): rows per slice (n_rows).
  compare_group_weights(relation, by, columns, options): GAUC's weight of each group
  (options.weighting: samples = its rows, positives = its positives, uniform = 1).

  compare_groups(parts, by, n_metrics, weights, test, n_permutations, seed): tests over
  per-group values (ranking metrics, GAUC).
     parts    one rendered kernel statement per model, sliced by the user's slices and the
              group (slice_0..slice_{nb-1}, slice_{nb} = the group), one column m<i> per metric:
              that group's value (NULL where undefined: an empty group, a one-class group)
     weights  optional statement: slice_0.., grp, w (the group's weight in the mean, GAUC's
              weighting); none: every group weighs 1
     A group enters the test of (metric i, model j) when both its baseline and its model-j
     value are defined; d_g = v_g(model j) - v_g(baseline), w_g its weight.
        n, sw = sum w_g, base = sum w v_base / sw, value = sum w v_j / sw, d = sum w d_g / sw,
        ss = sum w_g^2 (d_g - d)^2        (paired t: se^2 = n / (n - 1) ss / sw^2, df = n - 1)
     randomization: s_b = sum_g w_g d_g sign_flip(key_hash(group), b, seed), b = 1..n_permutations;
        n_extreme = #{b : |s_b| >= |s_obs| - 1e-9 sum_g |w_g d_g|} (the slack absorbs the
        rounding of float sums taken in another order; p = (1 + n_extreme) / (1 + n_permutations));
        the sign flips as the group bootstrap's draws (ci_group_query): the group's key hashed
        once (resample_fence), the rows in the order of the group by, replicate_exact_sum
     wilcoxon: over the groups with d_g != 0 (after rounding |d_g| to 1e-12, so that equal
        differences tie on every engine): n_nz, w_plus = sum of the average ranks of |d_g| over
        the positive d_g, tie = sum over tie groups of (t^3 - t)
  Output: slice_0.., metric, model (1..), n, sw, base, value, d, ss, sabs, n_extreme, n_nz,
  w_plus, tie.

  compare_delong(relation, by, columns, options, n_models): DeLong et al. (1988) for
  correlated ROC curves. Placement values per model from ci_score_placements (the one-model
  placements of sql/_macros/inference/intervals.sql, shared with Spark's ci_delong; ties 1/2):
     a_i = #{negatives j: s_j < s_i} + #{negatives: s_j = s_i} / 2    (positive i; V10 = a_i / n_neg)
     c_j = #{positives i: s_i > s_j} + #{positives: s_i = s_j} / 2    (negative j; V01 = c_j / n_pos)
  c_j is written x_j = n_pos - c_j = #{positives: s_i <= s_j} - #{positives: s_i = s_j} / 2, a
  count over the same ascending order as a_i (one sort of the distinct scores per model, joined
  back to the rows); covariances of c equal those of x. Output per slice: n_rows, n_pos, n_neg and per model k: sa_k (sum over positives of
  a_k; AUC_k = sa_k / (n_pos n_neg)), saa_k = sum a_k^2, sa0_k = sum a_0 a_k, and over the
  negatives sx_k, sxx_k = sum x_k^2, sx0_k = sum x_0 x_k. a and x are multiples of 1/2, their
  products of 1/4: the sums are exact_sum's integer sums at the fixed exponents 79 and 78
  (exact for terms up to 2^78, i.e. up to 2^39 rows per slice; the same bits in any order).

  compare_confusion(relation, by, columns, options, entries, n_models): per slice and model:
  n_rows, tp, fp, tn, fn (sums of weights with weight=), the metrics of `entries`
  (`<metric>_value(options)` of the confusion family) and McNemar's discordant counts against
  the baseline: n10 = rows the baseline classifies right and the model wrong, n01 the reverse.

  compare_losses(relation, by, columns, options, losses, n_models): the paired t-test over
  per-row losses (log_loss, normalized_entropy: ll, the clipped log loss term of log_loss;
  brier_score: sq = (p - label)^2). Per slice: n_rows, sy = sum of labels (the base rate of
  normalized_entropy), and per loss f and model k: s<f><k> = sum of the loss, for k >= 1
  d<f><k> = sum of d_i = loss_k,i - loss_0,i and dd<f><k> = sum of d_i^2 (Python: mean d,
  ss = dd - d^2 / n, the t-test of compare_groups with every row a group of weight 1).

  compare_bootstrap(relation, by, columns, options, entries, n_models, n_boot, seed, ci):
  paired Poisson bootstrap of the threshold metrics. A row's key is its position in the order
  of (slices, label, predictions, weight) (row_key: equal rows are interchangeable), its
  weight in replicate b is poisson1(replicate_uniform(key, b, seed)), the same for every model,
  so each replicate is one resample of rows scored by all models. Per replicate: weighted
  counts per model, the metric, the difference to the baseline (NULL if either is undefined).
  Output per (slice, metric, model 1..): n_def (replicates defined), n_le / n_ge (differences
  <= 0 / >= 0), and the order statistics around the (1 - ci) / 2 and (1 + ci) / 2 quantiles
  (0-based i = floor((n_def - 1) q) and i + 1: lo_a, lo_b, hi_a, hi_b) for a linear
  interpolation (numpy's default percentile) in Python.
#}

{% macro compare_groups(parts, by, n_metrics, weights, test, n_permutations, seed) -%}
{% set nb = by | length %}
{% set part = sqlmetrics.partition_by(by, ['metric', 'model']) %}
with
{% for sql in parts %}
model_{{ loop.index0 }} as (
{{ sql | indent(4, true) }}
),
{% endfor %}
{% if weights %}
group_weights as (
{{ weights | indent(4, true) }}
),
{% endif %}
paired as (
    select
        {% for col in by %}model_0.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        model_0.slice_{{ nb }} as grp,
{% for sql in parts %}
{% set j = loop.index0 %}
{% for i in range(n_metrics) %}
        model_{{ j }}.m{{ i }} as v{{ i }}_{{ j }},
{% endfor %}
{% endfor %}
        {{ 'cast(group_weights.w as ' ~ sqlmetrics.float_type() ~ ')' if weights else 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' }} as w
    from model_0
{% for sql in parts[1:] %}
    join model_{{ loop.index }} on {{ sqlmetrics.join_on_slices('model_0', 'model_' ~ loop.index, by) }} and model_0.slice_{{ nb }} = model_{{ loop.index }}.slice_{{ nb }}
{% endfor %}
{% if weights %}
    join group_weights on {{ sqlmetrics.join_on_slices('model_0', 'group_weights', by) }} and model_0.slice_{{ nb }} = group_weights.grp
{% endif %}
),
diffs as (
{% for i in range(n_metrics) %}
{% set outer = loop %}
{% for sql in parts[1:] %}
    select
        {{ sqlmetrics.slice_cols(by) }}
        grp,
        w,
        {{ i }} as metric,
        {{ loop.index }} as model,
        cast(v{{ i }}_0 as {{ sqlmetrics.float_type() }}) as base,
        cast(v{{ i }}_{{ loop.index }} as {{ sqlmetrics.float_type() }}) as val,
        cast(v{{ i }}_{{ loop.index }} as {{ sqlmetrics.float_type() }}) - cast(v{{ i }}_0 as {{ sqlmetrics.float_type() }}) as d
    from paired
    where v{{ i }}_0 is not null and v{{ i }}_{{ loop.index }} is not null
{{ '    union all' if not (loop.last and outer.last) }}
{% endfor %}
{% endfor %}
),
-- exponents of exact_sum (decision 0006): every float sum below has the same bits for any
-- row order, thread count or partitioning (|w base|, |w val| <= 2^e_base, 2^e_val; |w d| <= 2^e_d)
scaled as (
    select
        diffs.*,
        {{ sqlmetrics.sum_exponent('w * base', by, ['metric', 'model']) }} as e_base,
        {{ sqlmetrics.sum_exponent('w * val', by, ['metric', 'model']) }} as e_val,
        {{ sqlmetrics.sum_exponent('w * d', by, ['metric', 'model']) }} as e_d
    from diffs
),
moments as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        count(*) as n,
        sum(w) as sw,
        {{ sqlmetrics.exact_sum('w * base', 'e_base') }} / sum(w) as base,
        {{ sqlmetrics.exact_sum('w * val', 'e_val') }} / sum(w) as value,
        {{ sqlmetrics.exact_sum('w * d', 'e_d') }} as s_obs,
        {{ sqlmetrics.exact_sum('abs(w * d)', 'e_d') }} as sabs
    from scaled
    {{ sqlmetrics.group_by(by, ['metric', 'model']) }}
),
squares as (
    select
        {{ sqlmetrics.slice_cols_of('diffs', by) }}
        diffs.metric as metric,
        diffs.model as model,
        diffs.w * diffs.w * (diffs.d - moments.s_obs / moments.sw) * (diffs.d - moments.s_obs / moments.sw) as sq
    from diffs
    join moments on {{ sqlmetrics.join_on_slices('diffs', 'moments', by, ['metric', 'model']) }}
),
spread as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        {{ sqlmetrics.exact_sum('sq', 'e_sq') }} as ss
    from (
        select
            squares.*,
            {{ sqlmetrics.sum_exponent('sq', by, ['metric', 'model']) }} as e_sq
        from squares
    ) as squares_scaled
    {{ sqlmetrics.group_by(by, ['metric', 'model']) }}
),
{% if test == 'randomization' %}
flipped as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        b,
        {{ sqlmetrics.replicate_exact_sum('t', 'e_d') }} as s_b
    from (
        select
            {{ sqlmetrics.slice_cols_of('keyed', by) }}
            keyed.metric as metric,
            keyed.model as model,
            keyed.e_d as e_d,
            replicates.b as b,
            keyed.w * keyed.d * {{ sqlmetrics.sign_flip('keyed.gkey', 'replicates.b', seed) }} as t
        from (
            select {{ sqlmetrics.slice_cols(by) }} metric, model, w, d, e_d, {{ sqlmetrics.key_hash('grp') }} as gkey
            from scaled {{ sqlmetrics.resample_fence() }}
        ) as keyed
        cross join (
{{ sqlmetrics.replicates(n_permutations) | indent(12, true) }}
        ) as replicates {{ sqlmetrics.resample_fence('b, ' ~ sqlmetrics.slice_cols(by) ~ 'metric, model') }}
    ) as signed_terms
    group by b, {{ sqlmetrics.slice_cols(by) }}metric, model
),
permuted as (
    select
        {{ sqlmetrics.slice_cols_of('flipped', by) }}
        flipped.metric as metric,
        flipped.model as model,
        sum(case when abs(flipped.s_b) >= abs(moments.s_obs) - {{ sqlmetrics.float_literal(1e-9) }} * moments.sabs then 1 else 0 end) as n_extreme
    from flipped
    join moments on {{ sqlmetrics.join_on_slices('flipped', 'moments', by, ['metric', 'model']) }}
    group by {% for col in by %}flipped.slice_{{ loop.index0 }}, {% endfor %}flipped.metric, flipped.model
),
{% endif %}
{% if test == 'wilcoxon' %}
signed as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        d,
        round(abs(d) * {{ sqlmetrics.float_literal(1e12) }}) as a
    from diffs
    where round(abs(d) * {{ sqlmetrics.float_literal(1e12) }}) > 0
),
signed_ranks as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        d,
        rank() over ({{ part }} order by a)
            + cast(count(*) over ({{ sqlmetrics.partition_by(by, ['metric', 'model', 'a']) }}) - 1 as {{ sqlmetrics.float_type() }}) / {{ sqlmetrics.float_literal(2) }} as r,
        count(*) over ({{ sqlmetrics.partition_by(by, ['metric', 'model', 'a']) }}) as t
    from signed
),
wilcoxon as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        count(*) as n_nz,
        sum(case when d > 0 then r else {{ sqlmetrics.float_literal(0) }} end) as w_plus,
        sum(cast(t * t - 1 as {{ sqlmetrics.float_type() }})) as tie
    from signed_ranks
    {{ sqlmetrics.group_by(by, ['metric', 'model']) }}
),
{% endif %}
final as (
    select
        {{ sqlmetrics.slice_cols_of('moments', by) }}
        moments.metric as metric,
        moments.model as model,
        moments.n as n,
        moments.sw as sw,
        moments.base as base,
        moments.value as value,
        moments.s_obs / moments.sw as d,
        spread.ss as ss,
        moments.sabs as sabs,
        {{ 'permuted.n_extreme' if test == 'randomization' else 'cast(null as bigint)' }} as n_extreme,
        {{ 'coalesce(wilcoxon.n_nz, 0)' if test == 'wilcoxon' else 'cast(null as bigint)' }} as n_nz,
        {{ 'wilcoxon.w_plus' if test == 'wilcoxon' else 'cast(null as ' ~ sqlmetrics.float_type() ~ ')' }} as w_plus,
        {{ 'wilcoxon.tie' if test == 'wilcoxon' else 'cast(null as ' ~ sqlmetrics.float_type() ~ ')' }} as tie
    from moments
    join spread on {{ sqlmetrics.join_on_slices('moments', 'spread', by, ['metric', 'model']) }}
{% if test == 'randomization' %}
    left join permuted on {{ sqlmetrics.join_on_slices('moments', 'permuted', by, ['metric', 'model']) }}
{% endif %}
{% if test == 'wilcoxon' %}
    left join wilcoxon on {{ sqlmetrics.join_on_slices('moments', 'wilcoxon', by, ['metric', 'model']) }}
{% endif %}
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}metric, model
{%- endmacro %}

{% macro compare_delong(relation, by, columns, options, n_models) -%}
with rows_in as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
{% for score in columns.scores %}
        {{ sqlmetrics.score_value(score) }} as s{{ loop.index0 }}{{ ',' if not loop.last }}
{% endfor %}
    from {{ relation }}
),
-- placement counts per model: ci_score_placements (sql/_macros/inference/intervals.sql), one sort of
-- the model's distinct scores, joined back to the rows on (slice, score)
{% for score in columns.scores %}
placed_{{ loop.index0 }} as (
    with {{ sqlmetrics.ci_score_placements(relation, by, columns.label, score, options.pos_label) | indent(4) }}
    select {{ sqlmetrics.slice_cols(by) }}score, a, x from placements
),
{% endfor %}
placed as (
    select
        {{ sqlmetrics.slice_cols_of('rows_in', by) }}
{% for k in range(n_models) %}
        p{{ k }}.a as a{{ k }},
        p{{ k }}.x as x{{ k }},
{% endfor %}
        rows_in.label as label
    from rows_in
{% for k in range(n_models) %}
    join placed_{{ k }} as p{{ k }}
        on {{ sqlmetrics.join_on_slices('rows_in', 'p' ~ k, by) }} and rows_in.s{{ k }} = p{{ k }}.score
{% endfor %}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        count(*) as n_rows,
        sum(label) as n_pos,
        count(*) - sum(label) as n_neg,
{% set zero = sqlmetrics.float_literal(0) %}
{% for k in range(n_models) %}
        {{ sqlmetrics.exact_sum('case when label = 1 then a' ~ k ~ ' else ' ~ zero ~ ' end', 79) }} as sa{{ k }},
        {{ sqlmetrics.exact_sum('case when label = 0 then x' ~ k ~ ' else ' ~ zero ~ ' end', 79) }} as sx{{ k }},
        {{ sqlmetrics.exact_sum('case when label = 1 then a' ~ k ~ ' * a' ~ k ~ ' else ' ~ zero ~ ' end', 78) }} as saa{{ k }},
        {{ sqlmetrics.exact_sum('case when label = 1 then a0 * a' ~ k ~ ' else ' ~ zero ~ ' end', 78) }} as sa0{{ k }},
        {{ sqlmetrics.exact_sum('case when label = 0 then x' ~ k ~ ' * x' ~ k ~ ' else ' ~ zero ~ ' end', 78) }} as sxx{{ k }},
        {{ sqlmetrics.exact_sum('case when label = 0 then x0 * x' ~ k ~ ' else ' ~ zero ~ ' end', 78) }} as sx0{{ k }}{{ ',' if not loop.last }}
{% endfor %}
    from placed
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{# the source of the threshold tests: slices, label, one 0/1 prediction per model, weight (and,
   with weight=, e_w: the slice's exponent of exact_sum) #}
{% macro compare_predictions(relation, by, columns, options) -%}
source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
{% for score in columns.scores %}
        case when {{ sqlmetrics.score_value(score) }} >= {{ sqlmetrics.float_literal(options.threshold) }} then 1 else 0 end as p{{ loop.index0 }},
{% endfor %}
        {{ 'cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')' if columns.weight else 'cast(1 as ' ~ sqlmetrics.float_type() ~ ')' }} as w{{ ',' if columns.weight }}
{% if columns.weight %}
        -- the slice's ceil(log2 max w): exact_sum's exponent for the sums of weights
        {{ sqlmetrics.source_sum_exponent('cast(' ~ columns.weight ~ ' as ' ~ sqlmetrics.float_type() ~ ')', by) }} as e_w
{% endif %}
    from {{ relation }}
)
{%- endmacro %}

{# a sum of weights: exact_sum with exponent column `e` (order-independent bits) with weight=,
   else a plain sum (of 0/1 terms: exact) #}
{% macro compare_weight_sum(expr, weight, e) -%}
{{ sqlmetrics.exact_sum(expr, e) if weight else 'sum(' ~ expr ~ ')' }}
{%- endmacro %}

{# one row per (slice[, b], model) with tp, fp, tn, fn out of the wide `counts` CTE #}
{% macro compare_long_counts(by, n_models, extra=[]) -%}
{% for k in range(n_models) %}
    select
        {{ sqlmetrics.slice_cols(by) }}
        {% for col in extra %}{{ col }}, {% endfor %}{{ k }} as model,
        tp{{ k }} as tp,
        fp{{ k }} as fp,
        tn{{ k }} as tn,
        fn{{ k }} as fn
    from counts
{{ '    union all' if not loop.last }}
{% endfor %}
{%- endmacro %}

{% macro compare_confusion(relation, by, columns, options, entries, n_models) -%}
{% set zero = sqlmetrics.float_literal(0) %}
with {{ sqlmetrics.compare_predictions(relation, by, columns, options) }},
counts as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        count(*) as n_rows,
{% for k in range(n_models) %}
        {{ sqlmetrics.compare_weight_sum('case when label = 1 and p' ~ k ~ ' = 1 then w else ' ~ zero ~ ' end', columns.weight, 'e_w') }} as tp{{ k }},
        {{ sqlmetrics.compare_weight_sum('case when label = 0 and p' ~ k ~ ' = 1 then w else ' ~ zero ~ ' end', columns.weight, 'e_w') }} as fp{{ k }},
        {{ sqlmetrics.compare_weight_sum('case when label = 0 and p' ~ k ~ ' = 0 then w else ' ~ zero ~ ' end', columns.weight, 'e_w') }} as tn{{ k }},
        {{ sqlmetrics.compare_weight_sum('case when label = 1 and p' ~ k ~ ' = 0 then w else ' ~ zero ~ ' end', columns.weight, 'e_w') }} as fn{{ k }},
        sum(case when p0 = label and p{{ k }} <> label then 1 else 0 end) as n10_{{ k }},
        sum(case when p0 <> label and p{{ k }} = label then 1 else 0 end) as n01_{{ k }}{{ ',' if not loop.last }}
{% endfor %}
    from source
    {{ sqlmetrics.group_by(by) }}
),
long_counts as (
{% for k in range(n_models) %}
    select
        {{ sqlmetrics.slice_cols(by) }}
        {{ k }} as model,
        n_rows,
        n10_{{ k }} as n10,
        n01_{{ k }} as n01,
        tp{{ k }} as tp,
        fp{{ k }} as fp,
        tn{{ k }} as tn,
        fn{{ k }} as fn
    from counts
{{ '    union all' if not loop.last }}
{% endfor %}
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        model,
        n_rows,
        n10,
        n01,
{% for entry in entries %}
        {{ sqlmetrics.confusion_value(entry.metric, options) }} as {{ entry.alias }},
{% endfor %}
        tp, fp, tn, fn
    from long_counts
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}model
{%- endmacro %}

{% macro compare_losses(relation, by, columns, options, losses, n_models) -%}
{% if 'll' in losses %}
{% set lo = sqlmetrics.float_literal(options.eps) %}
{% set hi = sqlmetrics.float_literal(1.0 - options.eps) %}
{% endif %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label,
{% for score in columns.scores %}
        cast({{ sqlmetrics.score_value(score) }} as {{ sqlmetrics.float_type() }}) as p{{ loop.index0 }}{{ ',' if not loop.last }}
{% endfor %}
    from {{ relation }}
),
per_row as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        label,
{% for k in range(n_models) %}
{% if 'll' in losses %}
        -ln(
            case
                when label = 1 then greatest(least(p{{ k }}, {{ hi }}), {{ lo }})
                else greatest(least(1 - p{{ k }}, {{ hi }}), {{ lo }})
            end
        ) as ll{{ k }},
{% endif %}
{% if 'sq' in losses %}
        (p{{ k }} - label) * (p{{ k }} - label) as sq{{ k }},
{% endif %}
{% endfor %}
        1 as one
    from source
)
select
    {{ sqlmetrics.slice_cols(by) }}
    count(*) as n_rows,
    sum(cast(label as {{ sqlmetrics.float_type() }})) as sy,
{% for f in losses %}
{% for k in range(n_models) %}
    sum({{ f }}{{ k }}) as s{{ f }}{{ k }},
{% if k > 0 %}
    sum({{ f }}{{ k }} - {{ f }}0) as d{{ f }}{{ k }},
    sum(({{ f }}{{ k }} - {{ f }}0) * ({{ f }}{{ k }} - {{ f }}0)) as dd{{ f }}{{ k }},
{% endif %}
{% endfor %}
{% endfor %}
    count(*) as n_check
from per_row
{{ sqlmetrics.group_by(by) }}
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}

{% macro compare_bootstrap(relation, by, columns, options, entries, n_models, n_boot, seed, ci) -%}
{% set zero = sqlmetrics.float_literal(0) %}
{% set order = ['label'] %}
{% for k in range(n_models) %}{% do order.append('p' ~ k) %}{% endfor %}
{% do order.append('w') %}
{% set slice_names = [] %}
{% for col in by %}{% do slice_names.append('slice_' ~ loop.index0) %}{% endfor %}
{% set part = sqlmetrics.partition_by(by, ['metric', 'model']) %}
with {{ sqlmetrics.compare_predictions(relation, by, columns, options) }},
keyed as (
    select
        source.*,
        {{ sqlmetrics.row_key(order, slice_names) }} as rk
    from source
),
replicated as (
    select
        {{ sqlmetrics.slice_cols_of('keyed', by) }}
        keyed.label as label,
{% for k in range(n_models) %}
        keyed.p{{ k }},
{% endfor %}
        keyed.w as w,
{% if columns.weight %}
        keyed.e_w as e_w,
{% endif %}
        replicates.b as b,
        {{ sqlmetrics.replicate_uniform('keyed.rk', 'replicates.b', seed) }} as u
    from keyed
    cross join (
{{ sqlmetrics.replicates(n_boot) | indent(8, true) }}
    ) as replicates
    {{ sqlmetrics.resample_fence() }}
),
weighted as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        b,
        label,
{% for k in range(n_models) %}
        p{{ k }},
{% endfor %}
{% if columns.weight %}
        e_w + 3 as e_wb,
{% endif %}
        w * {{ sqlmetrics.poisson1('u') }} as wb
    from replicated
),
counts as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        b,
{% for k in range(n_models) %}
        {{ sqlmetrics.compare_weight_sum('case when label = 1 and p' ~ k ~ ' = 1 then wb else ' ~ zero ~ ' end', columns.weight, 'e_wb') }} as tp{{ k }},
        {{ sqlmetrics.compare_weight_sum('case when label = 0 and p' ~ k ~ ' = 1 then wb else ' ~ zero ~ ' end', columns.weight, 'e_wb') }} as fp{{ k }},
        {{ sqlmetrics.compare_weight_sum('case when label = 0 and p' ~ k ~ ' = 0 then wb else ' ~ zero ~ ' end', columns.weight, 'e_wb') }} as tn{{ k }},
        {{ sqlmetrics.compare_weight_sum('case when label = 1 and p' ~ k ~ ' = 0 then wb else ' ~ zero ~ ' end', columns.weight, 'e_wb') }} as fn{{ k }}{{ ',' if not loop.last }}
{% endfor %}
    from weighted
    {{ sqlmetrics.group_by(by, ['b']) }}
),
long_counts as (
{{ sqlmetrics.compare_long_counts(by, n_models, ['b']) }}
),
replicate_values as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        b,
        model,
{% for entry in entries %}
        {{ sqlmetrics.confusion_value(entry.metric, options) }} as v{{ loop.index0 }}{{ ',' if not loop.last }}
{% endfor %}
    from long_counts
),
replicate_diffs as (
{% for entry in entries %}
{% set outer = loop %}
    select
        {{ sqlmetrics.slice_cols_of('m', by) }}
        m.b as b,
        {{ outer.index0 }} as metric,
        m.model as model,
        m.v{{ outer.index0 }} - base.v{{ outer.index0 }} as d
    from replicate_values as m
    join replicate_values as base on {{ sqlmetrics.join_on_slices('m', 'base', by, ['b']) }} and base.model = 0
    where m.model > 0 and m.v{{ outer.index0 }} is not null and base.v{{ outer.index0 }} is not null
{{ '    union all' if not loop.last }}
{% endfor %}
),
ordered as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        d,
        row_number() over ({{ part }} order by d, b) - 1 as i,
        count(*) over ({{ part }}) as n_replicates
    from replicate_diffs
),
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
        metric,
        model,
        max(n_replicates) as n_def,
        sum(case when d <= 0 then 1 else 0 end) as n_le,
        sum(case when d >= 0 then 1 else 0 end) as n_ge,
{% for name, q in [('lo', (1 - ci) / 2), ('hi', (1 + ci) / 2)] %}
        max(case when i = cast(floor((n_replicates - 1) * {{ sqlmetrics.float_literal(q) }}) as bigint) then d end) as {{ name }}_a,
        max(case when i = cast(floor((n_replicates - 1) * {{ sqlmetrics.float_literal(q) }}) as bigint) + 1 then d end) as {{ name }}_b{{ ',' if not loop.last }}
{% endfor %}
    from ordered
    {{ sqlmetrics.group_by(by, ['metric', 'model']) }}
)
select * from final
order by {{ sqlmetrics.slice_order(by) }}metric, model
{%- endmacro %}

{# rows per slice (n_rows of the output) #}
{% macro compare_slice_rows(relation, by) -%}
select
    {{ sqlmetrics.slice_cols(by) }}
    count(*) as n_rows
from (
    select {{ sqlmetrics.slice_source(by) }} 1 as one
    from {{ relation }}
) as sliced
{{ sqlmetrics.group_by(by) }}
{%- endmacro %}

{# GAUC's weight of each group (options.weighting): rows | positives | 1; with
   columns.group_weight (the ranking metrics' group_weight=) the group's own weight, a column
   constant within the group #}
{% macro compare_group_weights(relation, by, columns, options) -%}
{% if columns.group_weight is defined and columns.group_weight %}
select
    {{ sqlmetrics.slice_source(by) }}
    {{ columns.group }} as grp,
    max({{ columns.group_weight }}) as w
from {{ relation }}
group by {% for col in by %}{{ col }}, {% endfor %}{{ columns.group }}
{%- else %}
select
    {{ sqlmetrics.slice_cols(by) }}
    grp,
{% if options.weighting == 'samples' %}
    count(*) as w
{% elif options.weighting == 'positives' %}
    sum(label) as w
{% else %}
    1 as w
{% endif %}
from (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group }} as grp,
        {{ sqlmetrics.binary_label(columns.label, options.pos_label) }} as label
    from {{ relation }}
) as labelled
{{ sqlmetrics.group_by(by, ['grp']) }}
{%- endif %}
{%- endmacro %}
