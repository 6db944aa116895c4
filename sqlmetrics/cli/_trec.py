"""``eval --format trec``: trec_eval's layout (``measure``, topic, value), its names
(``P_10``, ``ndcg_cut_10``) and its count lines (``num_q``, ``num_ret``, ``num_rel``,
``num_rel_ret``).

The counts are the registry's count metrics (``sql/ranking/num_*.sql``) evaluated per topic:
the command line holds no SQL of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


def trec_text(
    run: Callable[..., pd.DataFrame],
    table: Any,
    qrels: Any,
    con: Any,
    columns: dict[str, Any],
    score: str,
    names: list[str],
    per_query: bool,
    trec: bool,
    options: dict[str, Any],
) -> str:
    """What ``eval --format trec`` prints: ``run(slices)`` (the requested metrics, per topic
    and over all topics) and the counts of :func:`counts`, in :func:`format_trec`'s layout.
    """
    group = columns["group"]
    per_topic = run([group])
    overall = run(None)
    tallies = counts(table, qrels, con, columns, score, options)
    if qrels is not None:  # as trec_eval: only judged topics are evaluated
        per_topic = per_topic[per_topic[group].astype(str).isin(tallies.index)]
    runid = run_id(table) if trec else None
    return format_trec(per_topic, overall, group, tallies, names, per_query, runid, options)


def counts(
    table: Any,
    qrels: Any,
    con: Any,
    columns: dict[str, Any],
    score: str,
    options: dict[str, Any],
) -> pd.DataFrame:
    """trec_eval's counts per topic (the index, as text): ``num_ret`` (retrieved items),
    ``num_rel`` (items with label >= relevance_level, in qrels if given, else in the run),
    ``num_rel_ret`` (both), computed by the count metrics' templates.

    Every topic is counted, whatever the requested metrics' ``empty=`` and ``missing=``: a
    topic with no relevant item (``empty="zero"``) and, with qrels, a judged topic the run
    lacks (``missing="zero"``). Of the call's options only ``relevance_level`` and
    ``duplicates`` change a count. A run topic without judgments leaves the counts undefined
    (no group of it is evaluated, as in trec_eval): it is no topic here, and not warned about
    (the requested metrics warn of it).
    """
    import warnings

    from .._evaluate._api_evaluate import evaluate
    from .._metrics.ranking_trec import TREC_COUNT_LINES
    from ..errors import UndefinedMetricWarning

    group = columns["group"]
    given = {o: v for o, v in options.items() if o in ("relevance_level", "duplicates")}
    rules: dict[str, Any] = {"empty": "zero"}
    if qrels is not None:
        rules["missing"] = "zero"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        frame = evaluate(
            table,
            list(TREC_COUNT_LINES),
            label=columns["label"],
            score=score,
            group=group,
            item=columns["item"],
            qrels=qrels,
            by=[group],
            con=con,
            **given,
            **rules,
        )
    frame = frame.dropna(subset=list(TREC_COUNT_LINES))
    return frame.assign(topic=frame[group].astype(str)).set_index("topic")[list(TREC_COUNT_LINES)]


def run_id(table: Any) -> str | None:
    """The run name of a TREC run (its ``run`` column's first value), trec_eval's runid."""
    import pandas as pd

    if isinstance(table, pd.DataFrame) and "run" in table.columns and len(table):
        return str(table["run"].iloc[0])
    return None


def trec_measure(text: str, options: dict[str, Any] | None = None) -> str:
    """The name ``--format trec`` prints a requested metric under, computed with the call's
    ``options``: trec_eval's (``P_10``, ``ndcg_cut_10``, ``recip_rank``) where it is trec_eval's
    measure, else ir_measures' (``P(rel=2)@3``), else as written (``ir_names.shown_name``).
    """
    from .._core.conventions import cutoff_options, resolve
    from .._core.ir_names import shown_name
    from .._core.names import parse_metric
    from .._core.registry import default_of

    options = options or {}
    request = parse_metric(text)
    spec = request.spec
    given = {o: v for o, v in options.items() if o in spec.params or o == "convention"}
    given.update(cutoff_options(options.get("convention"), spec, request.k, given))
    given.update(request.params)
    if request.k is not None:
        given["k"] = request.k
    out = resolve(spec, given)
    effective = {
        p: out[p] if out.get(p) is not None else default_of(spec, p)
        for p in spec.params
        if p != "k"
    }
    level = float(options.get("relevance_level", 1))
    return shown_name(spec, request.k, effective, text, level)


def format_trec(
    per_topic: pd.DataFrame,
    overall: pd.DataFrame,
    group: str,
    tallies: pd.DataFrame,
    names: list[str] | None = None,
    per_query: bool = True,
    runid: str | None = None,
    options: dict[str, Any] | None = None,
) -> str:
    """trec_eval's layout: ``measure`` padded to 22, tab, topic, tab, value (4 decimals;
    counts as integers); with ``per_query`` (``-q``) per topic in topic order first, then
    ``all``; ``names``: the requested metrics, printed under trec_eval's names where they
    are its measures with the call's ``options`` (:func:`trec_measure`; one name, one
    definition: two requests of one definition print once). A mean over topics that is not
    one per topic (gm_map, a geometric mean) has ``all`` only.
    """
    from .._core.names import parse_metric

    # the counts are no measures: n_rows, n_groups or, with GAUC and ranking metrics in one
    # call, n_groups_<metric> each (num_q: the ranking metrics' count)
    counts = [
        c for c in overall.columns if c in ("n_rows", "n_groups") or c.startswith("n_groups_")
    ]
    measures = [c for c in overall.columns if c not in counts]
    shown_as = {
        m: trec_measure(m, options) if names is not None and m in names else m for m in measures
    }
    measures = [
        m for i, m in enumerate(measures) if shown_as[m] not in map(shown_as.get, measures[:i])
    ]
    from .._metrics.ranking_trec import TREC_COUNT_LINES, TREC_TOPICS_LINE

    tally = (TREC_TOPICS_LINE, *TREC_COUNT_LINES)  # printed from the counts already
    measures = [m for m in measures if shown_as[m] not in tally]
    per_topic_measures = [
        m
        for m in measures
        if names is None
        or m not in names
        or parse_metric(m).spec.inference.group_mean != "geometric"
    ]
    ranked = [c for c in counts if c.startswith("n_groups_") and c != "n_groups_gauc"]
    num_q = "n_groups" if "n_groups" in counts else (ranked[0] if ranked else None)
    lines: list[str] = []

    def emit(measure: str, topic: str, value: Any) -> None:
        shown = str(int(value)) if measure.startswith("num_") else f"{float(value):.4f}"
        lines.append(f"{measure:<22}\t{topic}\t{shown}")

    topics = sorted(str(t) for t in per_topic[group])
    by_topic = per_topic.assign(**{group: per_topic[group].astype(str)}).set_index(group)
    for topic in topics if per_query else ():
        for count in TREC_COUNT_LINES:
            emit(count, topic, tallies[count].get(topic, 0))
        for measure in per_topic_measures:
            emit(shown_as[measure], topic, by_topic.loc[topic, measure])
    shown = tallies.loc[[t for t in topics if t in tallies.index]]
    if runid is not None:
        lines.append(f"{'runid':<22}\tall\t{runid}")
    emit(TREC_TOPICS_LINE, "all", overall[num_q].iloc[0] if num_q else len(topics))
    for count in TREC_COUNT_LINES:
        emit(count, "all", shown[count].sum())
    for measure in measures:
        emit(shown_as[measure], "all", overall[measure].iloc[0])
    return "\n".join(lines) + "\n"
