"""TREC qrels and run files: read them strictly, write them, turn scores into rankings.

The formats are ``trec_eval``'s (https://github.com/usnistgov/trec_eval, ``get_qrels.c``
and ``get_trec_results.c``):

* qrels: ``qid iter docno rel``, four whitespace-separated columns; ``iter`` is ignored,
  ``rel`` is an integer grade;
* run: ``qid Q0 docno rank score tag``, six columns; ``Q0`` and ``rank`` are ignored (the
  order comes from the scores, see :func:`rank_run`) and the run's tag is the last line's.

Files are read as the dataset loader reads its files (:func:`ragward.evals.jsonl.read_text`:
a ``.gz`` file through gzip, strict UTF-8, a byte-order mark skipped, CRLF or LF).
Fields are separated by ASCII whitespace, as C's ``isspace`` splits them; lines starting
with ``#`` and blank lines are skipped. Where ``trec_eval`` is lenient this reader fails
instead, with file, line and field: a run line with extra columns (``trec_eval`` ignores
them), a score that is not a decimal number (``atof`` would read ``abc`` as 0) or is NaN,
a grade that is not an integer (``atol`` would read ``1.5`` as 1). A document repeated
within a query is an error in both files, as in ``trec_eval``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragward.errors import InputError, InvalidArgument
from ragward.evals.jsonl import read_text

__all__ = [
    "GRADE_LIMIT",
    "TrecRun",
    "field_problem",
    "grade_problem",
    "qrels_text",
    "rank_run",
    "read_qrels",
    "read_run",
    "run_text",
    "write_qrels",
    "write_run",
    "write_scored_run",
]

#: The largest grade in absolute value: a 32-bit integer, as ``trec_eval`` reads grades on
#: every platform; a larger one is a typo and would overflow the sums of gains.
GRADE_LIMIT = 2**31 - 1

_QRELS_COLUMNS = ("qid", "iter", "docno", "rel")
_RUN_COLUMNS = ("qid", "Q0", "docno", "rank", "score", "tag")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_SEPARATORS = "\x1c\x1d\x1e\x1f"  # str.split splits at these; C isspace does not
_NUMBER = re.compile(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)", re.I
)


@dataclass(frozen=True)
class TrecRun:
    """A run file: per query, each document's score; and the run's tag."""

    scores: Mapping[str, Mapping[str, float]]  # query id -> document id -> score
    tag: str  # the last line's, which trec_eval reports as ``runid``


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """Judgements of a qrels file: query id -> document id -> grade."""
    qrels: dict[str, dict[str, int]] = {}
    text = _Text(path)
    for line, fields in enumerate(map(text.split, text.lines), 1):
        if len(fields) != 4 or (text.comments and fields[0].startswith("#")):
            text.skip(fields, line, _QRELS_COLUMNS)
            continue
        qid, _, doc, grade = fields
        try:
            value = _integer(grade)
        except ValueError:
            value = None
        # int() also reads "1_0" and non-ASCII digits, which the grammar refuses.
        if value is None or ((text.wide or "_" in grade) and not _INTEGER.fullmatch(grade)):
            raise InputError.at(path, line, "rel", f"not an integer {_short(grade)}")
        if abs(value) > GRADE_LIMIT:
            raise InputError.at(path, line, "rel", grade_problem(grade))
        judged = qrels.get(qid)
        if judged is None:
            judged = qrels[qid] = {}
        if doc in judged:
            first = text.first(qid, doc)
            problem = f"{doc!r} judged twice for query {qid!r} (first on line {first})"
            raise InputError.at(path, line, "docno", problem)
        judged[doc] = value
    return qrels


def read_run(path: str | Path) -> TrecRun:
    """The scores of a run file, and its tag."""
    scores: dict[str, dict[str, float]] = {}
    tag = ""
    text = _Text(path)
    comments, wide = text.comments, text.wide
    qid, retrieved = "", {}
    for line, fields in enumerate(map(text.split, text.lines), 1):
        if len(fields) != 6 or (comments and fields[0].startswith("#")):
            text.skip(fields, line, _RUN_COLUMNS)
            continue
        if fields[0] != qid:  # a run lists a query's lines together, mostly
            qid = fields[0]
            retrieved = scores.setdefault(qid, {})
        _, _, doc, _, score, tag = fields
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        # float() also reads "nan", "1_0" and non-ASCII digits, which the grammar refuses.
        if value != value or ((wide or "_" in score) and not _NUMBER.fullmatch(score)):
            raise InputError.at(path, line, "score", f"not a number {_short(score)}")
        # One lookup: setdefault hands back this very float only when doc is new.
        if retrieved.setdefault(doc, value) is not value:
            first = text.first(qid, doc)
            problem = f"{doc!r} retrieved twice for query {qid!r} (first on line {first})"
            raise InputError.at(path, line, "docno", problem)
    return TrecRun(scores, tag)


def rank_run(scores: Mapping[str, Mapping[str, float]]) -> dict[str, tuple[str, ...]]:
    """Each query's documents in ``trec_eval``'s order.

    ``trec_eval`` sorts by score, highest first, and breaks ties by document id in
    *descending* byte order (``comp_sim_docno`` in ``form_res_rels.c``: ``strcmp(p2, p1)``;
    with ``pytrec_eval``, ``b`` ranks above ``a`` and ``9`` above ``10`` at equal scores).
    Python compares ``str`` by code point, which is UTF-8 byte order.
    """
    return {qid: _ranked(docs) for qid, docs in scores.items()}


def _ranked(docs: Mapping[str, float]) -> tuple[str, ...]:
    # Ids in descending order, then a stable sort by descending score: equal scores keep
    # the descending ids (``reverse`` keeps a sort stable). Both keys are C calls.
    order = sorted(docs, reverse=True)
    order.sort(key=docs.__getitem__, reverse=True)
    return tuple(order)


def qrels_text(qrels: Mapping[str, Mapping[str, int]]) -> str:
    """Judgements as the text of a qrels file, in the mapping's order."""
    return "".join(
        f"{_id(qid)} 0 {_id(doc)} {grade}\n"
        for qid, docs in qrels.items()
        for doc, grade in docs.items()
    )


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """Write judgements as a qrels file, in the mapping's order."""
    Path(path).write_text(qrels_text(qrels), encoding="utf-8")


