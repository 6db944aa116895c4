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
  Per group (user, query): items ordered by score desc; equal scores by item desc
  in its own type (ties="item_desc"), item asc ("item_asc"), item as
  text in byte order desc ("text_desc": trec_eval's strcmp, also for integer ids); ties="average" is refused (no closed form: the
  Python layer raises, the macro raises a compiler error).
  Relevant: label >= relevance_level (default 1). Judged items: qrels if given (a run item
  absent from qrels has label 0; a run group absent from qrels is not evaluated), else the
  group's rows. n_rel = relevant judged items of the group, retrieved or not.
  Empty group: n_rel = 0. empty: skip = left out of the mean (default) | zero = kept, a
  per-group 0/0 counting 0 (trec_eval) | error = raise.
  Missing group (qrels only): judged, no row in the run. missing: skip = left out (default;
  trec_eval) | zero = kept as a group that retrieved nothing (trec_eval -c) | error = raise.
  Each slice averages over its own groups: the groups of its rows (judged ones with qrels).
  Undefined: no group left -> NULL (NaN + UndefinedMetricWarning).
  Shared SQL: sql/_macros/ranking.sql (one row_number() sort per group for every metric).
  Output: one row per slice; columns bpref, n_groups (groups in the mean), n_empty,
  n_missing (qrels).
  Oracle: tests/oracle/retrieval.py::bpref
#}
{% macro bpref_group_columns(p, k, by, options) -%}
{% if options.ties == 'average' %}
{{ exceptions.raise_compiler_error("bpref: ties='average' has no closed form; use 'item_desc' or 'item_asc'") }}
{% endif %}
sum(case when relevant = 1 and {{ sqlmetrics.ranking_within(k) }} then least(cum_judged - ap_term, n_rel) else 0 end) as {{ p }}nb,
sum(case when {{ sqlmetrics.ranking_within(k) }} then relevant else 0 end) as {{ p }}relret,
max(n_nonrel) as {{ p }}n_nonrel
{%- endmacro %}

{% macro bpref_value(p, k, options) -%}
{{ sqlmetrics.exact_sum('coalesce((' ~ p ~ 'relret - case when ' ~ p ~ 'nb = 0 then 0 else ' ~ p ~ 'nb / least(n_rel, ' ~ p ~ 'n_nonrel) end) / nullif(n_rel, 0), 0)', '0') }} / count(*)
{%- endmacro %}
