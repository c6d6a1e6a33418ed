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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ragward.errors import InputError, InvalidArgument
from ragward.evals.jsonl import read_text

__all__ = [
    "TrecRun",
    "field_problem",
    "qrels_text",
    "rank_run",
    "read_qrels",
    "read_run",
    "run_text",
    "write_qrels",
    "write_run",
    "write_scored_run",
]

_QRELS_COLUMNS = ("qid", "iter", "docno", "rel")
_RUN_COLUMNS = ("qid", "Q0", "docno", "rank", "score", "tag")
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_NUMBER = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity)", re.I
)


@dataclass(frozen=True)
class TrecRun:
    """A run file: per query, each document's score; and the run's tag."""

    scores: Mapping[str, Mapping[str, float]]  # query id -> document id -> score
    tag: str  # the last line's, which trec_eval reports as ``runid``


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """Judgements of a qrels file: query id -> document id -> grade."""
    qrels: dict[str, dict[str, int]] = {}
    first: dict[tuple[str, str], int] = {}
    for line, fields in _records(path, _QRELS_COLUMNS):
        qid, _, doc, grade = fields
        if not _INTEGER.fullmatch(grade):
            raise InputError.at(path, line, "rel", f"not an integer {_text(grade)!r}")
        key = (_text(qid), _text(doc))
        if key in first:
            problem = f"{key[1]!r} judged twice for query {key[0]!r} (first on line {first[key]})"
            raise InputError.at(path, line, "docno", problem)
        first[key] = line
        qrels.setdefault(key[0], {})[key[1]] = int(grade)
    return qrels


def read_run(path: str | Path) -> TrecRun:
    """The scores of a run file, and its tag."""
    scores: dict[str, dict[str, float]] = {}
    first: dict[tuple[str, str], int] = {}
    tag = ""
    for line, fields in _records(path, _RUN_COLUMNS):
        qid, _, doc, _, score, last = fields
        if not _NUMBER.fullmatch(score):
            raise InputError.at(path, line, "score", f"not a number {_text(score)!r}")
        key = (_text(qid), _text(doc))
        if key in first:
            problem = (
                f"{key[1]!r} retrieved twice for query {key[0]!r} (first on line {first[key]})"
            )
            raise InputError.at(path, line, "docno", problem)
        first[key] = line
        scores.setdefault(key[0], {})[key[1]] = float(score)
        tag = _text(last)
    return TrecRun(scores, tag)


def rank_run(scores: Mapping[str, Mapping[str, float]]) -> dict[str, tuple[str, ...]]:
    """Each query's documents in ``trec_eval``'s order.

    ``trec_eval`` sorts by score, highest first, and breaks ties by document id in
    *descending* byte order (``comp_sim_docno`` in ``form_res_rels.c``: ``strcmp(p2, p1)``;
    with ``pytrec_eval``, ``b`` ranks above ``a`` and ``9`` above ``10`` at equal scores).
    Python compares ``str`` by code point, which is UTF-8 byte order.
    """
    return {
        qid: tuple(doc for doc, _ in sorted(docs.items(), key=_score_then_id, reverse=True))
        for qid, docs in scores.items()
    }


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


def _records(path: str | Path, columns: Sequence[str]) -> list[tuple[int, list[bytes]]]:
    # One reader for every command: gzip, a byte-order mark and CRLF as the dataset loader.
    data = read_text(path).encode("utf-8")
    records: list[tuple[int, list[bytes]]] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        fields = raw.split()  # bytes split on ASCII whitespace only, like C's isspace
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) != len(columns):
            problem = (
                f"expected {len(columns)} whitespace-separated columns "
                f"({' '.join(columns)}), found {len(fields)}"
            )
            raise InputError.at(path, number, None, problem)
        records.append((number, fields))
    return records


def _text(field: bytes) -> str:
    return field.decode("utf-8")


def _score_then_id(item: tuple[str, float]) -> tuple[float, str]:
    return item[1], item[0]


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
