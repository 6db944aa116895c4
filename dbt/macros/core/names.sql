{#
  Names as users write them, as sqlmetrics/names.py and registry.py read them: `repr` of a
  value in messages, the "did you mean" hint (difflib.get_close_matches, same scores, same
  choice), the parsing of `ndcg@10`, identifier quoting with the adapter's own quote.
  sqlmetrics_repr and sqlmetrics_close_match write their result (no `return`), so a plain
  Jinja environment can render them too (tests/test_dbt.py compares them with Python's).
#}

{# Python's repr() of a value read from Jinja or YAML: 'text', 0.5, 10, True, None, [...] #}
{% macro sqlmetrics_repr(value) -%}
{%- if value is none -%}None
{%- elif value is boolean -%}{{ 'True' if value else 'False' }}
{%- elif value is string -%}
{%- if "'" in value and '"' not in value -%}"{{ value }}"
{%- else -%}'{{ value | replace('\\', '\\\\') | replace("'", "\\'") }}'
{%- endif -%}
{%- elif value is mapping -%}{
{%- for key, item in value.items() -%}{{ sqlmetrics.sqlmetrics_repr(key) }}: {{ sqlmetrics.sqlmetrics_repr(item) }}{{ ', ' if not loop.last }}{%- endfor -%}}
{%- elif value is iterable -%}[
{%- for item in value -%}{{ sqlmetrics.sqlmetrics_repr(item) }}{{ ', ' if not loop.last }}{%- endfor -%}]
{%- else -%}{{ value }}
{%- endif -%}
{%- endmacro %}

{#
  Characters of difflib.SequenceMatcher(None, a, b).get_matching_blocks() within
  a[alo:ahi], b[blo:bhi]: the longest common block (first by its start in a, then in b, as
  find_longest_match picks it; no junk: names are far below difflib's 200-character
  autojunk limit), plus the matches left and right of it, recursively.
#}
{% macro sqlmetrics_matching(a, b, alo, ahi, blo, bhi) -%}
{%- set best = namespace(i=alo, j=blo, size=0) -%}
{%- for i in range(alo, ahi) -%}
{%- for j in range(blo, bhi) -%}
{%- set run = namespace(n=0, going=true) -%}
{%- for step in range([ahi - i, bhi - j] | min) -%}
{%- if run.going and a[i + step] == b[j + step] -%}{%- set run.n = run.n + 1 -%}
{%- else -%}{%- set run.going = false -%}{%- endif -%}
{%- endfor -%}
{%- if run.n > best.size -%}{%- set best.i, best.j, best.size = i, j, run.n -%}{%- endif -%}
{%- endfor -%}
{%- endfor -%}
{%- if best.size == 0 -%}0
{%- else -%}
{%- set left = sqlmetrics.sqlmetrics_matching(a, b, alo, best.i, blo, best.j) | trim | int -%}
{%- set right = sqlmetrics.sqlmetrics_matching(a, b, best.i + best.size, ahi, best.j + best.size, bhi) | trim | int -%}
{{ best.size + left + right }}
{%- endif -%}
{%- endmacro %}

{# difflib.get_close_matches(word, choices, n=1)[0] (cutoff 0.6), or nothing #}
{% macro sqlmetrics_close_match(word, choices) -%}
{%- set best = namespace(score=-1.0, choice='') -%}
{%- for choice in choices -%}
{%- set total = (choice | length) + (word | length) -%}
{%- set matched = sqlmetrics.sqlmetrics_matching(choice, word, 0, choice | length, 0, word | length) | trim | int -%}
{%- set score = 2.0 * matched / total if total else 1.0 -%}
{%- if score >= 0.6 and (score > best.score or (score == best.score and choice > best.choice)) -%}
{%- set best.score, best.choice = score, choice -%}
{%- endif -%}
{%- endfor -%}
{{ best.choice }}
{%- endmacro %}

{# an identifier quoted by the adapter, its own quote character doubled inside #}
{% macro sqlmetrics_quote(name) -%}
{%- set mark = adapter.quote('x')[0] -%}
{{ adapter.quote(name | replace(mark, mark ~ mark)) }}
{%- endmacro %}

{#
  parse_metric (sqlmetrics/names.py): 'ndcg@10', 'map', 'auc', an alias, or one of
  ir_measures' names ('nDCG@10', 'P(rel=2)@5': core/ir_names.sql) -> {text, name, k,
  params}, params the options the name fixes (empty for our own names).
  `who` starts the messages; scalar_only refuses the metrics that give a table.
#}
{% macro sqlmetrics_lookup(base, with_k) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set found = namespace(name=none) -%}
{%- for name in ([base, base ~ '_at_k'] if with_k else [base]) -%}
{%- set key = facts.aliases.get(name, name) -%}
{%- if found.name is none and key in facts.metrics and (facts.metrics[key].takes_k or not with_k) -%}
{%- set found.name = key -%}
{%- endif -%}
{%- endfor -%}
{{ return(found.name) }}
{%- endmacro %}

{% macro sqlmetrics_parse_metric(text, who='evaluate', scalar_only=true) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- if text is not string or not text -%}
{{ exceptions.raise_compiler_error(who ~ ": metrics= must hold metric names such as 'auc' or 'ndcg@10'; got " ~ sqlmetrics.sqlmetrics_repr(text)) }}
{%- endif -%}
{%- set parts = text.partition('@') -%}
{%- set base, at, k_text = parts[0], parts[1], parts[2] -%}
{#- our names first, then ir_measures' (nDCG@10, P(rel=2)@5: core/ir_names.sql) -#}
{%- if '(' in base or sqlmetrics.sqlmetrics_lookup(base, at != '') is none -%}
{%- set parsed = sqlmetrics.sqlmetrics_parse_ir_name(text, who) -%}
{%- if parsed is not none -%}{{ return(parsed) }}{%- endif -%}
{%- endif -%}
{%- set k = none -%}
{%- if at -%}
{%- if not modules.re.fullmatch('[1-9][0-9]*', k_text) -%}
{{ exceptions.raise_compiler_error(who ~ ": metric " ~ sqlmetrics.sqlmetrics_repr(text) ~ ": the cut-off after '@' must be an integer >= 1, e.g. '" ~ base ~ "@10'") }}
{%- endif -%}
{%- set k = k_text | int -%}
{%- endif -%}
{%- set name = sqlmetrics.sqlmetrics_lookup(base, at != '') -%}
{%- if name is none -%}
{%- set forms = facts.scalar_forms if scalar_only else facts.forms -%}
{%- set offered = [] -%}
{%- for form in forms -%}{%- if not at or form.endswith('@k') -%}{%- do offered.append(form) -%}{%- endif -%}{%- endfor -%}
{%- set plain = [] -%}
{%- for form in offered -%}{%- do plain.append(form[:-2] if form.endswith('@k') else form) -%}{%- endfor -%}
{%- set hint = sqlmetrics.sqlmetrics_close_match(base | lower, plain) | trim -%}
{%- set theirs = sqlmetrics.sqlmetrics_ir_hint(text, k_text) -%}
{%- set near = '' -%}
{%- if at and sqlmetrics.sqlmetrics_lookup(base, false) is not none -%}
{%- set near = sqlmetrics.sqlmetrics_repr(base) ~ ' takes no cut-off; write ' ~ sqlmetrics.sqlmetrics_repr(base) ~ '. ' -%}
{%- elif hint or theirs -%}
{%- set said = [] -%}
{%- if hint -%}{%- do said.append(offered[plain.index(hint)].replace('@k', '@' ~ k if k else '@10')) -%}{%- endif -%}
{#- ir_measures' name only where it is not ours in other case ('nDCG@10', 'ndcg@10') -#}
{%- for form in theirs if form | lower not in said | map('lower') | list -%}{%- do said.append(form) -%}{%- endfor -%}
{%- set quoted = [] -%}{%- for form in said -%}{%- do quoted.append(sqlmetrics.sqlmetrics_repr(form)) -%}{%- endfor -%}
{%- set near = 'did you mean ' ~ quoted | join(' or ') ~ '? ' -%}
{%- endif -%}
{{ exceptions.raise_compiler_error(who ~ ": unknown metric " ~ sqlmetrics.sqlmetrics_repr(text) ~ "; " ~ near ~ "known metrics: " ~ forms | join(', ') ~ "; ir_measures' names: " ~ facts.ir_measures.forms | join(', ')) }}
{%- endif -%}
{%- set spec = facts.metrics[name] -%}
{%- if scalar_only and spec.output != 'scalar' -%}
{{ exceptions.raise_compiler_error(who ~ ": " ~ sqlmetrics.sqlmetrics_repr(text) ~ " gives several values per slice (a curve, counts or a report), not one number; call sqlmetrics." ~ name ~ "(...) for it") }}
{%- endif -%}
{{ return({'text': text, 'name': name, 'k': k, 'params': {}}) }}
{%- endmacro %}