def run_text(rankings: Mapping[str, Sequence[str]], tag: str = "ragward") -> str:
    """Ranked lists as the text of a run whose scores (``n - rank``) keep the order under
    ``trec_eval``'s re-sorting."""
    lines: list[str] = []
    for qid, ranking in rankings.items():
        if len(set(ranking)) != len(ranking):
            raise InvalidArgument(f"ranking of query {qid!r} repeats a document")
        n = len(ranking)
        lines.extend(
            f"{_id(qid)} Q0 {_id(doc)} {rank} {n - rank} {_id(tag)}\n"
            for rank, doc in enumerate(ranking, 1)
        )
    return "".join(lines)


def write_run(
    path: str | Path, rankings: Mapping[str, Sequence[str]], tag: str = "ragward"
) -> None:
    """Write ranked lists as a run whose scores (``n - rank``) keep the order under re-sorting."""
    Path(path).write_text(run_text(rankings, tag), encoding="utf-8")


def write_scored_run(
    path: str | Path, scores: Mapping[str, Mapping[str, float]], tag: str = "ragward"
) -> None:
    """Write scores as a run, ranked as ``trec_eval`` ranks them; each score reads back exactly."""
    lines: list[str] = []
    for qid, ranking in rank_run(scores).items():
        lines.extend(
            f"{_id(qid)} Q0 {_id(doc)} {rank} {scores[qid][doc]!r} {_id(tag)}\n"
            for rank, doc in enumerate(ranking, 1)
        )
    Path(path).write_text("".join(lines), encoding="utf-8")


class _Text:
    """A TREC file's lines, and how to split one into its fields.

    Fields are split on ASCII whitespace, as C's ``isspace`` splits them. ``str.split``
    splits there too, and also at Unicode spaces and at ``\\x1c``-``\\x1f``: an ASCII text
    without those is split as text, any other as UTF-8 bytes, each field then decoded.
    """

    def __init__(self, path: str | Path) -> None:
        # One reader for every command: gzip, a byte-order mark and CRLF as the dataset loader.
        self.path = path
        text = read_text(path)
        self.wide = not text.isascii() or any(c in text for c in _SEPARATORS)
        self.comments = "#" in text
        self.lines: Sequence[str] | Sequence[bytes]
        self.split: Callable[[Any], list[str]]
        if self.wide:
            self.lines = text.encode("utf-8").split(b"\n")
            self.split = _decoded_fields
        else:
            self.lines = text.split("\n")
            self.split = str.split

    def skip(self, fields: list[str], line: int, columns: Sequence[str]) -> None:
        """Pass over a blank or ``#`` line; a line of the wrong width is an error."""
        if not fields or fields[0].startswith("#"):
            return
        problem = (
            f"expected {len(columns)} whitespace-separated columns "
            f"({' '.join(columns)}), found {len(fields)}"
        )
        raise InputError.at(self.path, line, None, problem)

    def first(self, qid: str, doc: str) -> int:
        """The line where ``doc`` first appears for ``qid`` (looked up on the error path)."""
        for line, fields in enumerate(map(self.split, self.lines), 1):
            if len(fields) > 2 and fields[0] == qid and fields[2] == doc:
                return line
        raise AssertionError(f"{doc!r} of {qid!r} is not in {self.path}")


def grade_problem(grade: str) -> str:
    """Why the integer ``grade`` (as written) cannot be a grade: it is too large."""
    return f"grade {_short(grade)} is out of range (at most {GRADE_LIMIT} in absolute value)"


def _integer(field: str) -> int:
    """``int(field)``, leading zeros dropped first: Python converts no more than 4300
    digits, and a grade that long is out of range whatever its value (ValueError)."""
    sign = field[:1] if field[:1] in ("+", "-") else ""
    digits = field[len(sign) :].lstrip("0") or "0"
    if len(digits) > len(str(GRADE_LIMIT)) and digits.isascii() and digits.isdigit():
        return GRADE_LIMIT + 1
    return int(sign + digits)


def _short(field: str) -> str:
    """A field for a message, its middle cut when long."""
    return repr(field) if len(field) <= 40 else f"{field[:30]!r}... ({len(field)} characters)"


def _decoded_fields(raw: bytes) -> list[str]:
    return [field.decode("utf-8") for field in raw.split()]


def field_problem(value: str) -> str | None:
    """Why ``value`` cannot be a field of a TREC file (None when it can): a reader splits
    on whitespace and skips lines starting with ``#``."""
    if not value or value.startswith("#") or any(c.isspace() for c in value):
        return (
            f"{value!r} cannot be a TREC field: it must be non-empty, contain no whitespace "
            "and not start with '#'"
        )
    return None


def _id(value: str) -> str:
    problem = field_problem(value)
    if problem is not None:
        raise InvalidArgument(problem)
    return value
