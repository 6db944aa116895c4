"""Read TREC run and qrels files into DataFrames every ranking metric accepts.

A run line is ``qid Q0 docno rank score run_name`` and a qrels line ``qid iteration docno
relevance``, whitespace separated (trec_eval ignores anything after the sixth field of a run
line; so do we). Ids stay text, so ties between equal scores are broken as trec_eval does:
by docno descending, compared as strings. The columns are named after the metrics' defaults
(``group``, ``item``, ``score``, ``label``), so ``sqlmetrics.ndcg(run, qrels=qrels,
gain="linear")`` needs no column arguments.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._core.names import parse_metric
from ..errors import DataSourceError, InvalidDataError, InvalidParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_trec_qrels", "read_trec_run"]

#: trec_eval's conventions (without ``-c``) as options: a judged topic with no relevant
#: document counts 0, a judged topic absent from the run is left out, ndcg's gain is the
#: relevance level itself. ``-c`` is ``missing="zero"``.
TREC_EVAL_OPTIONS: dict[str, Any] = {"empty": "zero", "missing": "skip", "gain": "linear"}

#: trec_eval's count lines: per topic (in its order of output), and the number of topics
#: (on the ``all`` line only); the registry's count metrics carry the same trec_eval names
TREC_COUNT_LINES = ("num_ret", "num_rel", "num_rel_ret")
TREC_TOPICS_LINE = "num_q"


#: trec_eval's standard measures (``trec_eval`` without ``-m``) after its count lines, in its
#: order; the eleven recall levels by ir_measures' names (``IPrec@0.2`` prints as
#: ``iprec_at_recall_0.20``), at the default recall_rounding='trec_eval_10' (lround(p * R)), the
#: rule of the trec_eval whose suite is vendored (trec_eval 9: recall_rounding='trec_eval_9')
TREC_STANDARD = (
    "map",
    "gm_map",
    "r_precision",
    "bpref",
    "mrr",
    *(f"IPrec@{level / 10:.1f}" for level in range(11)),
    *(f"precision@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
)


def trec_eval_options(metrics: Iterable[str]) -> dict[str, Any]:
    """The options of :data:`TREC_EVAL_OPTIONS` that at least one of ``metrics`` accepts.

    ``sqlmetrics eval --trec`` starts from these (``--option`` still wins), so its numbers
    are trec_eval's by default.

    >>> trec_eval_options(["map"])
    {'empty': 'zero', 'missing': 'skip'}
    >>> trec_eval_options(["ndcg@10", "auc"])
    {'empty': 'zero', 'missing': 'skip', 'gain': 'linear'}
    >>> trec_eval_options(["nDCG(dcg='exp-log2')@10"])
    {'empty': 'zero', 'missing': 'skip'}
    """
    requests = [parse_metric(text) for text in metrics]
    accepted = {p for request in requests for p in request.spec.params}
    # an option a metric's name fixes otherwise (nDCG(dcg='exp-log2')@10: gain) is left to
    # the names: the name is the definition asked for
    fixed = {
        p
        for request in requests
        for p, v in request.params.items()
        if TREC_EVAL_OPTIONS.get(p, v) != v
    }
    return {
        name: value
        for name, value in TREC_EVAL_OPTIONS.items()
        if name in accepted and name not in fixed
    }


def _lines(function: str, path: str | os.PathLike[str]) -> list[tuple[int, list[str]]]:
    if not os.path.isfile(path):
        raise DataSourceError(f"{function}: {os.fspath(path)!r} is not an existing file")
    rows = []
    with open(path, "rb") as handle:
        for n, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidDataError(
                    f"{function}: line {n} of {os.fspath(path)!r} is not UTF-8 text (byte "
                    f"{raw[exc.start]:#04x} at column {exc.start + 1}); convert the file, "
                    f"e.g. iconv -f latin1 -t utf-8"
                ) from None
            if line.strip():
                rows.append((n, line.split()))
    return rows


def _number(
    function: str, path: str | os.PathLike[str], n: int, what: str, text: str, kind: type
) -> float | int:
    try:
        return kind(text)  # type: ignore[no-any-return]
    except ValueError:
        raise InvalidDataError(
            f"{function}: line {n} of {os.fspath(path)!r}: {what} {text!r} is not "
            f"{'an integer' if kind is int else 'a number'}"
        ) from None


def read_trec_run(path: str | os.PathLike[str]) -> pd.DataFrame:
    r"""Read a TREC run file (``qid Q0 docno rank score run_name``).

    Parameters
    ----------
    path : str or path
        The run file: one retrieved document per line, six whitespace-separated fields;
        fields after the sixth are ignored (as trec_eval does).

    Returns
    -------
    pandas.DataFrame
        Columns ``group`` (qid, text), ``item`` (docno, text), ``rank`` (int; ignored by the
        metrics, which rank by score as trec_eval does), ``score`` (float) and ``run`` (text),
        one row per line, in file order.

    Raises
    ------
    DataSourceError
        ``path`` is not an existing file.
    InvalidDataError
        A line has fewer than six fields, a rank or score that is not a number, or is not
        UTF-8 text (the message gives the line number).

    See Also
    --------
    read_trec_qrels : the judgments.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import sqlmetrics
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run").write_text("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.0 bm25\n")
    >>> _ = (folder / "qrels").write_text("q1 0 d2 1\nq1 0 d3 0\n")
    >>> run = sqlmetrics.read_trec_run(folder / "run")
    >>> list(run.columns)
    ['group', 'item', 'rank', 'score', 'run']
    >>> qrels = sqlmetrics.read_trec_qrels(folder / "qrels")
    >>> sqlmetrics.mrr(run, qrels=qrels)
    0.5
    """
    import pandas as pd

    function = "read_trec_run"
    records = []
    for n, fields in _lines(function, path):
        if len(fields) < 6:
            raise InvalidDataError(
                f"{function}: line {n} of {os.fspath(path)!r} has {len(fields)} fields; a run "
                f"line is 'qid Q0 docno rank score run_name'"
            )
        qid, _, docno, rank, score, run = fields[:6]
        records.append(
            (
                qid,
                docno,
                _number(function, path, n, "rank", rank, int),
                _number(function, path, n, "score", score, float),
                run,
            )
        )
    return pd.DataFrame(records, columns=["group", "item", "rank", "score", "run"]).astype(
        {"group": "string", "item": "string", "rank": "int64", "score": "float64", "run": "string"}
    )


def read_trec_qrels(path: str | os.PathLike[str], *, negative: str = "zero") -> pd.DataFrame:
    r"""Read a TREC qrels file (``qid iteration docno relevance``).

    Parameters
    ----------
    path : str or path
        The judgments: one judged document per line, four whitespace-separated fields.
    negative : {"zero", "keep"}, default "zero"
        Negative relevance values (trec_eval reads them as "in the pool but not judged"; for
        every measure sqlmetrics computes they count exactly like 0, not relevant, gain 0):
        ``"zero"`` sets them to 0 so the metrics accept the frame; ``"keep"`` keeps them
        (the metrics then reject them as negative labels).

    Returns
    -------
    pandas.DataFrame
        Columns ``group`` (qid, text), ``iteration`` (text), ``item`` (docno, text) and
        ``label`` (int), one row per line, in file order.

    Raises
    ------
    DataSourceError
        ``path`` is not an existing file.
    InvalidDataError
        A line does not have four fields, a relevance that is not an integer, or is not
        UTF-8 text (the message gives the line number).
    InvalidParameterError
        ``negative`` is not "zero" or "keep".

    See Also
    --------
    read_trec_run : the run to evaluate.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import sqlmetrics
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("301 0 FT1 2\n301 0 FT2 -1\n")
    >>> sqlmetrics.read_trec_qrels(path)["label"].tolist()
    [2, 0]
    """
    import pandas as pd

    function = "read_trec_qrels"
    if negative not in ("zero", "keep"):
        raise InvalidParameterError(
            f"{function}: negative= must be 'zero' or 'keep'; got {negative!r}"
        )
    records = []
    for n, fields in _lines(function, path):
        if len(fields) != 4:
            raise InvalidDataError(
                f"{function}: line {n} of {os.fspath(path)!r} has {len(fields)} fields; a "
                f"qrels line is 'qid iteration docno relevance'"
            )
        qid, iteration, docno, rel = fields
        label = int(_number(function, path, n, "relevance", rel, int))
        if negative == "zero":
            label = max(label, 0)
        records.append((qid, iteration, docno, label))
    return pd.DataFrame(records, columns=["group", "iteration", "item", "label"]).astype(
        {"group": "string", "iteration": "string", "item": "string", "label": "int64"}
    )
