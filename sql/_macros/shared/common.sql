{#
  Shared macros for every metric template.

  Slices: the Python layer passes `by`, a list of already-quoted user column identifiers
  (empty for a single overall value). The `source` CTE renames them to slice_0, slice_1, ...
  so that a slice column can never collide with the canonical names (label, score, ...);
  every later CTE carries them under those names, and Python renames them back.
#}

{# `"country" as slice_0, "day" as slice_1,` for the source CTE #}
{% macro slice_source(by) -%}
{% for col in by %}{{ col }} as slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}

{# `slice_0, slice_1, ` : carried through select lists #}
{% macro slice_cols(by) -%}
{% for col in by %}slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}

{# `group by slice_0, slice_1, <extra>` or `group by <extra>` or nothing #}
{% macro group_by(by, extra=[]) -%}
{% set cols = [] %}
{% for col in by %}{% do cols.append('slice_' ~ loop.index0) %}{% endfor %}
{% for col in extra %}{% do cols.append(col) %}{% endfor %}
{% if cols %}group by {{ cols | join(', ') }}{% endif %}
{%- endmacro %}

{# `slice_0 nulls last, slice_1 nulls last, `: the slices leading a longer order by #}
{% macro slice_order(by) -%}
{% for col in by %}slice_{{ loop.index0 }} nulls last, {% endfor %}
{%- endmacro %}

{# `partition by slice_0, <extra>` or nothing: for window clauses #}
{% macro partition_by(by, extra=[]) -%}
{% set cols = [] %}
{% for col in by %}{% do cols.append('slice_' ~ loop.index0) %}{% endfor %}
{% for col in extra %}{% do cols.append(col) %}{% endfor %}
{% if cols %}partition by {{ cols | join(', ') }}{% endif %}
{%- endmacro %}

{# `order by slice_0 nulls last, ...` (total: slices are unique in a final CTE; a NULL slice
   last on every engine) or nothing #}
{% macro order_by(by) -%}
{% if by %}order by {% for col in by %}slice_{{ loop.index0 }} nulls last{{ ', ' if not loop.last }}{% endfor %}{% endif %}
{%- endmacro %}

{# `partition by <slices, extra> order by <order>`: the inside of an over (...) clause #}
{% macro window(by, order, extra=[]) -%}
{% set part = sqlmetrics.partition_by(by, extra) %}
{{ part ~ ' ' if part }}order by {{ order }}
{%- endmacro %}

{# lag(expr) / lead(expr) over window(by, order, extra), NULL past the partition's edge, said
   in so many words: ClickHouse's lag and lead give the type's default (0) there, not NULL,
   for a column that cannot hold NULL; a NULL default (`lag(x, 1, null)`) is refused there.
   `order` must be a total order within the partition (row_number decides the edge) #}
{% macro lag_or_null(expr, by, order, extra=[]) -%}
case when row_number() over ({{ sqlmetrics.window(by, order, extra) }}) = 1 then null else lag({{ expr }}) over ({{ sqlmetrics.window(by, order, extra) }}) end
{%- endmacro %}

{% macro lead_or_null(expr, by, order, extra=[]) -%}
case when row_number() over ({{ sqlmetrics.window(by, order, extra) }}) = count(*) over ({{ sqlmetrics.partition_by(by, extra) }}) then null else lead({{ expr }}) over ({{ sqlmetrics.window(by, order, extra) }}) end
{%- endmacro %}

{#
  Deterministic sums (decision 0006): a float sum whose bits do not depend on row order,
  thread count or partitioning, out of core and portable (plain sum, max, abs, ln, power,
  round and casts; no ordered aggregate, which BigQuery, Snowflake and Spark lack and which
  DuckDB cannot spill). Exact fixed-point accumulation:
     e    = ceil(log2 max|x|) over the group (sum_exponent, a window column), so |x| <= 2^e
     sum  = 2^(e - 80) * sum_i round(x_i 2^(80 - e))
  Each term is rounded on its own to a multiple of 2^(e - 80) and the integers are added
  exactly in a 128-bit integer (associative: any order gives the same bits). Error
  <= n 2^(e - 81) <= n 2^-80 max|x| (a naive double sum: about n 2^-53 sum|x|); terms of at
  least 2^(e - 28) are taken exactly; room for n < 2^46 terms. exact_sum clamps e at -940
  (2^(80 - e) stays finite; terms below 2^-940 keep fewer bits). A group with e NULL (all terms 0 or
  NULL, or an infinite/NaN term) takes the plain sum, which is then exact (0), NULL, or
  +-inf/NaN whatever the order. Counts and sums of integers below 2^53 are exact in double
  and keep a plain sum(). The 128-bit integer type is exact_int() (sql/_macros/shared/dialect.sql).
#}
{# window column: e for exact_sum(expr, e), over the rows of the group (slices + extra) #}
{# `order`: the order of another window over the same partition, so that both share one sort #}
{# (the frame is still the whole partition; measured -15 % CPU for ndcg@10 on 10M rows) #}
{% macro sum_exponent(expr, by, extra=[], order=none) -%}
{% set frame = ' order by ' ~ order ~ ' rows between unbounded preceding and unbounded following' if order else '' %}
{{ sqlmetrics.sum_exponent_over(expr, sqlmetrics.partition_by(by, extra) ~ frame) }}
{%- endmacro %}

{# sum_exponent in the select that names the slices (`"country" as slice_0`): a window there
   cannot see the alias slice_0 (PostgreSQL, Spark), so it partitions by the user's columns #}
{% macro source_sum_exponent(expr, by) -%}
{{ sqlmetrics.sum_exponent_over(expr, 'partition by ' ~ (by | join(', ')) if by else '') }}
{%- endmacro %}

{% macro sum_exponent_over(expr, window) -%}
nullif(least(ceil(ln(nullif(max(abs({{ expr }})) over ({{ window }}), 0)) / ln({{ sqlmetrics.float_literal(2) }})), 2000), 2000)
{%- endmacro %}

{#
  with_slice_exponents(name, relation, by, exps): the CTE(s) ending in `name`, which holds the
  rows of `relation` and, for each (column, expr) of exps, the column sum_exponent(expr, by)
  would give (the slice's ceil(log2 max|expr|)). Same values on every dialect, so exact_sum
  gives the same bits; the formulation differs:
  - default: a per-slice aggregate joined back on the slices (null-safe; a cross join without
    slices) rather than a window over the whole slice: on Spark such a window (`partition by
    <slices>`, or `over ()`) moves every row of a slice into one partition, the join
    broadcasts the small per-slice table (auc_broadcast);
  - PostgreSQL: the window. Its planner cannot hash a null-safe join (`is not distinct
    from`), so the join back is a nested loop, O(rows x slices): compare's per-group slices
    (50,000 groups) ran for minutes; and a CTE it under-estimates (1 row for 50,000) was
    inlined into a nested loop that recomputed the aggregate per row (idcg on 1M rows: over
    10 min). PostgreSQL runs on one node: the window costs one sort.
#}
{% macro with_slice_exponents(name, relation, by, exps) -%}
{{ adapter.dispatch('with_slice_exponents', 'sqlmetrics')(name, relation, by, exps) }}
{%- endmacro %}

{% macro default__with_slice_exponents(name, relation, by, exps) -%}
{{ name }}_exponents as (
    select
{% for col in by %}
        slice_{{ loop.index0 }} as e_slice_{{ loop.index0 }},
{% endfor %}
{% for col, expr in exps %}
        {{ sqlmetrics.auc_exponent('max(abs(' ~ expr ~ '))') }} as {{ col }}{{ ',' if not loop.last }}
{% endfor %}
    from {{ relation }}
    {{ sqlmetrics.group_by(by) }}
),
{{ name }} as (
    select {{ sqlmetrics.auc_broadcast(name ~ '_exponents') }}
        {{ relation }}.*,
{% for col, expr in exps %}
        {{ name }}_exponents.{{ col }}{{ ',' if not loop.last }}
{% endfor %}
    from {{ relation }}
{% if by %}
    join {{ name }}_exponents on {{ sqlmetrics.auc_join_slices(by, 'e_') }}
{% else %}
    cross join {{ name }}_exponents
{% endif %}
)
{%- endmacro %}

{% macro postgres__with_slice_exponents(name, relation, by, exps) -%}
{{ name }} as (
    select
        {{ relation }}.*,
{% for col, expr in exps %}
        {{ sqlmetrics.sum_exponent(expr, by) }} as {{ col }}{{ ',' if not loop.last }}
{% endfor %}
    from {{ relation }}
)
{%- endmacro %}

{#
  Order-independent sum of expr. e: a column (or literal) constant within the group with
  |expr| <= 2^e, usually sum_exponent(expr); `0` for terms in [-1, 1]; `a_exp + b_exp` for a
  product of a and b.
#}
{#
  Multiplicity (merge reads states as they are, sql/_macros/shared/state.sql): a kernel that takes
  columns.multiplicity (a count column: each row stands for that many rows; compose_sql's
  COUNTED_KERNELS) carries it as a column m and passes multiplicity(columns) ('m', or '' when
  none) to exact_sum; without it, its SQL is unchanged.
#}
{% macro multiplicity(columns) -%}
{{ 'm' if columns.get('multiplicity') else '' }}
{%- endmacro %}

{# exact_sum(expr, e, m): with m (a count column, merge's sqlmetrics_n), the sum over the rows
   each row stands for m times: each rounded term times m as an exact integer, so the same
   integer, and the same bits, as exact_sum over the m copies (e is the same: a max) #}
{# fallback=false (a literal e only): without the plain sum(expr) beside it. With a literal e the
   integer sum is NULL only when every term is NULL, and sum(expr) is then NULL too: the same
   value, one aggregate fewer (off_policy_value's exponents from its check pass) #}
{% macro exact_sum(expr, e, m=none, fallback=true) -%}
{% if (e ~ '').lstrip('-').isdigit() %}
{% set up, down = (80 - e | int) | string, (e | int - 80) | string %}
{% else %}
{% set up = '80 - greatest(' ~ e ~ ', -940)' %}
{% set down = 'max(greatest(' ~ e ~ ', -940)) - 80' %}
{% endif %}
{% set times = ' * ' ~ m if m else '' %}
{% set plain = '(' ~ expr ~ ')' ~ times if m else expr %}
{% if fallback or not (e ~ '').lstrip('-').isdigit() %}
coalesce(cast(sum({{ sqlmetrics.exact_int_of('round((' ~ expr ~ ') * power(' ~ sqlmetrics.float_literal(2) ~ ', ' ~ up ~ '))') }}{{ times }}) as {{ sqlmetrics.float_type() }}) * power({{ sqlmetrics.float_literal(2) }}, {{ down }}), sum({{ plain }}))
{%- else %}
cast(sum({{ sqlmetrics.exact_int_of('round((' ~ expr ~ ') * power(' ~ sqlmetrics.float_literal(2) ~ ', ' ~ up ~ '))') }}{{ times }}) as {{ sqlmetrics.float_type() }}) * power({{ sqlmetrics.float_literal(2) }}, {{ down }})
{%- endif %}
{%- endmacro %}

{# x * 2^k, for an integer-valued k in [-2000, 2000], in two steps so 2^k cannot overflow #}
{% macro ldexp(x, k) -%}
{{ x }} * power({{ sqlmetrics.float_literal(2) }}, floor(({{ k }}) / {{ sqlmetrics.float_literal(2) }})) * power({{ sqlmetrics.float_literal(2) }}, ({{ k }}) - floor(({{ k }}) / {{ sqlmetrics.float_literal(2) }}))
{%- endmacro %}

{# integers(n): the select statement of the integers 1..n as a bigint column b, from
   cross-joined digit tables: portable, no generate_series / range / explode (the bootstrap's
   replicates, the ranking kernel's ideal positions) #}
{% macro integers(n) -%}
{% set digits = (n | string) | length %}
select b from (
    select cast({% for p in range(digits) %}{{ 10 ** p }} * d{{ p }}.d + {% endfor %}1 as bigint) as b
    from {% for p in range(digits) %}(select 0 as d{% for v in range(1, 10) %} union all select {{ v }}{% endfor %}) as d{{ p }}{{ ' cross join ' if not loop.last }}{% endfor %}

) as digits
where b <= {{ n }}
{%- endmacro %}

{# Division that yields NULL (-> NaN + UndefinedMetricWarning in Python) on a zero denominator #}
{% macro safe_div(num, den) -%}
cast({{ num }} as {{ sqlmetrics.float_type() }}) / nullif(cast({{ den }} as {{ sqlmetrics.float_type() }}), 0)
{%- endmacro %}

{# `(a.slice_0 <=> b.slice_0) and ... and a.x = b.x` for the columns in extra (null-safe on
   the slices, dialect's null_safe_equal, each in parentheses: PostgreSQL's is two equalities),
   or a true condition. Every join on slice columns goes through it: `using (slice_0, ...)` and
   `a.slice_0 = b.slice_0` drop a NULL slice (a NULL slice is a slice, as a group by has it).
   prefix: the right side's key columns are named `<prefix>slice_0`, `<prefix>x` (a CTE that
   renames its keys so that `select left.*, right.*` has no duplicate names) #}
{% macro join_on_slices(left, right, by, extra=[], prefix='') -%}
{% set conds = [] %}
{% for col in by %}{% do conds.append('(' ~ sqlmetrics.null_safe_equal(left ~ '.slice_' ~ loop.index0, right ~ '.' ~ prefix ~ 'slice_' ~ loop.index0) ~ ')') %}{% endfor %}
{% for col in extra %}{% do conds.append(left ~ '.' ~ col ~ ' = ' ~ right ~ '.' ~ prefix ~ col) %}{% endfor %}
{{ conds | join(' and ') if conds else '1 = 1' }}
{%- endmacro %}

{# `slice_0 as i_slice_0, slice_1 as i_slice_1, `: a CTE's slice keys renamed for a join back
   with join_on_slices(..., prefix=prefix) #}
{% macro slice_cols_as(by, prefix) -%}
{% for col in by %}slice_{{ loop.index0 }} as {{ prefix }}slice_{{ loop.index0 }}, {% endfor %}
{%- endmacro %}
