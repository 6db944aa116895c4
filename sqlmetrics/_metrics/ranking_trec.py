r"""Read TREC run and qrels files into DataFrames every ranking metric accepts.

A run line is ``qid Q0 docno rank score run_name`` and a qrels line ``qid iteration docno
relevance``, separated by C's whitespace as trec_eval splits them (space, \t, \v, \f, \r;
Unicode's other blanks are characters of a field), lines ending in \n or \r\n (a carriage
return inside a line, CR-only line ends, is an error), a UTF-8 byte order mark ignored
(trec_eval ignores anything after the sixth field of a run line; so do we). Integers are
ASCII digits with an optional sign within 64 bits, scores ASCII numbers. The file is split
in columns (Arrow), a chunk of lines at a time: about 4 times the file's size in memory.
Ids stay text, so ties between equal scores are broken as trec_eval does: by docno
descending, compared as strings. The columns are named after the metrics' defaults
(``group``, ``item``, ``score``, ``label``), so ``sqlmetrics.ndcg(run, qrels=qrels,
gain="linear")`` needs no column arguments.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
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


#: what trec_eval splits a line's fields on: C's isspace in the "C" locale (space, \t, \n,
#: \v, \f, \r), not Unicode's blanks (NBSP, U+2028 and \x1c-\x1f stay inside a field)
C_BLANKS = " \t\n\v\f\r"
_SPLIT = r"[ \t\n\x0B\f\r]+"
#: a UTF-8 byte order mark, dropped at the start of a file (an editor's mark, not a query id)
BOM = b"\xef\xbb\xbf"
#: an integer field (rank, relevance): ASCII digits with an optional sign, as C's atol reads
#: them; Python's int() also takes '3_0' and other scripts' digits, trec_eval does not
_INTEGER = r"^[+-]?[0-9]+$"
#: a byte -> itself, but C's blanks other than \n (\t, \v, \f, \r) -> a space
_BLANKS_AS_SPACE = bytes(32 if b in b"\t\v\f\r" else b for b in range(256))


def _where(path: str | os.PathLike[str], n: Any) -> str:
    return f"line {int(n)} of {os.fspath(path)!r}"


def _first(mask: Any) -> int | None:
    """The index of the first true value of a boolean Arrow array, or None."""
    import pyarrow.compute as pc

    found = pc.index(mask, True).as_py()
    return None if found is None or found < 0 else int(found)


#: the bytes of a TREC file split at once (then the next lines): bounds the memory the split
#: takes beyond the file and its columns
CHUNK_BYTES = 1 << 24


def _read(function: str, path: str | os.PathLike[str]) -> tuple[bytearray, int, int]:
    r"""The file's bytes with C's blanks other than \n as spaces, and the span of its text
    (after a UTF-8 byte order mark; without a final \n): checked to be UTF-8 without a
    carriage return inside a line.
    """
    if not os.path.isfile(path):
        raise DataSourceError(f"{function}: {os.fspath(path)!r} is not an existing file")
    data = bytearray(os.path.getsize(path))  # one buffer, filled and edited in place
    with open(path, "rb") as handle:
        del data[handle.readinto(data) :]
    start = len(BOM) if data.startswith(BOM) else 0
    end = max(len(data) - 1 if data.endswith(b"\n") else len(data), start)
    if not data.isascii():  # UTF-8 checked by Arrow, without a copy
        import numpy as np
        import pyarrow as pa

        offsets = pa.py_buffer(np.array([0, end - start], dtype=np.int64))
        text = pa.py_buffer(data).slice(start, end - start)
        try:
            pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, text]).validate(full=True)
        except pa.ArrowInvalid:
            _not_utf8(function, path, bytes(data[start:end]))
    lone_cr = re.search(rb"\r+[^\r\n]", data) if b"\r" in data else None
    if lone_cr is not None:
        line = data.count(b"\n", start, lone_cr.start()) + 1
        raise InvalidDataError(
            f"{function}: {_where(path, line)} has a carriage return (\\r) inside it: a file "
            f"with CR-only line ends (classic Mac OS) reads as one line in trec_eval; end its "
            f"lines with \\n, e.g. tr '\\r' '\\n'"
        )
    # C's blanks other than \n as spaces: bytes below 0x80 never occur inside a UTF-8
    # sequence, so every other character (NBSP, U+2028, \x1c-\x1f) stays in its field
    return data.translate(_BLANKS_AS_SPACE), start, end


def _chunks(
    function: str, path: str | os.PathLike[str], width: int, kind: str
) -> Iterator[tuple[Any, list[Any]]]:
    """The non-blank lines of a TREC file, split on C's whitespace, in columns (Arrow), a
    chunk of lines at a time: their line numbers and their first ``width`` fields. ``kind``
    "run" takes lines of at least ``width`` fields, "qrels" exactly ``width``; any other line
    is an error naming it.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    data, start, end = _read(function, path)
    buffer = pa.py_buffer(data)
    first_line = 1
    while start < end or first_line == 1:
        stop = data.find(b"\n", min(start + CHUNK_BYTES, end), end)
        stop = end if stop < 0 else stop
        offsets = pa.py_buffer(np.array([0, stop - start], dtype=np.int64))
        text = buffer.slice(start, stop - start)
        whole = pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, text])  # no copy
        lines = pc.split_pattern(whole, b"\n").flatten()
        tokens = pc.split_pattern(lines, b" ")
        flat = tokens.flatten()
        filled = pc.greater(pc.binary_length(flat), 0)
        if pc.all(filled).as_py() is not False:  # one blank between fields, no blank line
            count = pc.list_value_length(tokens).to_numpy()
        else:
            parent = pc.list_parent_indices(tokens).filter(filled)
            flat = flat.filter(filled)
            count = np.bincount(parent.to_numpy(), minlength=len(lines))
        numbers = np.flatnonzero(count) + first_line  # the non-blank lines
        first_line += len(lines)
        count = count[count > 0]
        wrong = count < width if kind == "run" else count != width
        if wrong.any():
            bad = int(np.argmax(wrong))
            layout = (
                "a run line is 'qid Q0 docno rank score run_name'"
                if kind == "run"
                else "a qrels line is 'qid iteration docno relevance'"
            )
            raise InvalidDataError(
                f"{function}: {_where(path, numbers[bad])} has {count[bad]} fields; {layout}"
            )
        starts = np.cumsum(count) - count
        # UTF-8 checked: the fields as text
        yield numbers, [flat.take(starts + i).cast(pa.large_string()) for i in range(width)]
        start = stop + 1


