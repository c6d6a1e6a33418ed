"""BEIR qrels (``qrels/<split>.tsv``), read strictly against the queries and the corpus.

Three tab-separated columns, ``query-id``, ``corpus-id``, ``score`` (an integer grade, 0
meaning judged not relevant), with an optional header row of exactly those names; CRLF or
LF line ends. Besides the shape, every row is checked against the dataset: the query must
be in ``queries.jsonl``, the document must exist in the tenant of that query's asker, a
pair may be judged once, and a grade above 0 must be for a document the asker may see
(its current version): judgements are made within what the asker may see, so a positive
grade on a hidden document would reward leaking it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from ragward.conformance.records import Doc
from ragward.errors import InputError
from ragward.evals.jsonl import read_lines
from ragward.evals.records import Query
from ragward.evals.trec import GRADE_LIMIT, grade_problem
from ragward.evals.visibility import hidden_because

__all__ = ["HEADER", "read_beir_qrels"]

#: The optional first row of a BEIR qrels file.
HEADER = ("query-id", "corpus-id", "score")
_GRADE = re.compile(r"[+-]?[0-9]+")


def read_beir_qrels(
    path: str | os.PathLike[str],
    queries: Mapping[str, Query],
    current: Mapping[tuple[str, str], Doc],
) -> dict[str, dict[str, int]]:
    """The judgements of one split: query id -> document id -> grade, in file order.

    ``current`` maps ``(tenant, doc_id)`` to the current version of each document.
    """
    shown = str(path)
    qrels: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    for number, line in read_lines(path):
        cells = tuple(line.split("\t"))
        if number == 1 and cells == HEADER:
            continue
        if len(cells) != 3:
            problem = (
                f"expected 3 tab-separated columns (query-id, corpus-id, score), got {len(cells)}"
            )
            raise InputError.at(shown, number, None, problem)
        query_id, doc_id, score = cells
        if not _GRADE.fullmatch(score.strip()):
            shown_score = repr(score) if len(score) <= 40 else f"{score[:30]!r}..."
            raise InputError.at(shown, number, "score", f"expected an integer, got {shown_score}")
        # Counted before int() converts it: Python refuses to convert thousands of digits.
        digits = score.strip().lstrip("+-").lstrip("0") or "0"
        if len(digits) > len(str(GRADE_LIMIT)) or int(digits) > GRADE_LIMIT:
            raise InputError.at(shown, number, "score", grade_problem(score.strip()))
        grade = -int(digits) if score.strip().startswith("-") else int(digits)
        query = queries.get(query_id)
        if query is None:
            problem = f"unknown query {query_id!r} (not in queries.jsonl)"
            raise InputError.at(shown, number, "query-id", problem)
        tenant = query.asker.tenant
        doc = current.get((tenant, doc_id))
        if doc is None:
            problem = (
                f"no document {doc_id!r} in tenant {tenant!r} (the asker's of query {query_id!r})"
            )
            raise InputError.at(shown, number, "corpus-id", problem)
        first = lines.setdefault((query_id, doc_id), number)
        if first != number:
            problem = f"query {query_id!r} already judges {doc_id!r} (line {first})"
            raise InputError.at(shown, number, "corpus-id", problem)
        hidden = hidden_because(doc, query.asker) if grade > 0 else None
        if hidden is not None:
            problem = (
                f"grade {grade} for document {doc_id!r}, which the asker of query "
                f"{query_id!r} may not see ({hidden}); grade it 0 or change the principal"
            )
            raise InputError.at(shown, number, "score", problem)
        qrels.setdefault(query_id, {})[doc_id] = grade
    return qrels
