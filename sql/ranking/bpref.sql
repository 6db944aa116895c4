{#
  bpref: binary preference, mean over groups (Buckley & Voorhees 2004; trec_eval bpref).
     bpref = (1 / R) sum_{relevant retrieved r} (1 - min(N_r, R) / min(R, N))
  R = n_rel (relevant judged items, retrieved or not), N = judged non-relevant items of the
  group, N_r = judged non-relevant items ranked above r. Unjudged retrieved items (with
  qrels: absent from them) are skipped, as trec_eval; without qrels every row is judged.
  A relevant item with N_r = 0 adds 1 (then min(R, N) may be 0).
  Per group: nb = sum over relevant rows of min(cum_judged - cum_rel, R) (cum_judged - cum_rel
  at a relevant row = judged non-relevant items above it), relret = relevant retrieved;
  bpref = (relret - nb / min(R, N)) / R, nb = 0 giving relret / R.
  ties="average" is refused: no closed form (the Python layer raises, the macro raises a
  compiler error).
  Ranking rules: sql/_macros/kernels/ranking.sql (order and ties, relevance, empty and missing groups).
  Output: one row per slice; columns bpref, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::bpref
#}
{% macro bpref_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("bpref: ties='average' has no closed form; use 'item_desc' or 'item_asc'") }}
{% endif %}
sum(case when relevant = 1 and {{ sqlmetrics.ranking_within(k) }} then least(cum_judged - ap_term, cast(n_rel as {{ sqlmetrics.float_type() }})) else 0 end) as {{ p }}nb,
sum(case when {{ sqlmetrics.ranking_within(k) }} then relevant else 0 end) as {{ p }}relret,
max(n_nonrel) as {{ p }}n_nonrel
{%- endmacro %}

{% macro bpref_value(p, k, options) -%}
{{ sqlmetrics.ranking_mean('coalesce((' ~ p ~ 'relret - case when ' ~ p ~ 'nb = 0 then 0 else ' ~ p ~ 'nb / least(cast(n_rel as ' ~ sqlmetrics.float_type() ~ '), cast(' ~ p ~ 'n_nonrel as ' ~ sqlmetrics.float_type() ~ ')) end) / nullif(n_rel, 0), 0)', '0', options) }}
{%- endmacro %}
