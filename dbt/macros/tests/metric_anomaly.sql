{#
  metric_anomaly: model monitoring as a dbt test (issue 44). Fails on the days a slice's
  metric moved beyond its recent history and its own sampling error: sqlmetrics.
  metric_anomalies (sql/_macros/inference/anomalies.sql, whose header is the definition)
  over a daily table, in the warehouse. The failing rows are the alerts: the slice columns,
  the day, metric, value, band_lo, band_hi, z and deviation ('drop' or 'rise'), so
  `store_failures` keeps them, severity / warn_if / error_if count them, and each one is
  written to dbt's log (`metric_anomaly failed in slice segment='b': day 2026-10-20, ...`).

  models:
    - name: auc_daily           # one row per (slice, day): auc, auc_lo, auc_hi, n_rows, as
      data_tests:               # sqlmetrics.evaluate(..., by=['day', ...], ci=0.95) writes it
        - sqlmetrics.metric_anomaly:
            arguments:
              metric: auc
              by: [country]        # optional: each slice its own series
              # day: day, window: 28, seasonality: weekday, delay: 0, min_rows: 0,
              # min_history: 7, threshold: 3.5, direction: drop|rise|both, ci_level: 0.95
              # value:, lo:, hi:, n_rows: (columns), intervals: false (the plain z-score)

  The options, their defaults and their messages are sqlmetrics.metric_anomalies' (the
  checks: metric_anomaly_options.sql); direction's default comes from the metric (drop for
  AUC, rise for a loss, both for a name sqlmetrics does not know). As in Python, lo/hi
  default to <metric>_lo / <metric>_hi and n_rows to n_rows when the model has them (its
  columns are read at execution time); a (slice, day) twice, a NULL day or hi < lo are
  refused with Python's messages. dbt's where: picks the rows (and so which day is last).

  With states: true the model is a table of sqlmetrics.evaluate_state's states with the
  day among their slices (an incremental model appending each day's states, by=[day, ...]):
  the rows they stand for are replayed as merge_states replays them (metric_threshold's
  states mode), the metric and its ci_level interval computed per (day, slice) in the
  warehouse (the metric's interval method: ci_method=, n_boot=, seed= as for the metric
  macros), then the same anomalies. The state's columns are named as for the metric
  (label=, score=, group=, ...); the metric's own options go in metric_options: {...}
  (threshold= is the anomaly threshold here).
#}
{% test metric_anomaly(model, metric, day='day', by=none, value=none, lo=none, hi=none, n_rows=none, intervals=true, states=false, metric_options={}) %}
{%- set who = 'metric_anomalies' -%}
{%- set given = {} -%}
{%- set rest = {} -%}
{%- set names = sqlmetrics.sqlmetrics_checks().anomalies.defaults -%}
{%- for key, item in kwargs.items() -%}
{%- do (given if key in names else rest).update({key: item}) -%}
{%- endfor -%}
{%- set options = sqlmetrics.sqlmetrics_anomaly_options(metric, given) -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by(who, by) -%}
{%- for arg, col in [['day', day], ['value', value], ['lo', lo], ['hi', hi], ['n_rows', n_rows]] -%}
{%- if (arg == 'day' or col is not none) and (col is not string or not col) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': ' ~ arg ~ '= must be a column name (a non-empty string); got ' ~ sqlmetrics.sqlmetrics_repr(col)) }}
{%- endif -%}
{%- endfor -%}
{%- if day in by_cols -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': by=' ~ sqlmetrics.sqlmetrics_repr(by) ~ ' holds the day column ' ~ sqlmetrics.sqlmetrics_repr(day) ~ '; each slice is a series over its days: leave ' ~ sqlmetrics.sqlmetrics_repr(day) ~ ' out of by=') }}
{%- endif -%}
{%- if intervals not in [true, false] -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': intervals=' ~ sqlmetrics.sqlmetrics_repr(intervals) ~ ' must be True or False') }}
{%- endif -%}
{%- if not intervals and (lo is not none or hi is not none) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': lo=' ~ sqlmetrics.sqlmetrics_repr(lo) ~ ', hi=' ~ sqlmetrics.sqlmetrics_repr(hi) ~ ' with intervals=False: the intervals are left out; pass one or the other') }}
{%- endif -%}
{%- if (lo is none) != (hi is none) -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': lo=' ~ sqlmetrics.sqlmetrics_repr(lo) ~ ' and hi=' ~ sqlmetrics.sqlmetrics_repr(hi) ~ ': pass both interval columns or neither') }}
{%- endif -%}
{%- if states not in [true, false] -%}
{{ sqlmetrics.sqlmetrics_fail("metric_anomaly: states= must be true (the model holds sqlmetrics.evaluate_state's states, the day among their slices) or false; got " ~ sqlmetrics.sqlmetrics_repr(states)) }}
{%- endif -%}
{%- if not states and rest -%}
{{ sqlmetrics.sqlmetrics_fail('metric_anomaly: unknown argument(s) ' ~ sqlmetrics.sqlmetrics_repr_list(rest.keys() | list) ~ ' (the metric\'s columns and options are arguments of states: true only)') }}
{%- endif -%}
{%- set prelude = none -%}
{%- if states -%}
{#- the daily table of the replayed rows: per (day, slice) the metric and its interval at
    ci_level, as evaluate(rows, [metric], by=[day, ...], ci=ci_level) gives them -#}
{%- if value is not none or lo is not none or n_rows is not none or not intervals -%}
{{ sqlmetrics.sqlmetrics_fail('metric_anomaly: value=, lo=, hi=, n_rows= and intervals= name columns of a daily table; with states: true the table is computed (the metric and its interval per day and slice): leave them out') }}
{%- endif -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(metric, 'metric_anomaly') -%}
{%- set columns = sqlmetrics.sqlmetrics_columns(req.name, rest) -%}
{%- set quoted = sqlmetrics.sqlmetrics_state_columns('metric_anomaly', [metric], columns, [day] + by_cols, 'qrels' in rest) -%}
{%- do sqlmetrics.sqlmetrics_check_state_counts('metric_anomaly', model ~ '', quoted) -%}
{%- set args = {'ci': options.ci_level} -%}
{%- do args.update(rest) -%}
{%- do args.update(metric_options) -%}
{%- if req.k is not none -%}{%- do args.update({'k': req.k}) -%}{%- endif -%}
{%- set daily = sqlmetrics.sqlmetrics_metric(req.name, 'sqlmetrics_replayed', [day] + by_cols, args) -%}
{%- set prelude = 'with sqlmetrics_replayed as (\n' ~ sqlmetrics.state_rows(model ~ '', quoted) ~ '\n)\n' -%}
{%- set relation = '(\n' ~ daily ~ '\n) as sqlmetrics_daily' -%}
{%- set value, lo, hi = req.name, req.name ~ '_lo', req.name ~ '_hi' -%}
{%- else -%}
{%- set relation = model -%}
{%- set value = value or metric -%}
{%- if execute -%}
{%- set present = run_query('select * from ' ~ model ~ ' where 1 = 0').column_names | list -%}
{%- if intervals and lo is none and (metric ~ '_lo') in present and (metric ~ '_hi') in present -%}
{%- set lo, hi = metric ~ '_lo', metric ~ '_hi' -%}
{%- endif -%}
{%- if n_rows is none and 'n_rows' in present -%}{%- set n_rows = 'n_rows' -%}{%- endif -%}
{%- else -%}
{%- set present = [] -%}
{%- endif -%}
{%- if options.min_rows and n_rows is none and execute -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': min_rows=' ~ options.min_rows ~ " needs the row counts: pass n_rows= the column holding each day's rows (evaluate writes n_rows)") }}
{%- endif -%}
{%- set named = [['day', day], ['value', value]] -%}
{%- for col in by_cols -%}{%- do named.append(['by', col]) -%}{%- endfor -%}
{%- for arg, col in [['lo', lo], ['hi', hi], ['n_rows', n_rows]] -%}{%- if col -%}{%- do named.append([arg, col]) -%}{%- endif -%}{%- endfor -%}
{%- if execute -%}
{%- for pair in named -%}
{%- if pair[1] not in present -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': column ' ~ sqlmetrics.sqlmetrics_repr(pair[1]) ~ ' (' ~ pair[0] ~ '=) not found in data=' ~ model ~ '; columns present: ' ~ present | join(', ')) }}
{%- endif -%}
{%- endfor -%}
{%- endif -%}
{%- endif -%}
{%- set q = {'day': sqlmetrics.sqlmetrics_quote(day), 'value': sqlmetrics.sqlmetrics_quote(value), 'lo': sqlmetrics.sqlmetrics_quote(lo) if lo else none, 'hi': sqlmetrics.sqlmetrics_quote(hi) if hi else none, 'n_rows': sqlmetrics.sqlmetrics_quote(n_rows) if n_rows else none} -%}
{%- set slices = [] -%}
{%- for col in by_cols -%}{%- do slices.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- if execute and not states -%}
{#- Python's checks of the table: rows, days, intervals, one row per (slice, day) (the
    replayed states' table has them by construction) -#}
{%- set keys = slices + [q.day] -%}
{%- set checked -%}
select count(*) as n,
    sum(case when {{ q.day }} is null then 1 else 0 end) as null_days,
    {{ 'sum(case when ' ~ q.hi ~ ' < ' ~ q.lo ~ ' then 1 else 0 end)' if q.lo else '0' }} as reversed,
    (select count(*) from (select {{ keys | join(', ') }} from {{ relation }} group by {{ keys | join(', ') }} having count(*) > 1) as dup) as duplicated
from {{ relation }}
{%- endset -%}
{%- set row = run_query(checked).rows[0] -%}
{%- set n = row[0] | int -%}
{%- if not n -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': data=' ~ model ~ ' has no rows') }}
{%- endif -%}
{%- if (row[1] or 0) | int -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': day column ' ~ sqlmetrics.sqlmetrics_repr(day) ~ ' has ' ~ (row[1] | int) ~ ' of ' ~ n ~ ' rows NULL; every row needs its day (filter `' ~ day ~ ' is not null`)') }}
{%- endif -%}
{%- if (row[2] or 0) | int -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': ' ~ (row[2] | int) ~ ' of ' ~ n ~ ' rows have hi < lo (' ~ sqlmetrics.sqlmetrics_repr(hi) ~ ' < ' ~ sqlmetrics.sqlmetrics_repr(lo) ~ '); pass the interval\'s lower bound as lo= and its upper bound as hi=') }}
{%- endif -%}
{%- if (row[3] or 0) | int -%}
{%- set shown = [] -%}
{%- for col in by_cols -%}{%- do shown.append(sqlmetrics.sqlmetrics_repr(col) ~ ' (by=)') -%}{%- endfor -%}
{%- do shown.append(sqlmetrics.sqlmetrics_repr(day) ~ ' (day=)') -%}
{{ sqlmetrics.sqlmetrics_fail(who ~ ': data=' ~ model ~ ' has ' ~ (row[3] | int) ~ ' duplicated combinations of ' ~ shown | join(', ') ~ '; each must appear once (one row per slice and day: pass by= every slice column of the table)') }}
{%- endif -%}
{%- endif -%}
{%- do options.update({'z': sqlmetrics.sqlmetrics_anomaly_z(options.ci_level)}) -%}
{%- set scored = sqlmetrics.metric_anomalies(relation, slices, q, options) -%}
{%- set failing -%}
{{ prelude or '' }}select
{% for col in slices %}    slice_{{ loop.index0 }} as {{ col }},
{% endfor %}    day as {{ q.day }},
    '{{ metric | replace("'", "''") }}' as metric,
    value,
    band_lo,
    band_hi,
    z,
    deviation
from (
{{ scored | indent(4, true) }}
) as sqlmetrics_scored
where anomaly
{%- endset -%}
{{ sqlmetrics.sqlmetrics_log_failures('metric_anomaly', failing, by_cols) }}
{{ failing }}
{% endtest %}
