{#
  Exact mergeable states (sqlmetrics.state, sqlmetrics.merge; README "Daily partitions:
  mergeable states"). Every metric evaluate computes is a function of the multiset of the rows
  of its columns, and evaluate's statement gives the same bits in any row order (exact sums,
  decision 0006). So the state of a partition is that multiset: each distinct row of the
  slice columns and the columns the metrics read, once, with its count; the states of several
  partitions together hold the multiset of their union, and evaluate's own statement over
  the rows they stand for (state_rows) gives evaluate's numbers over the union, bit for bit.
  Its size is at most the distinct (slices, columns) rows: small for AUC, GAUC and the
  threshold metrics on rounded scores, as large as the data for unique float scores or
  (group, item) pairs.

  Schema, version 1 (state_compose's output, one row per distinct row of `columns`):
    sqlmetrics_state  integer  the schema version (1)
    sqlmetrics_args   text     the metrics and arguments of the state, as JSON ("round": d
                               only in a rounded state, below)
    <columns>                  the slice columns, then the columns the metrics read, under
                               their own names
    sqlmetrics_n      integer  how many rows of the partition hold these values

  state_compose(relation, columns, version, args): relation SQL after `from`; columns the
  quoted column names; version an integer; args the JSON text (a Python str, quoted here).
  merge reads a relation of states as it is where the kernel takes a count per row
  (columns.multiplicity, sqlmetrics/_engine/plan.py COUNTED_KERNELS: the threshold metrics,
  AUC, GAUC, the losses, calibration ratio, average precision (curve_points), KS and partial
  AUC (score_points_ctes), ECE, the multiclass per-class counts (multiclass_per_class) and
  Hamming loss; evaluate_compose's n_rows): exact integer sums times sqlmetrics_n, the same
  integers as over the rows replayed, at a cost in proportion to the states' rows. The other
  kernels read state_rows (sqlmetrics/_evaluate/state.py says which, and why).
  sqlmetrics_n must be a positive integer (state_bad_counts; merge refuses any other).
  state_rows(relation, columns): the rows a relation of states stands for: each state row
  sqlmetrics_n times, with `columns` (quoted names) only. Written for DuckDB and PostgreSQL
  (generate_series), Spark (explode(sequence)) and ClickHouse (array join range), the engines
  merge runs on; BigQuery, Snowflake and Trino have no variant yet.
#}

{% macro state_compose(relation, columns, version, args) -%}
select
    cast({{ version | int }} as integer) as sqlmetrics_state,
    {{ sqlmetrics.string_literal(args) }} as sqlmetrics_args,
{% for col in columns %}
    {{ col }},
{% endfor %}
    count(*) as sqlmetrics_n
from {{ relation }}
group by {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

order by {% for col in columns %}{{ col }} nulls last{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro %}

{#
  state_bad_counts(relation, columns): the state rows whose count is not a positive integer
  (sqlmetrics_n NULL, 0, negative or fractional), the first in `columns` order, with n_bad:
  how many there are; no row when every count is fine. merge refuses such a state: a count
  is how many rows of the data hold the row's values, at least 1 (state_compose's count(*));
  a 0 or a negative count (e.g. a day subtracted for a sliding window) is not defined by
  the metrics' formulas, and replaying it would drop the row silently.
#}
{% macro state_bad_counts(relation, columns) -%}
select {% for col in columns %}{{ col }}, {% endfor %}sqlmetrics_n, count(*) over () as n_bad
from {{ relation }}
where sqlmetrics_n is null or not (sqlmetrics_n >= 1 and sqlmetrics_n = floor(sqlmetrics_n))
order by {% for col in columns %}{{ col }} nulls last, {% endfor %}sqlmetrics_n nulls first
limit 1
{%- endmacro %}

{% macro state_rows(relation, columns) -%}
{{ adapter.dispatch('state_rows', 'sqlmetrics')(relation, columns) }}
{%- endmacro %}

{# `relation` may carry its own alias (`(select ...) as last_days`): not aliased here #}
{% macro default__state_rows(relation, columns) -%}
select {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

from {{ relation }}
cross join generate_series(1, sqlmetrics_n) as sqlmetrics_repeated(sqlmetrics_i)
{%- endmacro %}

{# ClickHouse has no table function of a column (generate_series(1, n) per row): ARRAY JOIN #}
{% macro clickhouse__state_rows(relation, columns) -%}
select {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

from {{ relation }}
array join range(1, cast(sqlmetrics_n as Int64) + 1) as sqlmetrics_i
{%- endmacro %}

{% macro spark__state_rows(relation, columns) -%}
select {% for col in columns %}{{ col }}{{ ', ' if not loop.last }}{% endfor %}

from {{ relation }}
lateral view explode(sequence(1, sqlmetrics_n)) sqlmetrics_repeated as sqlmetrics_i
{%- endmacro %}

{#
  Rounded states (sqlmetrics.state(..., round=d)): the score kept as
     state_round(s, d) = floor(cast(s as double) * 10^d + 0.5) / 10^d
  with 10^d a double literal: half up (a product exactly halfway goes up, toward +inf), of
  the product as the engine computes it in double precision; NULL stays NULL. Each step is
  correctly rounded or floor, hence non-decreasing, so s_i > s_j gives a rounded s_i >= the
  rounded s_j, and tied scores stay tied: the rounded scores are buckets in the sense of
  auc_bounds (sql/classification/auc_bounds.sql), whose bounds then contain the exact AUC of
  the unrounded scores. Same bits on every engine (IEEE products, floor). Spark's floor
  returns a bigint: |s| * 10^d must stay below 2^63 there.

  state_auc_bounds(relation, columns, by, label, score, pos_label): per slice of the rows a
  relation of rounded states stands for (each row counted sqlmetrics_n times: auc_bounds_counted
  with a multiplicity, not the rows replayed), auc_bounds' estimate (the AUC of the
  rounded scores, same-score pairs counted 1/2), lower and upper with each rounded score as
  its own bucket (auc_bounds_counted); unweighted. `columns` the quoted state columns, `by`
  the quoted slice columns, `label`, `score` quoted names.
#}
{% macro state_round(score, decimals) -%}
{%- set scale = sqlmetrics.float_literal(10 ** (decimals | int)) -%}
floor(cast({{ score }} as {{ sqlmetrics.float_type() }}) * {{ scale }} + {{ sqlmetrics.float_literal(0.5) }}) / {{ scale }}
{%- endmacro %}

{% macro state_auc_bounds(relation, columns, by, label, score, pos_label=none) -%}
with bucketed as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ sqlmetrics.binary_label(label, pos_label) }} as label,
        {{ sqlmetrics.score_value(score) }} as bucket,
        sqlmetrics_n as m
    from {{ relation }}
),
{{ sqlmetrics.auc_bounds_counted(by, {'weight': none, 'multiplicity': 'm'}, {'bins': 1}, [{'alias': 'estimate'}]) }}
{%- endmacro %}

{#
  state_gauc_bounds(relation, columns, by, group, label, score, pos_label, weighting): per
  slice, bounds on the exact GAUC (sql/classification/gauc.sql) from rounded states: each
  group's bounds (state_auc_bounds with the group as one more slice), over the groups with
  both classes, averaged with gauc's weights v_g (samples: P_g + N_g, positives: P_g,
  uniform: 1), which do not depend on the scores; so sum v_g lower_g / sum v_g <= GAUC <=
  sum v_g upper_g / sum v_g. The averages are plain double sums of n nonnegative terms (n the
  slice's groups) with relative error below (n + 3) 2^-53: each bound is moved outward by
  (n + 3) 2^-52 of itself (clamped to [0, 1]), so the returned doubles contain the exact
  GAUC. A slice without such a group has no row (NaN after merge's left join).
#}
{% macro state_gauc_bounds(relation, columns, by, group, label, score, pos_label, weighting) -%}
{%- set v = {'samples': 'n_pos + n_neg', 'positives': 'n_pos'}.get(weighting, sqlmetrics.float_literal(1)) -%}
{%- set margin = '(count(*) + 3) * ' ~ sqlmetrics.float_literal(2 ** -52) -%}
select
    {{ sqlmetrics.slice_cols(by) }}
    greatest(sum(v * lower) / sum(v) * (1 - {{ margin }}), 0) as lower,
    least(sum(v * upper) / sum(v) * (1 + {{ margin }}), 1) as upper
from (
    select per_group.*, {{ v }} as v
    from (
{{ sqlmetrics.state_auc_bounds(relation, columns, by + [group], label, score, pos_label) }}
    ) as per_group
    where n_pos > 0 and n_neg > 0
) as sqlmetrics_groups
{{ sqlmetrics.group_by(by) }}
{%- endmacro %}
