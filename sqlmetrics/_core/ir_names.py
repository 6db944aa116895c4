"""ir_measures' and trec_eval's names of the measures (``nDCG@10``, ``P(rel=2)@5``, ``P_10``).

ir_measures (terrierteam/ir_measures) writes a measure as ``Name``, ``Name@cutoff`` or
``Name(param=value, ...)@cutoff``: ``nDCG@10``, ``P(rel=2)@5``, ``RR(rel=2)``, ``IPrec@0.2``,
``nDCG(dcg='exp-log2')@10``, ``nDCG(gains={0:0,1:1,2:3})``. :func:`parse_ir_name` maps such a
name onto a registry metric and its options, driven only by :attr:`MetricSpec.ir_measures` and
the table :data:`IR_PARAMS` (ir_measures' parameter -> ours); :func:`trec_eval_name` gives
trec_eval's name of a metric and cut-off from :attr:`MetricSpec.trec_eval` (``P_10``,
``ndcg_cut_10``, ``map``, ``recip_rank``).

A name fixes the options ir_measures' measure defines: what it writes, and its defaults for the
others (``rel=1``; nDCG's ``dcg='log2'``: linear gains, the log2 discount), so that ``P@5`` is
ir_measures' P@5 whatever else the call asks for.
"""

from __future__ import annotations

import ast
import difflib
import re
from typing import Any

from ..errors import InvalidParameterError
from .registry import PARAMS, REGISTRY, MetricSpec

__all__ = [
    "IR_PARAMS",
    "ir_form",
    "ir_forms",
    "ir_hint",
    "ir_measures_name",
    "ir_names",
    "parse_ir_name",
    "shown_name",
    "trec_eval_name",
    "trec_form",
]

#: ir_measures' parameter -> our option (a parameter applies where the metric takes the option)
IR_PARAMS: dict[str, str] = {
    "rel": "relevance_level",
    "dcg": "gain",
    "gains": "gains",
    "judged_only": "judged_only",
    "beta": "beta",
}
#: ir_measures' declared parameters of each measure (its ``SUPPORTED_PARAMS`` less the cut-off
#: and IPrec's recall level) among :data:`IR_PARAMS`: a name takes a parameter only where
#: ir_measures declares it (``ERR(rel=2)`` is refused there and here); tests check the table
#: against ir_measures itself
IR_DECLARED: dict[str, tuple[str, ...]] = {
    "Success": ("rel", "judged_only"),
    "P": ("rel", "judged_only"),
    "R": ("rel", "judged_only"),
    "Rprec": ("rel", "judged_only"),
    "AP": ("rel", "judged_only"),
    "RR": ("rel", "judged_only"),
    "nDCG": ("dcg", "gains", "judged_only"),
    "Bpref": ("rel",),
    "IPrec": ("rel", "judged_only"),
    "ERR": (),
    "infAP": ("rel",),
    "Judged": (),
    "SetP": ("rel", "judged_only"),
    "SetR": ("rel",),
    "SetF": ("rel", "beta", "judged_only"),
    "NumQ": (),
    "NumRel": ("rel",),
    "NumRet": ("rel",),
    "NumRelRet": ("rel",),
}
#: nDCG's ``dcg=``: ir_measures' DCG formulation -> our options (both discount by log2)
DCG = {
    "log2": {"gain": "linear", "log_base": 2.0},
    "exp-log2": {"gain": "exponential", "log_base": 2.0},
}
#: ir_measures' defaults of the parameters a name fixes when it does not write them
IR_DEFAULTS: dict[str, Any] = {"rel": 1, "dcg": "log2"}
#: trec_eval's measures with a cut-off in the name (``P_10``, ``ndcg_cut_10``); ``*_cut``
#: names without a cut-off are the whole list (``ndcg``, ``map``); trec_eval writes a recall
#: level with two decimals (``iprec_at_recall_0.20``)
TREC_CUTS = ("P", "recall", "success", "ndcg_cut", "map_cut", "relative_P", "Rndcg")

_NAME = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<params>.*)\))?(?:@(?P<cut>.*))?", re.S
)


def ir_names() -> dict[str, MetricSpec]:
    """ir_measures' base name -> the registered metric it names."""
    return {s.ir_measures: s for s in REGISTRY.values() if s.ir_measures is not None}


def ir_form(spec: MetricSpec) -> str | None:
    """ir_measures' name of ``spec`` as users write it (``nDCG@k``, ``IPrec@recall``)."""
    if spec.ir_measures is None:
        return None
    cut = "@k" if spec.takes_k else "@recall" if "recall_level" in spec.params else ""
    return f"{spec.ir_measures}{cut}"


