"""read_trec_run / read_trec_qrels read a file as trec_eval does (issue 39 items 8 and 12).

Fields are split on C's whitespace only (space, \\t, \\n, \\v, \\f, \\r); a UTF-8 byte order mark
is not part of the first query id; a carriage return inside a line (CR-only line ends) is
refused; an integer is ASCII digits with an optional sign and fits 64 bits; a score is ASCII.
The columnar reader gives the line-by-line reader's frame and errors (a reference below, on
files where the two rules agree), across its chunks of lines.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import sqlmetrics
from sqlmetrics._metrics import ranking_trec

TREC = Path(__file__).resolve().parent / "data" / "trec_eval"
BOM = "\ufeff"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


# ----------------------------------------------------------------------------- item 8
def test_a_byte_order_mark_is_not_part_of_the_first_query_id(tmp_path: Path) -> None:
    """Issue 39: with the mark kept, query 301's first line was query '\\ufeff301' and the
    mean AP 0.75 instead of trec_eval's 0.54 here."""
    run_text = (TREC / "results.test").read_text()
    qrels_text = (TREC / "qrels.test").read_text()
    plain = sqlmetrics.mean_average_precision(
        sqlmetrics.read_trec_run(TREC / "results.test"),
        qrels=sqlmetrics.read_trec_qrels(TREC / "qrels.test"),
        empty="zero",
    )
    run = sqlmetrics.read_trec_run(write(tmp_path, "run", BOM + run_text))
    qrels = sqlmetrics.read_trec_qrels(write(tmp_path, "qrels", BOM + qrels_text))
    assert run["group"].iloc[0] == "301" and qrels["group"].iloc[0] == "301"
    # a mark in one file only (an editor's save) is where it changed the value
    plain_run = sqlmetrics.read_trec_run(TREC / "results.test")
    plain_qrels = sqlmetrics.read_trec_qrels(TREC / "qrels.test")
    for r, q in ((run, plain_qrels), (plain_run, qrels), (run, qrels)):
        assert sqlmetrics.mean_average_precision(r, qrels=q, empty="zero") == plain
    small = sqlmetrics.read_trec_run(write(tmp_path, "small", BOM + "q1 Q0 d1 1 2.0 r\n"))
    assert small["group"].tolist() == ["q1"]


@pytest.mark.parametrize("blank", ["\u00a0", "\u2028", "\x1c", "\x1d", "\x1e", "\x1f", "\x85"])
def test_unicode_blanks_stay_inside_a_field(tmp_path: Path, blank: str) -> None:
    """trec_eval splits on C's isspace: NBSP, U+2028, \\x1c-\\x1f and NEL are characters of
    the id (Python's str.split() split them, shifting every later field)."""
    run = sqlmetrics.read_trec_run(
        write(tmp_path, "run", f"q{blank}1 Q0 d{blank}1 1 2.5 r{blank}x\n")
    )
    assert run.iloc[0].tolist() == [f"q{blank}1", f"d{blank}1", 1, 2.5, f"r{blank}x"]
    qrels = sqlmetrics.read_trec_qrels(write(tmp_path, "qrels", f"q{blank}1 0 d{blank}1 2\n"))
    assert qrels.iloc[0].tolist() == [f"q{blank}1", "0", f"d{blank}1", 2]


def test_c_whitespace_splits_fields(tmp_path: Path) -> None:
    run = sqlmetrics.read_trec_run(
        write(tmp_path, "run", " q1\tQ0\x0bd1\x0c 1  2.5\tr extra\r\n\n\t\r\nq1 Q0 d2 2 1 r")
    )
    assert run.to_dict("list") == {
        "group": ["q1", "q1"],
        "item": ["d1", "d2"],
        "rank": [1, 2],
        "score": [2.5, 1.0],
        "run": ["r", "r"],
    }


