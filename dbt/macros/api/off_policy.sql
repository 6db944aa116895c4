{#
  Off-policy evaluation in dbt (issue 43): sqlmetrics.off_policy (the Python name is
  sqlmetrics.off_policy_value; the SQL macro of that name, sql/_macros/counterfactual/
  off_policy.sql, is the statement both run, and its header is the definition).

    {{ sqlmetrics.off_policy(ref('logged'), reward='click', pscore='p', target='t',
                             estimator=['ips', 'snips', 'dr'], reward_hat='q',
                             reward_hat_target='q_target', clip=10, by=['country'],
                             ci=0.9, ci_method='bootstrap', n_boot=200, seed=0) }}

  The rows: the slices under their own names, estimator, value, (value_lo, value_hi with
  ci=), n, ess, max_weight, mean_weight; ordered by the slices (NULL last), then the
  estimators as given. The argument checks are Python's, with its messages (less "did you
  mean"); the interval options through the generated checks (ci=, n_boot=, seed=).
  Intervals: ci_method='bootstrap' only (the hashed-weights bootstrap, clustered by slate for
  the slate estimators, the same SQL as Python's); 't' is refused, naming the bootstrap: its
  factor is Python's t quantile, which Jinja cannot compute (as the metric macros,
  core/intervals.sql). Not done here (decision 0009, "What dbt does not do"): the value
  checks that need a query (propensities in (0, 1], NULLs, a joint propensity constant within
  a slate, cascade propensities along the positions); use dbt's own data tests for them.
#}
{% macro off_policy(relation, reward, pscore, target, estimator=['ips', 'snips'], reward_hat=none, reward_hat_target=none, slate=none, clip=none, by=none, ci=none, ci_method=none, n_boot=200, seed=0) -%}
{%- set who = 'off_policy_value' -%}
{%- set single = ['ips', 'snips', 'dr'] -%}
{%- set slates = ['slate_standard_ips', 'slate_independent_ips', 'slate_rips'] -%}
{%- set names = [estimator] if estimator is string else estimator -%}
{%- if not names -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": estimator=" ~ sqlmetrics.sqlmetrics_repr(estimator) ~ " must be an estimator's name or a non-empty list of them (e.g. estimator=['ips', 'snips'])") }}
{%- endif -%}
{%- for name in names -%}
{%- if name not in single + slates -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": estimator=" ~ sqlmetrics.sqlmetrics_repr(name) ~ " is not an estimator; the estimators: " ~ (single + slates) | join(', ')) }}
{%- elif name in slates and slate is none -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": estimator=" ~ sqlmetrics.sqlmetrics_repr(name) ~ " is a slate estimator and needs slate=, the column of the slate (impression) id, each row one (slate, position); for single actions use 'ips', 'snips' or 'dr'") }}
{%- elif name in single and slate is not none -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": estimator=" ~ sqlmetrics.sqlmetrics_repr(name) ~ " is a single-action estimator, but slate=" ~ sqlmetrics.sqlmetrics_repr(slate) ~ " makes each row one (slate, position); use the slate estimators (" ~ slates | join(', ') ~ ") or drop slate=") }}
{%- endif -%}
{%- endfor -%}
{%- if 'dr' in names and (reward_hat is none or reward_hat_target is none) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": estimator='dr' needs reward_hat= (the reward model's estimate for the logged action) and reward_hat_target= (its expectation under the target policy); got reward_hat=" ~ sqlmetrics.sqlmetrics_repr(reward_hat) ~ ", reward_hat_target=" ~ sqlmetrics.sqlmetrics_repr(reward_hat_target)) }}
{%- endif -%}
{%- if clip is not none and (clip is boolean or clip is not number or not clip > 0 or clip == clip * 2) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": clip=" ~ sqlmetrics.sqlmetrics_repr(clip) ~ " must be a positive number, the largest importance weight kept (e.g. clip=10.0), or None for no clipping") }}
{%- endif -%}
{%- set level = none if ci is none else sqlmetrics.sqlmetrics_check_option(who, 'ci', ci) -%}
{%- if level is not none and ci_method != 'bootstrap' -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ": ci_method=" ~ sqlmetrics.sqlmetrics_repr(ci_method) ~ " is not available in dbt (the t factor is Python's); pass ci_method='bootstrap', or compute the t interval with sqlmetrics.off_policy_value in Python") }}
{%- endif -%}
{%- set boots = sqlmetrics.sqlmetrics_check_option(who, 'n_boot', n_boot) -%}
{%- set seed_value = sqlmetrics.sqlmetrics_check_option(who, 'seed', seed) -%}
{%- set quoted = sqlmetrics.sqlmetrics_quoted_by(who, by) -%}
{%- set columns = {'reward': sqlmetrics.sqlmetrics_quote(reward), 'pscore': sqlmetrics.sqlmetrics_quote(pscore), 'target': sqlmetrics.sqlmetrics_quote(target), 'reward_hat': none, 'reward_hat_target': none, 'slate': none} -%}
{%- if reward_hat is not none and reward_hat_target is not none -%}
{%- do columns.update({'reward_hat': sqlmetrics.sqlmetrics_quote(reward_hat), 'reward_hat_target': sqlmetrics.sqlmetrics_quote(reward_hat_target)}) -%}
{%- endif -%}
{%- if slate is not none -%}{%- do columns.update({'slate': sqlmetrics.sqlmetrics_quote(slate)}) -%}{%- endif -%}
{%- set options = {'estimators': names, 'clip': none if clip is none else clip * 1.0, 'method': none if level is none else 'bootstrap', 'n_boot': boots, 'seed': seed_value, 'level': level} -%}
select
    {{ sqlmetrics.sqlmetrics_slices_named(quoted) }}estimator, value, {{ 'lo as value_lo, hi as value_hi, ' if level is not none }}n, ess, max_weight, mean_weight
from (
{{ sqlmetrics.off_policy_value(relation, quoted, columns, options) }}
) as off_policy
order by {{ sqlmetrics.slice_order(quoted) }}est_order
{%- endmacro %}
