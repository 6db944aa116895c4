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
#}
{% test champion_challenger(model, metric, champion, challenger, margin=0, by=none, higher_is_better=none) %}
{%- if not sqlmetrics.sqlmetrics_is_real(margin) or margin < 0 -%}
{{ exceptions.raise_compiler_error("champion_challenger: margin= must be a finite number >= 0; got " ~ sqlmetrics.sqlmetrics_repr(margin)) }}
{%- endif -%}
{%- set req = sqlmetrics.sqlmetrics_parse_metric(metric, 'champion_challenger') -%}
{%- set higher = higher_is_better if higher_is_better is not none else req.name not in ['log_loss', 'brier_score', 'fpr'] -%}
{%- set by_cols = sqlmetrics.sqlmetrics_normalize_by('champion_challenger', by) -%}
{%- set value = sqlmetrics.sqlmetrics_quote(metric) -%}
{%- set keys = [] -%}
{%- for col in by_cols -%}{%- do keys.append(sqlmetrics.sqlmetrics_quote(col)) -%}{%- endfor -%}
{%- set loss = '(champion.' ~ value ~ ' - challenger.' ~ value ~ ')' if higher else '(challenger.' ~ value ~ ' - champion.' ~ value ~ ')' -%}
{%- set failing -%}
with champion as (
{{ sqlmetrics.evaluate(model, [metric], score=champion, by=by_cols, **kwargs) | indent(4, true) }}
),
challenger as (
{{ sqlmetrics.evaluate(model, [metric], score=challenger, by=by_cols, **kwargs) | indent(4, true) }}
)
select
    {% for col in keys %}champion.{{ col }}, {% endfor %}
    '{{ metric | replace("'", "''") }}' as metric,
    champion.{{ value }} as champion,
    challenger.{{ value }} as challenger,
    {{ loss }} as worse_by,
    case
        when champion.{{ value }} is null or challenger.{{ value }} is null then 'undefined'
        else 'challenger worse by more than {{ margin }}'
    end as reason
from champion
join challenger on {% for col in keys %}champion.{{ col }} is not distinct from challenger.{{ col }}{{ ' and ' if not loop.last }}{% else %}true{% endfor %}

where champion.{{ value }} is null
    or challenger.{{ value }} is null
    or {{ loss }} > {{ sqlmetrics.float_literal(margin) }}
{%- endset -%}
{{ sqlmetrics.sqlmetrics_log_failures('champion_challenger', failing, by_cols) }}
{{ failing }}
{% endtest %}
