{#
  multiclass_auc: ROC AUC of a multiclass or multilabel classifier from a long table, one row
  per (row, class): the row id (role group), the class (role item), the score of that class
  and a 0/1 label (1: the class is a true class of the row; multiclass: exactly one per row).
  As scikit-learn's roc_auc_score(y, scores, multi_class=, average=).
  A binary AUC below is the Mann-Whitney statistic with average ranks (a tied pair counts
  1/2): AUC = (R_pos - P (P + 1) / 2) / (P N), R_pos the sum of the positives' average ranks.
  multi_class = ovr (one-vs-rest; also every multilabel average):
     A_c = the binary AUC of class c's score with label 1 against 0, over all rows
     macro    = mean_c A_c
     weighted = sum_c P_c A_c / sum_c P_c        (P_c: rows with class c true, the support)
     micro    = the binary AUC of all (row, class) pairs pooled
     samples  = mean over rows of the binary AUC of the row's classes (multilabel)
  multi_class = ovo (Hand & Till 2001; multiclass only: t(r) = the row's one true class):
     A(a|b) = the binary AUC of class a's score, positives the rows with t = a, negatives the
              rows with t = b
     S(a, b) = (A(a|b) + A(b|a)) / 2 over unordered pairs of classes
     macro    = mean over pairs S(a, b)
     weighted = sum (n_a + n_b) S(a, b) / sum (n_a + n_b)   (n_a: rows with t = a)
  Ties: average ranks within the partition (class, pair or row); counts and rank sums are
  integers or halves (exact in double), so row order cannot change the result.
  Undefined: any binary AUC in the average undefined (a class, pair or row without positives
  or without negatives), or no rows -> NULL (NaN + UndefinedMetricWarning); scikit-learn
  raises there.
  Output: one row per slice; one column per entry alias (multiclass_auc), n_parts (classes,
  pairs or rows averaged; 1 for micro).
  Oracle: tests/oracle/multiclass_auc.py::multiclass_auc
#}
{# the AUC of a partition from its positives' rank sum r, positives p and negatives n #}
{% macro multiclass_auc_binary(r, p, n) -%}
case when {{ p }} > 0 and {{ n }} > 0 then ({{ r }} - {{ p }} * ({{ p }} + 1) / 2) / ({{ p }} * {{ n }}) end
{%- endmacro %}

{# the partition's sum of positives' average ranks, positives and negatives; `part`: partition
   columns. rank2 = twice the average rank (rank() + the last position of the tie), an integer:
   its sum is exact (a double sum of half-integers would round past 2^53, in an order that
   depends on the threads; int_sum, as a bigint sum of ranks overflows past about 3e9 rows),
   cast to double once and halved (exact) #}
{% macro multiclass_auc_ranked(source, by, part) -%}
    select
        {{ sqlmetrics.slice_cols(by) }}
        {% for col in part %}{{ col }}, {% endfor %}

        y,
        2 * rank() over ({{ sqlmetrics.window(by, 's', part) }})
            + count(*) over ({{ sqlmetrics.partition_by(by, part + [sqlmetrics.float_key('s')]) }}) - 1 as rank2
    from {{ source }}
{%- endmacro %}

{% macro multiclass_auc_per_part(by, part) -%}
    select
        {{ sqlmetrics.slice_cols(by) }}
        {% for col in part %}{{ col }}, {% endfor %}

        cast({{ sqlmetrics.int_sum('case when y = 1 then rank2 else 0 end') }} as {{ sqlmetrics.float_type() }}) / 2 as r,
        cast(sum(y) as {{ sqlmetrics.float_type() }}) as p,
        cast(count(*) - sum(y) as {{ sqlmetrics.float_type() }}) as n
    from ranked
    {{ sqlmetrics.group_by(by, part) }}
{%- endmacro %}

{% macro multiclass_auc_kernel(relation, by, columns, options, entries) -%}
{% set how = options.multi_class ~ '_' ~ options.auc_average %}
with source as (
    select
        {{ sqlmetrics.slice_source(by) }}
        {{ columns.group }} as g,
        {{ columns.item }} as c,
        cast({{ sqlmetrics.score_value(columns.score) }} as {{ sqlmetrics.float_type() }}) as s,
        {{ sqlmetrics.binary_label(columns.label) }} as y
    from {{ relation }}
),
{% if options.multi_class == 'ovo' %}
truth as (
    select
        source.*,
        max(case when y = 1 then c end) over ({{ sqlmetrics.partition_by(by, ['g']) }}) as t
    from source
),
classes as (
    select distinct {{ sqlmetrics.slice_cols(by) }} c as b from source
),
pairs as (
    select {{ sqlmetrics.slice_cols(by) }} c as a, t as b, s, 0 as y
    from truth
    where t <> c
    union all
    select
        {% for col in by %}truth.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        truth.c as a,
        classes.b as b,
        truth.s as s,
        1 as y
    from truth
    inner join classes
        on {{ sqlmetrics.calibration_join_on('truth', 'classes', by) }} and classes.b <> truth.c
    where truth.t = truth.c
),
ranked as (
{{ sqlmetrics.multiclass_auc_ranked('pairs', by, ['a', 'b']) }}
),
per_part as (
{{ sqlmetrics.multiclass_auc_per_part(by, ['a', 'b']) }}
),
per_pair as (
    select
        {% for col in by %}ab.slice_{{ loop.index0 }} as slice_{{ loop.index0 }}, {% endfor %}

        ab.a as a,
        ab.b as b,
        ({{ sqlmetrics.multiclass_auc_binary('ab.r', 'ab.p', 'ab.n') }} + {{ sqlmetrics.multiclass_auc_binary('ba.r', 'ba.p', 'ba.n') }}) / 2 as value,
        ab.p + ab.n as n_ab
    from per_part as ab
    inner join per_part as ba
        on {{ sqlmetrics.calibration_join_on('ab', 'ba', by) }} and ab.a = ba.b and ab.b = ba.a
    where ab.a < ab.b
),
{% else %}
{% if options.auc_average == 'micro' %}
{{ sqlmetrics.auc_pooled_rank_sums('source', by) }},
{% else %}
ranked as (
{{ sqlmetrics.multiclass_auc_ranked('source', by, ['g'] if options.auc_average == 'samples' else ['c']) }}
),
per_part as (
{{ sqlmetrics.multiclass_auc_per_part(by, ['g'] if options.auc_average == 'samples' else ['c']) }}
),
{% endif %}
per_pair as (
    select
        per_part.*,
        {{ sqlmetrics.multiclass_auc_binary('r', 'p', 'n') }} as value,
        p as n_ab
    from per_part
),
{% endif %}
scored_rows as (
    select
        per_pair.*,
        n_ab * value as wv
    from per_pair
),
-- wv_exp: the slice's exponent of wv, a per-slice aggregate joined back (sql/_macros/shared/common.sql)
{{ sqlmetrics.with_slice_exponents('scored', 'scored_rows', by, [('wv_exp', 'wv')]) }},
final as (
    select
        {{ sqlmetrics.slice_cols(by) }}
{% for entry in entries %}
{% if options.auc_average == 'weighted' %}
        case when count(value) = count(*) then {{ sqlmetrics.exact_sum('wv', 'wv_exp') }} / nullif(sum(n_ab), 0) end as {{ entry.alias }},
{% else %}
        case when count(value) = count(*) then {{ sqlmetrics.exact_sum('value', 0) }} / nullif(count(*), 0) end as {{ entry.alias }},
{% endif %}
{% endfor %}
        count(*) as n_parts
    from scored
    {{ sqlmetrics.group_by(by) }}
)
select * from final
{{ sqlmetrics.order_by(by) }}
{%- endmacro %}