@pytest.mark.parametrize(
    "text", ["q1 Q0 d1 1 2.0 r\rq1 Q0 d2 2 1.0 r\r", "q1 Q0 d1 1 2.0 r\nq1 Q0 d2\r2 1.0 r\n"]
)
def test_a_carriage_return_inside_a_line_is_refused(tmp_path: Path, text: str) -> None:
    """CR-only line ends read as one line (trec_eval too): refused, naming the line."""
    path = write(tmp_path, "run", text)
    line = 1 if text.endswith("\r") else 2
    with pytest.raises(sqlmetrics.InvalidDataError) as caught:
        sqlmetrics.read_trec_run(path)
    assert str(caught.value) == (
        f"read_trec_run: line {line} of {str(path)!r} has a carriage return (\\r) inside it: "
        f"a file with CR-only line ends (classic Mac OS) reads as one line in trec_eval; end "
        f"its lines with \\n, e.g. tr '\\r' '\\n'"
    )
    crlf = write(tmp_path, "crlf", "q1 Q0 d1 1 2.0 r\r\nq1 Q0 d2 2 1.0 r\r\r\n")
    assert sqlmetrics.read_trec_run(crlf)["run"].tolist() == ["r", "r"]


@pytest.mark.parametrize(
    ("reader", "line", "message"),
    [
        ("run", "q1 Q0 d1 3_0 2.0 r", "rank '3_0' is not an integer"),
        ("run", "q1 Q0 d1 \u0663 2.0 r", "rank '\u0663' is not an integer"),
        ("run", "q1 Q0 d1 \uff13 2.0 r", "rank '\uff13' is not an integer"),
        ("run", "q1 Q0 d1 1 1_5 r", "score '1_5' is not a number"),
        ("run", "q1 Q0 d1 1 \u0661.\u0665 r", "score '\u0661.\u0665' is not a number"),
        ("qrels", "q1 0 d1 \u0661", "relevance '\u0661' is not an integer"),
        ("qrels", "q1 0 d1 1_0", "relevance '1_0' is not an integer"),
        ("qrels", "q1 0 d1 2.0", "relevance '2.0' is not an integer"),
    ],
)
def test_only_ascii_digits_are_numbers(
    tmp_path: Path, reader: str, line: str, message: str
) -> None:
    path = write(
        tmp_path, reader, f"{'q1 Q0 d0 1 3.0 r' if reader == 'run' else 'q1 0 d0 1'}\n{line}\n"
    )
    read = sqlmetrics.read_trec_run if reader == "run" else sqlmetrics.read_trec_qrels
    with pytest.raises(sqlmetrics.InvalidDataError) as caught:
        read(path)
    assert str(caught.value) == f"read_trec_{reader}: line 2 of {str(path)!r}: {message}"


def test_signed_integers_and_c_numbers_are_read(tmp_path: Path) -> None:
    run = sqlmetrics.read_trec_run(
        write(tmp_path, "run", "q Q0 a +3 +1.5e2 r\nq Q0 b -2 .5 r\nq Q0 c 007 -inf r\n")
    )
    assert run["rank"].tolist() == [3, -2, 7]
    assert run["score"].tolist() == [150.0, 0.5, float("-inf")]


@pytest.mark.parametrize("rank", ["99999999999999999999", "-9223372036854775809"])
def test_a_rank_beyond_64_bits_is_named(tmp_path: Path, rank: str) -> None:
    """A 20-digit rank was a raw OverflowError."""
    path = write(tmp_path, "run", f"q1 Q0 d1 1 2.0 r\nq1 Q0 d2 {rank} 1.0 r\n")
    with pytest.raises(sqlmetrics.InvalidDataError) as caught:
        sqlmetrics.read_trec_run(path)
    assert str(caught.value) == (
        f"read_trec_run: line 2 of {str(path)!r}: rank {rank!r} is out of range; write an "
        f"integer between -9223372036854775808 and 9223372036854775807 (a 64-bit integer)"
    )
    edge = write(
        tmp_path, "edge", "q Q0 a 9223372036854775807 1 r\nq Q0 b -9223372036854775808 0 r\n"
    )
    assert sqlmetrics.read_trec_run(edge)["rank"].tolist() == [2**63 - 1, -(2**63)]


