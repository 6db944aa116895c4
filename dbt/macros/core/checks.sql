{#
  The option checks of sqlmetrics/registry.py (and ranking.py, curves.py, bounds.py), one
  per ParamSpec check, with the same messages. sqlmetrics_check_option(metric, name, value)
  returns the value normalised as Python's check returns it (eps 'auto' -> machine epsilon,
  relevance_level 2.0 -> 2, ...) or raises a compiler error (its message inside
  within=[before, after] when given). Which check an option uses,
  its default and its allowed values come from the generated registry facts
  (macros/_generated/registry.sql); the generator refuses an option whose check has no
  twin here.
#}

{% macro sqlmetrics_fail(message) -%}
{{ exceptions.raise_compiler_error(message) }}
{%- endmacro %}

{# a check's message as it is, or inside [before, after] (core/ir_names.sql: a parameter in
   an ir_measures name says which name) #}
{% macro sqlmetrics_fail_within(within, message) -%}
{{ sqlmetrics.sqlmetrics_fail(message if within is none else within[0] ~ message ~ within[1]) }}
{%- endmacro %}

{% macro sqlmetrics_is_real(value) -%}
{{ return(value is number and value is not boolean and value | abs <= 1.7976931348623157e308) }}
{%- endmacro %}

{% macro sqlmetrics_check_option(metric, name, value, within=none) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set kind = facts.params[name].check -%}
{%- set got = '; got ' ~ sqlmetrics.sqlmetrics_repr(value) -%}
{%- set real = sqlmetrics.sqlmetrics_is_real(value) -%}
{%- if kind == 'choice' -%}
{%- set allowed = facts.params[name].allowed -%}
{%- if value not in allowed or value is not string -%}
{%- set hint = sqlmetrics.sqlmetrics_close_match(value ~ '', allowed) | trim -%}
{%- set quoted = [] -%}
{%- for item in allowed -%}{%- do quoted.append(sqlmetrics.sqlmetrics_repr(item)) -%}{%- endfor -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be one of ' ~ quoted | join(', ') ~ got ~ ('; did you mean ' ~ sqlmetrics.sqlmetrics_repr(hint) ~ '?' if hint else '')) }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'real' -%}
{%- if not real -%}{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be a finite number' ~ got) }}{%- endif -%}
{{ return(value | float) }}
{%- elif kind == 'beta' -%}
{%- if not real -%}{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be a finite number' ~ got) }}{%- endif -%}
{%- if value < 0 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be a finite number >= 0 (recall weighs beta times precision; 0 gives precision, as scikit-learn's fbeta_score)" ~ got) }}
{%- endif -%}
{%- set square = (value | float) * (value | float) -%}
{%- if value != 0 and not (0 < square <= 1.7976931348623157e308) -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '=' ~ sqlmetrics.sqlmetrics_repr(value) ~ ' is out of range: ' ~ name ~ '**2 must be a finite double > 0, so ' ~ name ~ ' must lie in [1.5e-154, 1.3e+154]') }}
{%- endif -%}
{{ return(value | float) }}
{%- elif kind == 'zero_division' -%}
{%- if value is string and value == 'warn' -%}{{ return('warn') }}{%- endif -%}
{%- if value is number and value is not boolean and (value != value or value == 0 or value == 1) -%}{{ return(value | float) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be 'warn' (NaN with a warning), 0.0, 1.0 or float('nan')" ~ got) }}
{%- elif kind == 'k' -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- if value is not integer or value < 1 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be an integer >= 1, or None for the whole list' ~ got) }}
{%- endif -%}
{%- if value > facts.k_max -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be <= ' ~ facts.k_max ~ got ~ '; pass None for the whole list') }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'pos_label' -%}
{%- if value is none or value is string or value is boolean -%}{{ return(value) }}{%- endif -%}
{%- if real -%}{{ return(value | int if (value | float) == (value | int) else value | float) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be a string, a finite number or a boolean (the label value of the positive class), or None for 0/1 or boolean labels' ~ got) }}
{%- elif kind == 'bins' -%}
{%- if value is not integer or value < 1 or value > facts.max_bins -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be an integer between 1 and ' ~ facts.max_bins ~ ' (a power of two, e.g. 65536, makes the bounds nest as it grows)' ~ got) }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'drop_intermediate' -%}
{%- if value is none or value is boolean -%}{{ return(value) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be True or False' ~ got) }}
{%- elif kind == 'max_points' -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- if value is not integer or value < 2 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be an integer >= 2 (the curve's two ends), or None for every point" ~ got) }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'eps' -%}
{%- if value is string and value == 'auto' -%}{{ return(facts.double_eps) }}{%- endif -%}
{%- if real and 0 < value < 0.5 -%}{{ return(value | float) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be 'auto' (machine epsilon, " ~ facts.double_eps ~ ', as scikit-learn) or a number with 0 < eps < 0.5' ~ got) }}
{%- elif kind == 'relevance_level' -%}
{%- if not real or value <= 0 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be a finite number > 0 (an item is relevant when label >= " ~ name ~ "; trec_eval's -l)" ~ got) }}
{%- endif -%}
{{ return(value | int if (value | float) == (value | int) else value | float) }}
{%- elif kind == 'adjusted' -%}
{%- if value is boolean -%}{{ return(value) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be True or False' ~ got) }}
{%- elif kind == 'kappa_weights' -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- set allowed = ['linear', 'quadratic'] -%}
{%- if value not in allowed or value is not string -%}
{%- set hint = sqlmetrics.sqlmetrics_close_match(value ~ '', allowed) | trim -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be one of 'linear', 'quadratic'" ~ got ~ ('; did you mean ' ~ sqlmetrics.sqlmetrics_repr(hint) ~ '?' if hint else '') ~ ' (or None for unweighted kappa)') }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'n_bins' -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- if value is not integer or value is boolean or value < 1 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be an integer >= 1 (the number of bins)' ~ got) }}
{%- endif -%}
{%- if value > facts.n_bins_max -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be <= ' ~ facts.n_bins_max ~ ' (each bin edge is a column of the query)' ~ got) }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'max_label_levels' -%}
{%- if value is not integer or value is boolean or value < 2 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be an integer >= 2 (the most distinct label values a group may have; the cost grows as rows x label values)' ~ got) }}
{%- endif -%}
{%- if value > 2147483647 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be <= 2147483647' ~ got) }}
{%- endif -%}
{{ return(value) }}
{%- elif kind == 'log_base' -%}
{%- if not real or value <= 1 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be a finite number > 1 (the discount is 1 / log_base(position + 1))' ~ got) }}
{%- endif -%}
{{ return(value | float) }}
{%- elif kind == 'persistence' -%}
{%- if not real or not (0 < value < 1) -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be a number in (0, 1), the probability of looking at the next item (trec_eval's default 0.9)" ~ got) }}
{%- endif -%}
{{ return(value | float) }}
{%- elif kind == 'judged_only' -%}
{%- if value is boolean -%}{{ return(value) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be True or False (True: with qrels=, the run's items absent from the judgments are removed before ranking, trec_eval -J)" ~ got) }}
{%- elif kind == 'gains' -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- set fix = "e.g. gains={0: 0, 1: 1, 2: 3} (trec_eval's gain map)" -%}
{%- if value is not mapping or value | length == 0 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be a non-empty mapping of relevance level -> gain, ' ~ fix ~ ', or None for gain=' ~ got) }}
{%- endif -%}
{%- set out = {} -%}
{%- for level in value.keys() | sort -%}
{%- if level is not integer or level is boolean -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= levels must be integers (the labels' relevance levels), " ~ fix ~ '; got the level ' ~ sqlmetrics.sqlmetrics_repr(level)) }}
{%- endif -%}
{%- if not sqlmetrics.sqlmetrics_is_real(value[level]) -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= gains must be finite numbers, ' ~ fix ~ '; got ' ~ sqlmetrics.sqlmetrics_repr(value[level]) ~ ' for level ' ~ sqlmetrics.sqlmetrics_repr(level)) }}
{%- endif -%}
{%- if level | abs > 9007199254740992 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= levels must lie within +-2^53 (exact as doubles), ' ~ fix ~ '; got the level ' ~ sqlmetrics.sqlmetrics_repr(level)) }}
{%- endif -%}
{%- do out.update({level | float: value[level] | float}) -%}
{%- endfor -%}
{{ return(out) }}
{%- elif kind == 'max_grade' -%}
{%- if not real or not (0 < value <= 960) -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be a number in (0, 960], the highest grade of the judgments (ERR's R = (2^label - 1) / 2^" ~ name ~ "; gdeval's default 4)" ~ got) }}
{%- endif -%}
{{ return(value | float) }}
{%- elif kind == 'recall_level' -%}
{%- if not real or not (0 <= value <= 1) -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be a number in [0, 1] (a recall level, e.g. 0.5 for trec_eval's iprec_at_recall_0.50)" ~ got) }}
{%- endif -%}
{{ return(value | float) }}
{%- elif kind == 'max_fpr' -%}
{%- if real and 0 < value <= 1 -%}{{ return(value | float) }}{%- endif -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= must be a number with 0 < max_fpr <= 1 (the false positive rate the area stops at; 1 is the whole ROC AUC)' ~ got) }}
{%- elif kind == 'labels' -%}
{%- if value is none -%}{{ return(none) }}{%- endif -%}
{%- if value is string or value is mapping or value is not iterable -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ "= must be a list of classes (e.g. ['cat', 'dog']), or None for the classes in the data" ~ got) }}
{%- endif -%}
{%- if value | length == 0 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= is an empty list; list at least one class, or pass None for the classes in the data') }}
{%- endif -%}
{%- set kinds = [] -%}
{%- set out = [] -%}
{%- for v in value -%}
{%- if v is boolean -%}{%- do kinds.append('boolean') -%}{%- do out.append(v) -%}
{%- elif v is string -%}{%- do kinds.append('text') -%}{%- do out.append(v) -%}
{%- elif sqlmetrics.sqlmetrics_is_real(v) -%}{%- do kinds.append('number') -%}{%- do out.append(v | int if (v | float) == (v | int) else v | float) -%}
{%- else -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= holds ' ~ sqlmetrics.sqlmetrics_repr(v) ~ '; a class must be a string, a finite number or a boolean') }}
{%- endif -%}
{%- endfor -%}
{%- if kinds | unique | list | length > 1 -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= mixes kinds of classes (' ~ kinds | unique | sort | join(', ') ~ '): ' ~ sqlmetrics.sqlmetrics_repr(value) ~ "; list classes of the label column's one type") }}
{%- endif -%}
{%- set seen = [] -%}
{%- for v in out -%}
{%- if v in seen -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, metric ~ ': ' ~ name ~ '= lists class ' ~ sqlmetrics.sqlmetrics_repr(v) ~ ' twice: ' ~ sqlmetrics.sqlmetrics_repr(out) ~ '; list each class once') }}
{%- endif -%}
{%- do seen.append(v) -%}
{%- endfor -%}
{{ return(out) }}
{%- else -%}
{{ sqlmetrics.sqlmetrics_fail_within(within, 'sqlmetrics: option ' ~ name ~ '= has a check (' ~ kind ~ ') the dbt package does not know; regenerate the package') }}
{%- endif -%}
{%- endmacro %}

{#
  check_params (sqlmetrics/_engine.py): every option the metric takes, checked, defaults
  filled; an option it does not take is refused; then the cross-option check.
#}
{% macro sqlmetrics_check_params(name, params) -%}
{%- set facts = sqlmetrics.sqlmetrics_registry() -%}
{%- set spec = facts.metrics[name] -%}
{%- for option in params -%}
{%- if option not in spec.params -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ': unexpected option ' ~ option ~ '=; options it accepts: ' ~ (spec.params | join(', ') or 'none')) }}
{%- endif -%}
{%- endfor -%}
{%- set checked = {} -%}
{%- for option in spec.params -%}
{%- set value = sqlmetrics.sqlmetrics_check_option(name, option, params[option] if option in params else spec.defaults[option]) -%}
{%- do checked.update({option: spec.defaults[option] if value is none else value}) -%}
{%- endfor -%}
{%- if spec.cross_check == 'map_ties_hits' and checked.get('ties') == 'average' and checked.get('ap_denominator') == 'hits' -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": ties='average' has no closed form with ap_denominator='hits' (the expectation of a ratio of two random counts); use ties='item_desc' or 'item_asc', or ap_denominator='relevant' or 'min_k_relevant'") }}
{%- endif -%}
{%- if spec.cross_check == 'no_tie_average' and checked.get('ties') == 'average' -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": ties='average' has no closed form for " ~ name ~ " (it is not linear in the positions of the tied items); use ties='item_desc', 'item_asc' or 'text_desc' (trec_eval)") }}
{%- endif -%}
{%- if spec.cross_check == 'hit_ratio_empty' and checked.get('empty') == 'one' -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": empty='one' gives an empty group the value 1, but " ~ name ~ " is a ratio of sums over groups with no per-group value; use empty='skip' or 'zero' (the same here), or hit_rate / recall_at_k") }}
{%- endif -%}
{%- if spec.cross_check == 'count_empty_one' and checked.get('empty') == 'one' -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": empty='one' gives an empty group the value 1 in a mean, but " ~ name ~ " is a count summed over groups; use empty='zero' to count the groups with no relevant item (trec_eval) or empty='skip' to leave them out") }}
{%- endif -%}
{%- if spec.cross_check == 'ovo_average' and checked.get('multi_class') == 'ovo' and checked.get('auc_average') not in ('macro', 'weighted') -%}
{{ sqlmetrics.sqlmetrics_fail(name ~ ": multi_class='ovo' averages pairs of classes with average='macro' or 'weighted'; got average=" ~ sqlmetrics.sqlmetrics_repr(checked.get('auc_average')) ~ " (micro and samples are one-vs-rest averages: use multi_class='ovr')") }}
{%- endif -%}
{{ return(checked) }}
{%- endmacro %}