def _not_utf8(function: str, path: str | os.PathLike[str], data: bytes) -> None:
    """Raise the error naming the first line of ``data`` that is not UTF-8 text."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        begin = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        raise InvalidDataError(
            f"{function}: {_where(path, line)} is not UTF-8 text (byte {data[exc.start]:#04x} "
            f"at column {exc.start - begin + 1}); convert the file, e.g. iconv -f latin1 -t "
            f"utf-8"
        ) from None


def _integers(
    function: str, path: str | os.PathLike[str], numbers: Any, what: str, text: Any
) -> Any:
    """An Arrow column of integer fields as int64, or an error naming the line and value: not
    ASCII digits with an optional sign, or beyond a 64-bit integer.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    bad = _first(pc.invert(pc.match_substring_regex(text, _INTEGER)))
    if bad is not None:
        raise InvalidDataError(
            f"{function}: {_where(path, numbers[bad])}: {what} "
            f"{text[bad].as_py()!r} is not an integer"
        )
    unsigned = pc.replace_substring_regex(text, r"^\+", "")
    try:
        return unsigned.cast(pa.int64())
    except pa.ArrowInvalid:
        for i, value in enumerate(unsigned.to_pylist()):
            if not -(2**63) <= int(value) < 2**63:
                raise InvalidDataError(
                    f"{function}: {_where(path, numbers[i])}: {what} "
                    f"{text[i].as_py()!r} is out of range; write an integer between "
                    f"-9223372036854775808 and 9223372036854775807 (a 64-bit integer)"
                ) from None
        raise


