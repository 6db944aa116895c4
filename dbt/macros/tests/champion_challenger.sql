{#
  champion_challenger: fails when the challenger's score column is worse than the
  champion's by more than `margin`, in any slice, on the same metric.

        - sqlmetrics.champion_challenger:
            metric: auc
            label: click
            champion: pctr            # the score column of the model in production
            challenger: pctr_new      # the candidate's score column
            margin: 0.01              # how much worse the challenger may be
            by: [country]

  "Worse" is lower for every metric except the losses and error rates, which are better
  lower (log_loss, brier_score, fpr); pass higher_is_better= to say it for another metric.
  A slice where either value is undefined fails. The failing rows are the failing slices
  (champion, challenger, difference); each is also written to dbt's log.

  With test= (or alpha=) the gate knows its uncertainty: it runs sqlmetrics.compare()'s
  paired test of the two score columns per slice, in the warehouse (sql/_macros/inference/compare.sql),
  and fails only where the challenger is worse by more than `margin` AND significantly so:
  the two-sided p-value is below alpha (default 0.05). The failing rows add p_value.
    test: auto       compare()'s default test for the metric (the default with alpha=)
    test: delong     AUC: DeLong's paired test (p from the normal tail, to ~1e-7 relative)
    test: mcnemar    accuracy (its default): McNemar's test on the discordant rows, exact
                     binomial below 25 of them (a table written at compile time, Python's
                     numbers), else chi^2 with the continuity correction (erfc as for DeLong)
    test: bootstrap  the threshold metrics (precision, recall, f1, accuracy, ...): compare's
                     paired bootstrap (n_boot=, seed=; p = 2 (1 + min(#d <= 0, #d >= 0)) / (n + 1))
    test: t          the ranking metrics and gauc (over the groups' paired values, group=),
                     log_loss, brier_score, normalized_entropy (over the rows' losses): compare's
                     paired t-test, Student's t computed in SQL as stats.py computes it
                     (sql/_macros/inference/student_t.sql; within 1e-12 relative of compare's p-value,
                     2e-14 measured on DuckDB and PostgreSQL)
    test: randomization  per-group values: compare's sign-flip test, the same flips (hashes
                     of the group, n_permutations= (1000), seed=): p = (1 + #extreme) / (1 + n)
    test: wilcoxon   per-group values: the signed-rank test, normal approximation (erfc as for
                     DeLong)
  The tests over groups and losses are unweighted (weight= is refused, as compare() does).
  A slice whose test is undefined (fewer than 2 positives or negatives) fails.
#}
{% test champion_challenger(model, metric, champion, challenger, margin=0, by=none, higher_is_better=none, test=none, alpha=none, n_boot=200, seed=0, n_permutations=1000) %}
{%- if not sqlmetrics.sqlmetrics_is_real(margin) or margin < 0 -%}
{{ exceptions.raise_compiler_error("champion_challenger: margin= must be a finite number >= 0; got " ~ sqlmetrics.sqlmetrics_repr(margin)) }}
{%- endif -%}
{%- if alpha is not none and (not sqlmetrics.sqlmetrics_is_real(alpha) or alpha <= 0 or alpha >= 1) -%}
{{ exceptions.raise_compiler_error("champion_challenger: alpha= must be a number strictly between 0 and 1 (the significance level, e.g. 0.05); got " ~ sqlmetrics.sqlmetrics_repr(alpha)) }}
{%- endif -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(metric, 'champion_challenger') -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[req.name] -%}
{%- set higher = higher_is_better if higher_is_better is not none else req.name not in ['log_loss', 'brier_score', 'fpr'] -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by('champion_challenger', by) -%}
{%- set value = sqlmetrics.sqlmetrics_quote(metric) -%}
{%- set keys = [] -%}
{%- for col in by_cols -%}{%- do keys.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set loss = '(champion.' ~ value ~ ' - challenger.' ~ value ~ ')' if higher else '(challenger.' ~ value ~ ' - champion.' ~ value ~ ')' -%}
{#- the paired test: compare()'s, as its SQL computes it -#}
{%- set tested = none -%}
{%- if test is not none or alpha is not none -%}
{%- set allowed = spec.inference.tests -%}
{%- if not allowed -%}
{{ exceptions.raise_compiler_error("champion_challenger: test=" ~ sqlmetrics.sqlmetrics_repr(test) ~ ": compare() has no paired test for " ~ sqlmetrics.sqlmetrics_repr(metric) ~ "; drop test= and alpha= (the gate then checks margin= on the values)") }}
{%- endif -%}
{%- set chosen = allowed[0] if test in [none, 'auto'] else test -%}
{%- if chosen not in allowed -%}
{{ exceptions.raise_compiler_error("champion_challenger: test=" ~ sqlmetrics.sqlmetrics_repr(test) ~ " does not apply to " ~ sqlmetrics.sqlmetrics_repr(metric) ~ "; tests that apply: " ~ sqlmetrics.sqlmetrics_repr_list(allowed) ~ " (default " ~ sqlmetrics.sqlmetrics_repr(allowed[0]) ~ "), or test='auto'") }}
{%- endif -%}
{%- set level = alpha if alpha is not none else 0.05 -%}
{%- if chosen == 'randomization' and (n_permutations is not number or n_permutations is boolean or n_permutations != (n_permutations | int) or n_permutations < 10) -%}
{{ exceptions.raise_compiler_error("champion_challenger: n_permutations= must be an integer >= 10 (e.g. 200 or 1000); got " ~ sqlmetrics.sqlmetrics_repr(n_permutations)) }}
{%- endif -%}
{%- if chosen == 'randomization' and n_permutations > facts.ci.n_boot_max -%}
{{ exceptions.raise_compiler_error("champion_challenger: n_permutations= must be <= " ~ facts.ci.n_boot_max ~ " (each one is a pass over the rows); got " ~ n_permutations ~ "; pass a smaller number, e.g. n_permutations=2000") }}
{%- endif -%}
{%- set columns = sqlmetrics.sqlmetrics_columns(req.name, kwargs) -%}
{%- set options = sqlmetrics.sqlmetrics_options(req.name, kwargs) -%}
{%- set checked = sqlmetrics.sqlmetrics_check_params(req.name, options) -%}
{%- set quoted_by = [] -%}
{%- for col in by_cols -%}{%- do quoted_by.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set scores = [sqlmetrics.sqlmetrics_quote(champion), sqlmetrics.sqlmetrics_quote(challenger)] -%}
{%- set label = sqlmetrics.sqlmetrics_quote(columns.label) -%}
{%- set rel = model ~ '' -%}
{%- if chosen == 'delong' -%}
{%- if columns.weight -%}
{{ exceptions.raise_compiler_error("champion_challenger: test='delong' is unweighted; drop weight=") }}
{%- endif -%}
{%- set sums = sqlmetrics.compare_delong(rel, quoted_by, {'label': label, 'scores': scores}, checked, 2) -%}
{%- set tested = sqlmetrics.sqlmetrics_delong_p(sums, by_cols | length) -%}
{%- elif chosen == 'mcnemar' -%}
{%- if columns.weight -%}
{{ exceptions.raise_compiler_error("champion_challenger: test='mcnemar' counts rows (unweighted); drop weight=, or pass test='bootstrap'") }}
{%- endif -%}
{%- set counts = sqlmetrics.compare_confusion(rel, quoted_by, {'label': label, 'scores': scores, 'weight': none}, checked, [], 2) -%}
{%- set tested = sqlmetrics.sqlmetrics_mcnemar_p(counts, by_cols | length) -%}
{%- elif chosen in ['t', 'randomization', 'wilcoxon'] -%}
{%- if columns.weight -%}
{{ exceptions.raise_compiler_error("champion_challenger: test=" ~ sqlmetrics.sqlmetrics_repr(chosen) ~ " of " ~ sqlmetrics.sqlmetrics_repr(metric) ~ " is unweighted, as compare()'s; drop weight=") }}
{%- endif -%}
{%- if 'qrels' in kwargs -%}
{{ exceptions.raise_compiler_error("champion_challenger: test=" ~ sqlmetrics.sqlmetrics_repr(chosen) ~ " with qrels= is not written in SQL; join the judgments into the model, or run sqlmetrics.compare(..., qrels=) in Python") }}
{%- endif -%}
{%- set tested = sqlmetrics.sqlmetrics_paired_groups_p(rel, req, spec, by_cols, columns, options, [champion, challenger], chosen, n_permutations, seed) -%}
{%- else -%}
{%- set cols = {'label': label, 'scores': scores, 'weight': sqlmetrics.sqlmetrics_quote(columns.weight) if columns.weight else none} -%}
{%- set boot = sqlmetrics.compare_bootstrap(rel, quoted_by, cols, checked, [{'alias': 'm0', 'metric': req.name}], 2, n_boot, seed, 0.95) -%}
{%- set tested -%}
select
    {% for col in by_cols %}slice_{{ loop.index0 }}, {% endfor %}

    case when n_def > 0 then least(1.0e0, 2.0e0 * (1 + least(n_le, n_ge)) / (n_def + 1)) end as p_value
from (
{{ boot | indent(4, true) }}
) as boot
where model = 1
{%- endset -%}
{%- endif -%}
{%- endif -%}
{%- set failing -%}
with champion as (
{{ sqlmetrics.evaluate(model, [metric], score=champion, by=by_cols, **kwargs) | indent(4, true) }}
),
challenger as (
{{ sqlmetrics.evaluate(model, [metric], score=challenger, by=by_cols, **kwargs) | indent(4, true) }}
){% if tested is not none %},
tested as (
{{ tested | indent(4, true) }}
){% endif %}

select
    {% for col in keys %}champion.{{ col }}, {% endfor %}
    '{{ metric | replace("'", "''") }}' as metric,
    champion.{{ value }} as champion,
    challenger.{{ value }} as challenger,
    {{ loss }} as worse_by,
{% if tested is not none %}
    tested.p_value as p_value,
{% endif %}
    case
        when champion.{{ value }} is null or challenger.{{ value }} is null then 'undefined'
{% if tested is not none %}
        when tested.p_value is null then 'test undefined'
        else 'challenger significantly worse ({{ chosen }} p < {{ level }}) by more than {{ margin }}'
{% else %}
        else 'challenger worse by more than {{ margin }}'
{% endif %}
    end as reason
from champion
join challenger on {% for col in keys %}champion.{{ col }} is not distinct from challenger.{{ col }}{{ ' and ' if not loop.last }}{% else %}true{% endfor %}

{% if tested is not none %}
left join tested on {% for col in keys %}{{ sqlmetrics.null_safe_equal('champion.' ~ col, 'tested.slice_' ~ loop.index0) }}{{ ' and ' if not loop.last }}{% else %}true{% endfor %}

{% endif %}
where champion.{{ value }} is null
    or challenger.{{ value }} is null
{% if tested is not none %}
    or tested.p_value is null
    or ({{ loss }} > {{ sqlmetrics.float_literal(margin) }} and tested.p_value < {{ sqlmetrics.float_literal(level) }})
{% else %}
    or {{ loss }} > {{ sqlmetrics.float_literal(margin) }}
{% endif %}
{%- endset -%}
{{ sqlmetrics.sqlmetrics_log_failures('champion_challenger', failing, by_cols) }}
{{ failing }}
{% endtest %}

{#
  DeLong's paired test of two AUCs from compare_delong's sums, as
  sqlmetrics/_inference/compare.py::_delong computes it (model 1 against model 0):
  d = AUC_1 - AUC_0, var = V10 / P + V01 / N (the placement covariances), p = erfc(|d| / se /
  sqrt 2), NULL with fewer than 2 positives or negatives; 1 (d = 0) or 0 when se = 0.
  erfc by Numerical Recipes' Chebyshev fit (erfcc: relative error below 1.2e-7).
#}
{% macro sqlmetrics_delong_p(sums, n_by) -%}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    case
        when n_pos < 2 or n_neg < 2 then null
        when se = 0 or se < 1e-15 * greatest(abs(d), 1e-300) then case when d = 0 then 1.0e0 else 0.0e0 end
        else t * exp(-zz * zz - 1.26551223e0 + t * (1.00002368e0 + t * (0.37409196e0 + t * (0.09678418e0 + t * (-0.18628806e0 + t * (0.27886807e0 + t * (-1.13520398e0 + t * (1.48851587e0 + t * (-0.82215223e0 + t * 0.17087277e0)))))))))
    end as p_value
from (
    select
        delong_se.*,
        1.0e0 / (1.0e0 + 0.5e0 * zz) as t
    from (
        select
            delong_var.*,
            case when se > 0 then abs(d / se) / sqrt(2.0e0) end as zz
        from (
            select
                delong_cov.*,
                sqrt(case when v10 / n_pos + v01 / n_neg < 0 then 0.0e0 else v10 / n_pos + v01 / n_neg end) as se
            from (
                select
                    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

                    cast(n_pos as {{ sqlmetrics.float_type() }}) as n_pos,
                    cast(n_neg as {{ sqlmetrics.float_type() }}) as n_neg,
                    (sa1 - sa0) / (cast(n_pos as {{ sqlmetrics.float_type() }}) * n_neg) as d,
                    {{ sqlmetrics.sqlmetrics_delong_cov('saa0', 'sa0', 'sa0', 'n_pos', 'n_neg') }}
                    + {{ sqlmetrics.sqlmetrics_delong_cov('saa1', 'sa1', 'sa1', 'n_pos', 'n_neg') }}
                    - 2 * {{ sqlmetrics.sqlmetrics_delong_cov('sa01', 'sa0', 'sa1', 'n_pos', 'n_neg') }} as v10,
                    {{ sqlmetrics.sqlmetrics_delong_cov('sxx0', 'sx0', 'sx0', 'n_neg', 'n_pos') }}
                    + {{ sqlmetrics.sqlmetrics_delong_cov('sxx1', 'sx1', 'sx1', 'n_neg', 'n_pos') }}
                    - 2 * {{ sqlmetrics.sqlmetrics_delong_cov('sx01', 'sx0', 'sx1', 'n_neg', 'n_pos') }} as v01
                from (
{{ sums | indent(20, true) }}
                ) as delong_sums
                where n_pos >= 2 and n_neg >= 2
            ) as delong_cov
        ) as delong_var
    ) as delong_se
) as delong_p
{%- endmacro %}

{% macro sqlmetrics_delong_cov(sxy, sx, sy, m, scale) -%}
(({{ sxy }} - {{ sx }} * {{ sy }} / {{ m }}) / ({{ m }} - 1) / (cast({{ scale }} as {{ sqlmetrics.float_type() }}) * {{ scale }}))
{%- endmacro %}

{#
  McNemar's two-sided p-value from compare_confusion's discordant counts (model 1 against
  model 0), as sqlmetrics/_inference/compare.py::mcnemar_p: 1 without discordant rows; below
  25 of them the exact binomial 2 P(X <= min(n10, n01)), X ~ Bin(n10 + n01, 1/2), from a table
  computed here with Python's operations (exact integer sums over a power of two); else
  erfc(sqrt(chi2 / 2)) with chi2 = (|n10 - n01| - 1)^2 / (n10 + n01).
#}
{% macro sqlmetrics_mcnemar_p(counts, n_by) -%}
{%- set exact = [] -%}
{%- for nd in range(1, 25) -%}
{%- set acc = namespace(c=1, tail=0) -%}
{%- for low in range(0, nd // 2 + 1) -%}
{%- set acc.tail = acc.tail + acc.c -%}
{%- set p = [1.0, 2.0 * (acc.tail / 2.0 ** nd)] | min -%}
{%- do exact.append('when nd = ' ~ nd ~ ' and low = ' ~ low ~ ' then ' ~ sqlmetrics.float_literal(p)) -%}
{%- set acc.c = acc.c * (nd - low) // (low + 1) -%}
{%- endfor -%}
{%- endfor -%}
select
    {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

    case
        when nd = 0 then {{ sqlmetrics.float_literal(1) }}
        {{ exact | join('\n        ') }}
        else t * exp(-x * x - 1.26551223e0 + t * (1.00002368e0 + t * (0.37409196e0 + t * (0.09678418e0 + t * (-0.18628806e0 + t * (0.27886807e0 + t * (-1.13520398e0 + t * (1.48851587e0 + t * (-0.82215223e0 + t * 0.17087277e0)))))))))
    end as p_value
from (
    select
        mcnemar_x.*,
        1.0e0 / (1.0e0 + 0.5e0 * x) as t
    from (
        select
            mcnemar_n.*,
            case when nd > 0 then sqrt(cast((abs(n10 - n01) - 1) * (abs(n10 - n01) - 1) as {{ sqlmetrics.float_type() }}) / nd / 2) end as x
        from (
            select
                {% for i in range(n_by) %}slice_{{ i }}, {% endfor %}

                n10,
                n01,
                n10 + n01 as nd,
                case when n10 < n01 then n10 else n01 end as low
            from (
{{ counts | indent(16, true) }}
            ) as mcnemar_counts
            where model = 1
        ) as mcnemar_n
    ) as mcnemar_x
) as mcnemar_p
{%- endmacro %}

{#
  The p-value of compare()'s tests over paired values (model 1, the challenger, against model
  0, the champion), per slice, in SQL:
    losses (log_loss, brier_score, normalized_entropy; test 't'): compare_losses' per-row sums,
        d = sum d_i / n, ss = sum d_i^2 - n d^2, sw = n, as compare.py::_losses;
    groups (ranking metrics, gauc): each model's value per group by the metric's own kernel
        sliced by the slices and the group (GAUC's group weights by compare_group_weights),
        then compare_groups, as compare.py::_group_sql;
  then  t:             compare_t_p (sql/_macros/inference/student_t.sql: Student's t as stats.py)
        randomization: (1 + n_extreme) / (1 + n_permutations), compare's sign flips by the
                       same hashes and seed
        wilcoxon:      erfc(|z| / sqrt 2) of the signed-rank statistic with the tie
                       correction (erfc by the Chebyshev fit of DeLong's p, 1.2e-7 relative)
#}
{% macro sqlmetrics_paired_groups_p(rel, req, spec, by_cols, columns, options, score_cols, test, n_permutations, seed) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set n_by = by_cols | length -%}
{%- set quoted_by = [] -%}
{%- for col in by_cols -%}{%- do quoted_by.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set slices -%}{% for i in range(n_by) %}slice_{{ i }}, {% endfor %}{%- endset -%}
{%- set label = sqlmetrics.sqlmetrics_quote(columns.label) -%}
{%- if spec.inference.paired == 'losses' -%}
{%- set f = spec.inference.loss -%}
{%- set scores = [] -%}
{%- for col in score_cols -%}{%- do scores.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set checked = sqlmetrics.sqlmetrics_check_params(req.name, options) -%}
{%- set sums = sqlmetrics.compare_losses(rel, quoted_by, {'label': label, 'scores': scores}, checked, [f], 2) -%}
{%- set mean = '(d' ~ f ~ '1 / n_rows)' -%}
{%- set t_sums -%}
select {{ slices }}{{ mean }} as d, dd{{ f }}1 - n_rows * {{ mean }} * {{ mean }} as ss, n_rows as n, cast(n_rows as {{ sqlmetrics.float_type() }}) as sw
from (
{{ sums }}
) as loss_sums
{%- endset -%}
{{ return(sqlmetrics.compare_t_p(t_sums, n_by)) }}
{%- endif -%}
{#- the groups: one kernel statement per model, sliced by the slices and the group -#}
{%- set checked = sqlmetrics.sqlmetrics_check_params(req.name, sqlmetrics.sqlmetrics_request_params(req, spec, options)) -%}
{%- set filled = {} -%}
{%- do filled.update(facts.kernel_defaults[spec.kernel]) -%}
{%- for option, value in checked.items() -%}{%- if option != 'k' -%}{%- do filled.update({option: value}) -%}{%- endif -%}{%- endfor -%}
{%- set group = sqlmetrics.sqlmetrics_quote(columns.group) -%}
{%- set parts = [] -%}
{%- for score in score_cols -%}
{%- set cols = {} -%}
{%- do cols.update(columns) -%}
{%- do cols.update({'score': score}) -%}
{%- set roles = {} -%}
{%- for role in spec.roles -%}
{%- set col = sqlmetrics.sqlmetrics_role_column(spec, role, cols, false) -%}
{%- do roles.update({role.name: sqlmetrics.sqlmetrics_quote(col) if col else none}) -%}
{%- endfor -%}
{%- set entries = [{'alias': 'm0', 'metric': req.name, 'k': req.k, 'needs': spec.needs}] -%}
{%- do parts.append(sqlmetrics.sqlmetrics_kernel(spec.kernel, rel, quoted_by + [group], roles, filled, entries) | trim) -%}
{%- endfor -%}
{%- set weights = none -%}
{%- if spec.inference.group_weights == 'weighting' -%}
{%- set weights = sqlmetrics.compare_group_weights(rel, quoted_by, {'group': group, 'label': label}, checked) -%}
{%- endif -%}
{%- set groups = sqlmetrics.compare_groups(parts, quoted_by, 1, weights, test, n_permutations, seed) -%}
{%- set paired -%}
select {{ slices }}n, sw, d, ss, n_extreme, n_nz, w_plus, tie
from (
{{ groups }}
) as group_sums
where model = 1
{%- endset -%}
{%- if test == 't' -%}
{{ return(sqlmetrics.compare_t_p(paired, n_by)) }}
{%- elif test == 'randomization' -%}
{{ return('select ' ~ slices ~ 'cast(1 + n_extreme as ' ~ sqlmetrics.float_type() ~ ') / ' ~ (1 + n_permutations) ~ ' as p_value\nfrom (\n' ~ paired ~ '\n) as permuted') }}
{%- endif -%}
{%- set wilcoxon -%}
select
    {{ slices }}
    case when zz is null then null else t * exp(-zz * zz - 1.26551223e0 + t * (1.00002368e0 + t * (0.37409196e0 + t * (0.09678418e0 + t * (-0.18628806e0 + t * (0.27886807e0 + t * (-1.13520398e0 + t * (1.48851587e0 + t * (-0.82215223e0 + t * 0.17087277e0))))))))) end as p_value
from (
    select wilcoxon_z.*, 1.0e0 / (1.0e0 + 0.5e0 * zz) as t
    from (
        select
            {{ slices }}
            case when n_nz > 0 and var_w > 0 then abs((w_plus - mean_w) / sqrt(var_w)) / sqrt(2.0e0) end as zz
        from (
            select
                {{ slices }}
                n_nz,
                w_plus,
                cast(n_nz as {{ sqlmetrics.float_type() }}) * (n_nz + 1) / 4.0e0 as mean_w,
                cast(n_nz as {{ sqlmetrics.float_type() }}) * (n_nz + 1) * (2 * n_nz + 1) / 24.0e0 - tie / 48.0e0 as var_w
            from (
{{ paired | indent(16, true) }}
            ) as ranked
        ) as wilcoxon_moments
    ) as wilcoxon_z
) as wilcoxon_p
{%- endset -%}
{{ return(wilcoxon) }}
{%- endmacro %}