# ----------------------------------------------------------------------------- item 12
def reference(path: Path, kind: str) -> pd.DataFrame:
    """The line-by-line reader (one Python string per field), with trec_eval's blanks."""
    records: list[tuple[Any, ...]] = []
    for n, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
        fields = re.split(r"[ \t\n\v\f\r]+", raw.decode("utf-8").strip(" \t\n\v\f\r"))
        if fields == [""]:
            continue
        if kind == "run":
            assert len(fields) >= 6, n
            qid, _, docno, rank, score, run = fields[:6]
            records.append((qid, docno, int(rank), float(score), run))
        else:
            assert len(fields) == 4, n
            qid, iteration, docno, rel = fields
            records.append((qid, iteration, docno, max(int(rel), 0)))
    if kind == "run":
        types = {"group": "string", "item": "string", "rank": "int64"}
        columns = ["group", "item", "rank", "score", "run"]
        return pd.DataFrame(records, columns=columns).astype(
            {**types, "score": "float64", "run": "string"}
        )
    columns = ["group", "iteration", "item", "label"]
    return pd.DataFrame(records, columns=columns).astype(
        {"group": "string", "iteration": "string", "item": "string", "label": "int64"}
    )


def messy(seed: int, kind: str, lines: int) -> str:
    """A file with every spacing trec_eval reads: runs of blanks, tabs, \\v, \\f, CRLF, blank
    lines, trailing fields, leading blanks, non-ASCII ids, no final newline."""
    rng = random.Random(seed)
    blanks = [" ", "  ", "\t", " \t ", "\x0b", "\x0c"]
    out = []
    for _ in range(lines):
        q = f"q{rng.randrange(9)}\u00e9" if rng.random() < 0.2 else str(rng.randrange(300, 310))
        if kind == "run":
            fields = [q, "Q0", f"d{rng.randrange(10**6)}", str(rng.randrange(-5, 1000)),
                      repr(rng.uniform(-50, 50)), "run\u4e00"]  # fmt: skip
            fields += ["junk"] * rng.randrange(3)
        else:
            fields = [q, "0", f"d{rng.randrange(10**6)}", str(rng.randrange(-2, 5))]
        line = rng.choice(blanks).join(fields)
        out.append(rng.choice(["", " ", "\t"]) + line + rng.choice(["", " ", "\r"]))
        if rng.random() < 0.05:
            out.append(rng.choice(["", "   ", "\t\r"]))
    return "\n".join(out) + rng.choice(["", "\n", "\r\n"])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("chunk", [64, 1 << 24])
def test_the_columnar_reader_gives_the_line_readers_frame(
    tmp_path: Path, seed: int, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39 item 12: the same frame (values and dtypes) as one Python string per field,
    in one chunk and in chunks of 64 bytes (a line number carried across chunks)."""
    monkeypatch.setattr(ranking_trec, "CHUNK_BYTES", chunk)
    for kind, read in (("run", sqlmetrics.read_trec_run), ("qrels", sqlmetrics.read_trec_qrels)):
        path = write(tmp_path, kind, messy(seed, kind, 300))
        pd.testing.assert_frame_equal(read(path), reference(path, kind))
    empty = write(tmp_path, "empty", "")
    pd.testing.assert_frame_equal(sqlmetrics.read_trec_run(empty), reference(empty, "run"))
    blank = write(tmp_path, "blank", "\n \n\t\n")
    pd.testing.assert_frame_equal(sqlmetrics.read_trec_qrels(blank), reference(blank, "qrels"))


@pytest.mark.parametrize("chunk", [16, 1 << 24])
def test_errors_name_the_line_across_chunks(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranking_trec, "CHUNK_BYTES", chunk)
    good = "q1 Q0 d1 1 2.0 r\n\n" * 20
    cases = {
        good + "q1 Q0 d1 1 2.0\n": "line 41 of {} has 5 fields; a run line is 'qid Q0 docno "
        "rank score run_name'",
        good + "q1 Q0 d1 x 2.0 r\n": "line 41 of {}: rank 'x' is not an integer",
        good + "q1 Q0 d1 1 high r\n": "line 41 of {}: score 'high' is not a number",
    }
    for text, message in cases.items():
        path = write(tmp_path, "run", text)
        with pytest.raises(sqlmetrics.InvalidDataError) as caught:
            sqlmetrics.read_trec_run(path)
        assert str(caught.value) == "read_trec_run: " + message.format(repr(str(path)))
    latin = write(tmp_path, "latin", good.encode() + b"q1 Q0 d\xe9 1 2.0 r\n")
    with pytest.raises(sqlmetrics.InvalidDataError) as caught:
        sqlmetrics.read_trec_run(latin)
    assert str(caught.value) == (
        f"read_trec_run: line 41 of {str(latin)!r} is not UTF-8 text (byte 0xe9 at column 8); "
        f"convert the file, e.g. iconv -f latin1 -t utf-8"
    )