def ir_forms() -> list[str]:
    """ir_measures' names as users write them (``nDCG@k``, ``IPrec@recall``), sorted."""
    return sorted(str(ir_form(spec)) for spec in ir_names().values())


def trec_form(spec: MetricSpec) -> str | None:
    """trec_eval's name of ``spec`` as ``sqlmetrics list`` shows it (``P_k``, ``ndcg_cut_k``,
    ``recip_rank``, ``iprec_at_recall_L``), None when trec_eval has none.
    """
    base = spec.trec_eval
    if base is None:
        return None
    if base == "iprec_at_recall":
        return f"{base}_L"
    return f"{base}_k" if spec.takes_k and base in TREC_CUTS else base


def _literal(caller: str, text: str, node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise InvalidParameterError(
            f"{caller}: metric {text!r}: parameter value {ast.unparse(node)!r} is not a "
            f"literal; write numbers, quoted strings, True/False or a dict such as "
            f"{{0:0,1:1,2:3}}"
        ) from None


def _params(caller: str, text: str, spec_name: str, raw: str) -> dict[str, Any]:
    """``rel=2, dcg='exp-log2'`` as a dict, or an error naming what is wrong."""
    example = f"{spec_name}(rel=2)"
    try:
        call = ast.parse(f"f({raw})", mode="eval").body
    except SyntaxError:
        call = None
    if not isinstance(call, ast.Call) or call.args:
        raise InvalidParameterError(
            f"{caller}: metric {text!r}: the parameters in parentheses must be name=value "
            f"pairs separated by commas, e.g. {example!r}"
        )
    out: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise InvalidParameterError(
                f"{caller}: metric {text!r}: write each parameter as name=value, e.g. {example!r}"
            )
        out[keyword.arg] = _literal(caller, text, keyword.value)
    return out


def _takes(spec: MetricSpec) -> list[str]:
    """ir_measures' parameters whose option this metric takes (the defaults a name fixes)."""
    return [p for p, ours in IR_PARAMS.items() if ours in spec.params]


def _accepted(spec: MetricSpec) -> list[str]:
    """ir_measures' parameters a name of this metric may write: those ir_measures declares
    for the measure, where the metric takes the option they set.
    """
    declared = IR_DECLARED.get(str(spec.ir_measures), ())
    return [p for p in _takes(spec) if p in declared]


def _translate(
    caller: str, text: str, name: str, spec: MetricSpec, param: str, value: Any
) -> dict[str, Any]:
    """One of ir_measures' parameters as our options, checked by the option's own check."""
    if param == "dcg":
        if not isinstance(value, str) or value not in DCG:
            raise InvalidParameterError(
                f"{caller}: metric {text!r}: dcg={value!r} is not one of ir_measures' DCG "
                f"formulations; write dcg='log2' (linear gains, the default) or "
                f"dcg='exp-log2' (gains 2^rel - 1), e.g. \"{name}(dcg='exp-log2')@10\""
            )
        return dict(DCG[value])
    if param == "rel" and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise InvalidParameterError(
            f"{caller}: metric {text!r}: rel={value!r} must be an integer >= 1 (a document is "
            f"relevant when its judgment is >= rel), e.g. '{name}(rel=2)'"
        )
    if param == "judged_only" and not isinstance(value, bool):
        raise InvalidParameterError(
            f"{caller}: metric {text!r}: judged_only={value!r} must be True or False, e.g. "
            f"'{name}(judged_only=True)'"
        )
    ours = IR_PARAMS[param]
    try:
        checked = PARAMS[ours].validate(text, value)
    except InvalidParameterError as exc:
        raise InvalidParameterError(
            f"{caller}: metric {text!r}: {param}={value!r} is not valid ({exc}); fix the "
            f"value of {param}= in the name"
        ) from None
    return {ours: checked}


def parse_ir_name(
    text: str, caller: str = "evaluate"
) -> tuple[MetricSpec, int | None, dict[str, Any]] | None:
    """Parse ir_measures' name ``text`` into (spec, k, options), or None when its base name
    is not one of ir_measures' names of a registered metric (the caller then reports it as
    unknown).

    >>> import sqlmetrics  # registers the metrics
    >>> spec, k, options = parse_ir_name("P(rel=2)@5")
    >>> spec.name, k, options
    ('precision_at_k', 5, {'relevance_level': 2})
    >>> parse_ir_name("nDCG@10")[2]
    {'relevance_level': 1, 'gain': 'linear', 'log_base': 2.0}
    """
    match = _NAME.fullmatch(text.strip())
    if match is None:
        return None
    name = match["name"]
    spec = ir_names().get(name)
    if spec is None:
        return None
    given = _params(caller, text, name, match["params"]) if match["params"] is not None else {}
    accepted = _accepted(spec)
    for param in given:
        if param not in accepted:
            hint = difflib.get_close_matches(param, accepted, n=1)
            near = f"did you mean {hint[0]}=? " if hint else ""
            takes = ", ".join(f"{p}=" for p in accepted) or "none"
            example = f"{name}(rel=2)" if "rel" in accepted else name
            why = (
                f" (ir_measures' {name} does not declare it)"
                if param in IR_PARAMS and IR_PARAMS[param] in spec.params
                else ""
            )
            raise InvalidParameterError(
                f"{caller}: metric {text!r}: {name} takes no parameter {param}={why}; {near}"
                f"its parameters here: {takes}; drop {param}= or write e.g. {example!r}"
            )
    options: dict[str, Any] = {}
    for param in _takes(spec):  # ir_measures' defaults of what the name does not write
        if param in IR_DEFAULTS and param not in given:
            options.update(_translate(caller, text, name, spec, param, IR_DEFAULTS[param]))
    for param, value in given.items():
        options.update(_translate(caller, text, name, spec, param, value))
    if "gains" in options and "gain" in options and "dcg" not in given:
        options.pop("gain")  # custom gains replace the formulation's gain
    k: int | None = None
    cut = match["cut"]
    if cut is not None:
        k, options = _cutoff(caller, text, name, spec, cut.strip(), options)
    return spec, k, options


def _cutoff(
    caller: str, text: str, name: str, spec: MetricSpec, cut: str, options: dict[str, Any]
) -> tuple[int | None, dict[str, Any]]:
    """``@10`` as k, or ``@0.2`` as IPrec's recall level."""
    if spec.takes_k:
        if not re.fullmatch(r"[1-9][0-9]*", cut):
            raise InvalidParameterError(
                f"{caller}: metric {text!r}: the cut-off after '@' must be an integer >= 1, "
                f"e.g. '{name}@10'"
            )
        if len(cut) > 19 or int(cut) > 2**63 - 1:  # int() of 5,000 digits: a raw ValueError
            raise InvalidParameterError(
                f"{caller}: metric '{name}@{cut[:12]}...' ({len(cut)} digits): the cut-off "
                f"after '@' must be at most {2**63 - 1} (2^63 - 1), e.g. '{name}@1000'"
            )
        return int(cut), options
    if "recall_level" in spec.params:
        try:
            level = float(cut)
        except ValueError:
            level = -1.0
        if not 0 <= level <= 1:
            raise InvalidParameterError(
                f"{caller}: metric {text!r}: the recall level after '@' must be a number in "
                f"[0, 1], e.g. '{name}@0.2'"
            )
        return None, {**options, "recall_level": level}
    raise InvalidParameterError(
        f"{caller}: metric {text!r}: {name} takes no cut-off; write {name!r}"
    )


def trec_eval_name(
    spec: MetricSpec, k: int | None, options: dict[str, Any] | None = None
) -> str | None:
    """trec_eval's name of ``spec`` at cut-off ``k`` (``P_10``, ``ndcg_cut_10``, ``ndcg``,
    ``recip_rank``), or None when trec_eval has no name for it (no name, or a cut-off its
    measure does not take: ``recip_rank`` has none).

    >>> from sqlmetrics._core.registry import REGISTRY
    >>> import sqlmetrics
    >>> trec_eval_name(REGISTRY["ndcg"], 10), trec_eval_name(REGISTRY["map"], None)
    ('ndcg_cut_10', 'map')
    >>> trec_eval_name(REGISTRY["mrr"], 10) is None
    True
    """
    base = spec.trec_eval
    if base is None:
        return None
    if base == "iprec_at_recall":
        level = (options or {}).get("recall_level", PARAMS["recall_level"].default)
        return f"{base}_{float(level):.2f}"
    if k is None:
        return base.removesuffix("_cut")
    return f"{base}_{k}" if base in TREC_CUTS else None


#: what trec_eval's measures are, beyond the relevance level (trec_eval's -l): linear gains
#: and the log2 discount (ndcg), all judged items, AP over the relevant items, P over k, and a
#: judged topic without a relevant item counting 0; trec_eval's name means these values
TREC_DEFINITION: dict[str, Any] = {
    "gain": "linear",
    "gains": None,
    "log_base": 2.0,
    "judged_only": False,
    "ap_denominator": "relevant",
    "precision_denominator": "k",
    "empty": "zero",
    "beta": 1.0,
}
#: what ir_measures' measures are beyond the parameters their names write (the judged query
#: without a relevant item counts 0 there too; IPrec is pytrec_eval's trec_eval 9)
IR_DEFINITION: dict[str, Any] = {
    "log_base": 2.0,
    "ap_denominator": "relevant",
    "precision_denominator": "k",
    "empty": "zero",
    "recall_rounding": "trec_eval_9",
    "max_grade": 4,
}


def _differ(spec: MetricSpec, options: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """The options of ``spec`` whose value in ``options`` is not the one in ``wanted``."""
    out = {}
    for option, want in wanted.items():
        if option not in spec.params:
            continue
        value = options.get(option)
        if not (value == want and isinstance(value, bool) == isinstance(want, bool)):
            out[option] = value
    return out


def _compact(value: Any) -> str:
    """A parameter value as ir_measures' names write it, without blanks (``{0:0,1:1,2:3}``:
    whole numbers as integers).
    """
    if isinstance(value, dict):
        return "{" + ",".join(f"{_compact(k)}:{_compact(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value).replace(" ", "")


def ir_measures_name(spec: MetricSpec, k: int | None, options: dict[str, Any]) -> str | None:
    """ir_measures' name of ``spec`` at cut-off ``k`` with the (resolved) ``options``
    (``P(rel=2)@3``, ``nDCG(dcg='exp-log2')@10``), or None where ir_measures has no measure
    with that definition (no name, an option its name cannot write, e.g. ``log_base=10``).
    """
    base = spec.ir_measures
    if base is None or _differ(spec, options, IR_DEFINITION):
        return None
    declared = IR_DECLARED.get(base, ())
    params: list[str] = []
    level = options.get("relevance_level", 1)
    if "relevance_level" in spec.params and level != 1:
        if "rel" not in declared or float(level) != int(level):
            return None
        params.append(f"rel={int(level)}")
    if "gain" in spec.params:
        if options.get("gains") is not None:
            params.append(f"gains={_compact(options['gains'])}")
        elif options.get("gain", "linear") == "exponential":
            params.append("dcg='exp-log2'")
        elif options.get("gain", "linear") != "linear":
            return None
    if options.get("judged_only") is True:
        if "judged_only" not in declared:
            return None
        params.append("judged_only=True")
    if "beta" in spec.params and float(options.get("beta", 1.0)) != 1.0:
        params.append(f"beta={_compact(float(options['beta']))}")
    written = f"({', '.join(params)})".replace(", ", ",") if params else ""
    if k is not None:
        return f"{base}{written}@{k}" if spec.takes_k else None
    if "recall_level" in spec.params:
        return f"{base}{written}@{float(options.get('recall_level', 0.0))!r}"
    return f"{base}{written}"


def shown_name(
    spec: MetricSpec,
    k: int | None,
    options: dict[str, Any],
    written: str,
    relevance_level: float = 1,
) -> str:
    """The name ``--format trec`` prints a requested metric under: one name, one definition.

    trec_eval's name (``P_10``, ``ndcg_cut_10``, ``map``) where the metric with its resolved
    ``options`` is trec_eval's measure at the call's relevance level (trec_eval's ``-l``);
    else ir_measures' name of that definition (``P(rel=2)@3``, ``nDCG(dcg='exp-log2')@3``);
    else the name as ``written``, with the options that set it apart in brackets where the
    written name is one of those tools' names (``map[empty='skip']``).
    """
    if not _differ(spec, options, {**TREC_DEFINITION, "relevance_level": relevance_level}):
        trec = trec_eval_name(spec, k, options)
        if trec is not None:
            return trec
    ir = ir_measures_name(spec, k, options)
    if ir is not None:
        return ir
    apart: dict[str, Any] = {}
    if trec_eval_name(spec, k, options) == written:
        apart.update(
            _differ(spec, options, {**TREC_DEFINITION, "relevance_level": relevance_level})
        )
    match = _NAME.fullmatch(written.strip())
    if match is not None and match["name"] in ir_names():
        apart.update(_differ(spec, options, IR_DEFINITION))
    if not apart:
        return written
    return f"{written}[{','.join(f'{o}={_compact(v)}' for o, v in apart.items())}]"


def ir_hint(text: str, k_text: str) -> list[str]:
    """ir_measures' names close to ``text``'s base name, written with its cut-off."""
    name = _NAME.match(text.strip())
    base = name["name"] if name else text
    forms = ir_forms()
    plain = [f.split("@")[0] for f in forms]
    hint = difflib.get_close_matches(base, plain, n=1, cutoff=0.6)
    hint = hint or difflib.get_close_matches(base.lower(), [p.lower() for p in plain], n=1)
    if not hint:
        return []
    at = next(i for i, p in enumerate(plain) if p.lower() == hint[0].lower())
    form = forms[at]
    return [form.replace("@k", f"@{k_text or 10}").replace("@recall", "@0.2")]