def _scores(function: str, path: str | os.PathLike[str], numbers: Any, text: Any) -> Any:
    """An Arrow column of score fields as float64, or an error naming the line and value
    (ASCII only: Python's float() also takes '3_0' and other scripts' digits).
    """
    import pyarrow as pa

    try:
        return text.cast(pa.float64())
    except pa.ArrowInvalid:
        values = []
        for i, value in enumerate(text.to_pylist()):
            try:
                if not value.isascii() or "_" in value:
                    raise ValueError(value)
                values.append(float(value))
            except ValueError:
                raise InvalidDataError(
                    f"{function}: {_where(path, numbers[i])}: score {value!r} is not a number"
                ) from None
        return pa.array(values, pa.float64())


def _frame(columns: dict[str, list[Any]], types: dict[str, str]) -> pd.DataFrame:
    """A DataFrame of chunked Arrow columns with the readers' dtypes (text as "string")."""
    import pandas as pd
    import pyarrow as pa

    table = pa.table({name: pa.chunked_array(chunks) for name, chunks in columns.items()})
    columns.clear()
    frame = table.to_pandas(types_mapper=pd.ArrowDtype).astype(types)
    del table
    pa.default_memory_pool().release_unused()  # the split file's memory back to the system
    return frame


def read_trec_run(path: str | os.PathLike[str]) -> pd.DataFrame:
    r"""Read a TREC run file (``qid Q0 docno rank score run_name``).

    Parameters
    ----------
    path : str or path
        The run file: one retrieved document per line, six fields separated by C's
        whitespace (space, \t, \v, \f, \r, as trec_eval); fields after the sixth are
        ignored (as trec_eval does); a UTF-8 byte order mark is ignored.

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
        A line has fewer than six fields, a rank that is not ASCII digits with an optional
        sign or beyond 64 bits, a score that is not an ASCII number, a carriage return
        inside it (CR-only line ends), or is not UTF-8 text (the message gives the line
        number).

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
    function = "read_trec_run"
    columns: dict[str, list[Any]] = {c: [] for c in ("group", "item", "rank", "score", "run")}
    for numbers, (qid, _, docno, rank, score, run) in _chunks(function, path, 6, "run"):
        columns["group"].append(qid)
        columns["item"].append(docno)
        columns["rank"].append(_integers(function, path, numbers, "rank", rank))
        columns["score"].append(_scores(function, path, numbers, score))
        columns["run"].append(run)
    return _frame(
        columns,
        {"group": "string", "item": "string", "rank": "int64", "score": "float64", "run": "string"},
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
        A line does not have four fields, a relevance that is not an integer (ASCII digits
        with an optional sign, within 64 bits), a carriage return inside it, or is not UTF-8
        text (the message gives the line number).
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
    import pyarrow.compute as pc

    function = "read_trec_qrels"
    if negative not in ("zero", "keep"):
        raise InvalidParameterError(
            f"{function}: negative= must be 'zero' or 'keep'; got {negative!r}"
        )
    columns: dict[str, list[Any]] = {c: [] for c in ("group", "iteration", "item", "label")}
    for numbers, (qid, iteration, docno, rel) in _chunks(function, path, 4, "qrels"):
        label = _integers(function, path, numbers, "relevance", rel)
        columns["group"].append(qid)
        columns["iteration"].append(iteration)
        columns["item"].append(docno)
        columns["label"].append(pc.max_element_wise(label, 0) if negative == "zero" else label)
    return _frame(
        columns,
        {"group": "string", "iteration": "string", "item": "string", "label": "int64"},
    )
