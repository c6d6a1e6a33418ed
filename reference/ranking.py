"""Scored chunks and the one ordering every ranking in ragward uses: ``(-score, chunk_id)``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import attrgetter
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ragward.reference.chunking import Chunk

__all__ = [
    "LIMIT_UNITS",
    "ScoredChunk",
    "Settle",
    "break_ties",
    "cut",
    "ranked",
    "scored_all",
    "top_rows",
    "top_rows_by_document",
]

#: What a limit counts: chunks, or distinct documents (a chunk counts for its document).
LIMIT_UNITS: tuple[str, ...] = ("chunks", "documents")

#: Makes exact the scores of the rows that may be among the ``limit`` best of ``rows``.
Settle = Callable[[npt.NDArray[np.intp], int], None]


class ScoredChunk(NamedTuple):
    """A chunk with the score the stage that produced it gave it.

    A named tuple, not a dataclass: rankings make one per candidate per question, and a
    tuple is made in a fifth of the time of a frozen dataclass (no ``__setattr__`` per
    field).
    """

    chunk: Chunk
    score: float


def scored_all(chunks: Iterable[Chunk], scores: Iterable[float]) -> tuple[ScoredChunk, ...]:
    """``ScoredChunk(chunk, score)`` of each pair, in order.

    Made with ``tuple.__new__``, as the named tuple's own ``_make`` makes them, without
    its Python-level ``__new__`` per item: a first stage makes one per candidate.

    >>> from ragward.reference.chunking import Chunk
    >>> c = Chunk("d::1", "d", "t", "x", "body", 0, 1, "public", None, 1, 0)
    >>> scored_all([c], [0.5]) == (ScoredChunk(c, 0.5),)
    True
    """
    return tuple(map(_NEW_TUPLE, repeat(ScoredChunk), zip(chunks, scores, strict=True)))


_NEW_TUPLE = tuple.__new__


def ranked(items: Iterable[ScoredChunk]) -> list[ScoredChunk]:
    """Sort by descending score, ties by ascending ``chunk_id``."""
    # By chunk_id, then a stable sort by descending score (``reverse`` keeps a sort
    # stable): equal scores stay in chunk_id order. Both keys are C calls.
    order = sorted(items, key=_CHUNK_ID)
    order.sort(key=_SCORE, reverse=True)
    return order


_CHUNK_ID = attrgetter("chunk.chunk_id")
_SCORE = attrgetter("score")


def top_rows(
    rows: npt.NDArray[np.intp],
    scores: npt.NDArray[np.float64],
    chunks: Sequence[Chunk],
    limit: int,
) -> list[int]:
    """The ``limit`` best of ``rows`` by ``(-scores[row], chunks[row].chunk_id)``, in order.

    A partition finds the score of the last place; only rows scoring at least that much
    (every row tied with the last place included) are sorted, so ties break exactly as
    :func:`ranked` breaks them without sorting every row. One numpy sort orders them by
    score; ids are read and compared only within runs of equal scores.
    """
    row_scores = scores[rows]
    if rows.size > limit:
        if rows.size >= _BOUNDED * limit:
            rows, row_scores = _at_least_bound(rows, row_scores, limit)
        threshold = np.partition(row_scores, rows.size - limit)[rows.size - limit]
        keep = row_scores >= threshold
        rows, row_scores = rows[keep], row_scores[keep]
    order = np.argsort(-row_scores, kind="stable")
    ordered = row_scores[order]
    best: list[int] = rows[order].tolist()
    tied = ordered[1:] == ordered[:-1]
    if tied.any():
        # Runs of equal scores are put in (chunk_id, row) order; only runs that start
        # before the last place matter (the run holding it is whole: every row tied with
        # the last place was kept).
        starts = np.flatnonzero(np.concatenate(([True], ~tied)))
        ends = np.append(starts[1:], len(best))
        runs = ends - starts > 1
        for start, end in zip(starts[runs].tolist(), ends[runs].tolist(), strict=True):
            if start >= limit:
                break
            _by_chunk_id(best, start, end, chunks)
    return best[:limit]


def break_ties(best: list[int], scores: list[float], chunks: Sequence[Chunk], limit: int) -> int:
    """Put ``best`` (rows in ``(-score, row)`` order, ``scores`` theirs, every row tied with
    the last of ``limit`` places among them) in :func:`top_rows` order, in place; returns
    how many of them place (at most ``limit``).

    Only runs of equal scores that start before the last place are sorted, by
    ``(chunk_id, row)``, as :func:`top_rows` sorts them.
    """
    start, size = 0, len(best)
    if len(set(scores)) == size:  # no two equal: nothing to sort (the usual case)
        return min(limit, size)
    while start < limit and start < size - 1:
        end, score = start + 1, scores[start]
        while end < size and scores[end] == score:
            end += 1
        if end - start > 1:
            _by_chunk_id(best, start, end, chunks)
        start = end
    return min(limit, size)


def _by_chunk_id(best: list[int], start: int, end: int, chunks: Sequence[Chunk]) -> None:
    """Sort the run ``best[start:end]`` of equal scores by chunk id (then row), in place."""
    best[start:end] = sorted(best[start:end], key=lambda row: (chunks[row].chunk_id, row))


#: Above this many rows per place, :func:`top_rows` first drops what cannot place.
_BOUNDED = 32


def _at_least_bound(
    rows: npt.NDArray[np.intp], row_scores: npt.NDArray[np.float64], limit: int
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """The rows that may be among the ``limit`` best, found without a partition of all.

    Cut the rows into at least ``limit`` blocks and take each block's maximum: the
    ``limit``-th largest maximum is a lower bound of the ``limit``-th largest score (that
    many blocks each hold a score at least that large), so every row scoring at least the
    last place's score, ties included, scores at least the bound and is kept.
    Comparisons only: no score is changed.
    """
    width = rows.size // (4 * limit)
    maxima = np.maximum.reduceat(row_scores, np.arange(0, rows.size, width))
    bound = np.partition(maxima, maxima.size - limit)[maxima.size - limit]
    keep = row_scores >= bound
    return rows[keep], row_scores[keep]


def document_prefix(doc_ids: Sequence[str], limit: int) -> int:
    """Length of the longest prefix of ``doc_ids`` holding at most ``limit`` distinct ids:
    where the ``limit + 1``-th distinct id first appears, or the whole sequence."""
    distinct = list(dict.fromkeys(doc_ids))  # in order of first appearance
    if len(distinct) <= limit:
        return len(doc_ids)
    return doc_ids.index(distinct[limit])


def cut(items: Sequence[ScoredChunk], limit: int, unit: str = "chunks") -> list[ScoredChunk]:
    """The first ``limit`` chunks, or with ``unit="documents"`` every chunk ranked before
    the first chunk of the ``limit + 1``-th distinct document.

    Both cuts are prefixes, so a cut of a longer ranking equals the cut of a shorter one
    whenever both reach the limit: a document ranking read from the chunks by first
    occurrence keeps exactly its first ``limit`` documents.

    >>> from ragward.reference.chunking import Chunk
    >>> def s(cid: str) -> ScoredChunk:
    ...     doc = cid.partition("::")[0]
    ...     return ScoredChunk(Chunk(cid, doc, "t", "x", "body", 0, 1, "public", None, 1, 0), 1.0)
    >>> ranking = [s("a::1"), s("a::2"), s("b::1"), s("c::1")]
    >>> [x.chunk.chunk_id for x in cut(ranking, 2, "documents")]
    ['a::1', 'a::2', 'b::1']
    """
    if unit == "documents":
        return list(items[: document_prefix([s.chunk.doc_id for s in items], limit)])
    return list(items[:limit])


def top_rows_by_document(
    rows: npt.NDArray[np.intp],
    scores: npt.NDArray[np.float64],
    chunks: Sequence[Chunk],
    limit: int,
    settle: Settle | None = None,
) -> list[int]:
    """The best of ``rows``, in :func:`top_rows` order, cut as :func:`cut` cuts at document
    depth: up to the first chunk of the ``limit + 1``-th distinct document.

    ``settle(rows, want)``, if given, is called before the ``want`` best are read: scores
    that are only bounds until then (a dense scan's) are made exact where they may place.
    """
    want = limit
    while True:
        if settle is not None:
            settle(rows, want)
        best = top_rows(rows, scores, chunks, want)
        end = document_prefix([chunks[row].doc_id for row in best], limit)
        if end < len(best) or len(best) == rows.size:
            return best[:end]
        want *= 2
