"""Second-stage reranking over the fused candidates, behind a small protocol."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ragward.reference.chunking import Chunk, search_text_of
from ragward.reference.ranking import ScoredChunk, ranked, scored_all
from ragward.reference.text import tokenize

__all__ = [
    "LexicalOverlapReranker",
    "Reranker",
    "overlap_scores",
    "reads_index_terms",
    "rerank",
]


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, chunk) pairs together, as a cross-encoder does."""

    @property
    def name(self) -> str:
        """A stable name for reports."""
        ...

    def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
        """One score per chunk, in the order given; higher is more relevant."""
        ...


class LexicalOverlapReranker:
    """A deterministic stand-in for a cross-encoder.

    Score = share of the query's distinct terms the chunk contains, plus a quarter of the
    chunk's density of query terms (occurrences of query terms / chunk length), both read
    from the chunk's indexed text (title, heading, text). It reads the pair together, so it
    can prefer a chunk that covers the question over one that merely repeats a single
    query word. It is a stand-in, not a model: on SciFact it ranks worse than the first
    stage, so no grid uses it unless asked.

    >>> from ragward.reference.chunking import Chunk, search_text_of
    >>> c = Chunk("d::1", "d", "t", "dual control release", "s", 0, 20, "public", None, 1, 0)
    >>> LexicalOverlapReranker().score("release control", [c])
    [1.1666666666666667]
    """

    name = "lexical-overlap"

    def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
        query_terms = sorted(set(tokenize(query)))
        if not query_terms:
            return [0.0] * len(chunks)
        scores = []
        wanted = len(query_terms)
        absent = [0] * wanted
        for chunk in chunks:
            # keyed by the parts of its search text: strings that keep their hash, where
            # the joined text would be a new string to hash on every call
            counts, length = _term_counts(chunk.title, chunk.heading, chunk.text)
            # each term's count, looked up in C; integer sums, so exact in any order
            found = list(map(counts.get, query_terms, absent))
            covered = wanted - found.count(0)
            density = sum(found) / max(1, length)
            scores.append(covered / wanted + 0.25 * density)
        return scores


def overlap_scores(
    n_terms: int, found: npt.NDArray[np.int64], lengths: npt.NDArray[np.integer[Any]]
) -> list[float]:
    """:meth:`LexicalOverlapReranker.score` from counts: ``found[t, c]`` is how often the
    question's ``t``-th distinct term occurs in chunk ``c``, ``lengths[c]`` the chunk's
    token count. The same integer sums, then the same divisions and sum in the same order
    as the per-chunk loop, so the same floats.

    >>> overlap_scores(2, np.array([[1], [1]]), np.array([3]))  # "release control", above
    [1.1666666666666667]
    """
    if n_terms == 0:
        return [0.0] * len(lengths)
    covered = np.count_nonzero(found, axis=0)
    density = found.sum(axis=0) / np.maximum(lengths.astype(np.int64), 1)
    scores: list[float] = (covered / n_terms + 0.25 * density).tolist()
    return scores


def reads_index_terms(reranker: object) -> bool:
    """Whether ``reranker`` scores as :class:`LexicalOverlapReranker` does, so that its
    scores can be computed from a lexical index's counts (:func:`overlap_scores`): an
    instance whose class does not replace :meth:`~LexicalOverlapReranker.score`."""
    return (
        isinstance(reranker, LexicalOverlapReranker)
        and type(reranker).score is LexicalOverlapReranker.score
    )


@lru_cache(maxsize=1 << 16)
def _term_counts(title: str, heading: str, text: str) -> tuple[Mapping[str, int], int]:
    # memoised: a candidate is rescored under every setting; read-only by contract
    tokens = tokenize(search_text_of(title, heading, text))
    return MappingProxyType(Counter(tokens)), len(tokens)


def rerank(
    query: str,
    candidates: Sequence[ScoredChunk],
    *,
    reranker: Reranker,
    limit: int,
    min_score: float = 0.0,
) -> list[ScoredChunk]:
    """Rescore ``candidates`` and keep those scoring strictly above ``min_score``.

    Only the candidates are read: a reranker can reorder and drop, never add. The floor
    matters because a first stage always returns *something*; without one, "nothing
    relevant" looks like "the least irrelevant few".
    """
    scores = reranker.score(query, [c.chunk for c in candidates])
    if len(scores) != len(candidates):
        raise ValueError(
            f"reranker {reranker.name!r} returned {len(scores)} scores for {len(candidates)} chunks"
        )
    made = scored_all(map(_CHUNK, candidates), map(float, scores))
    return ranked(s for s in made if s.score > min_score)[:limit]


_CHUNK = attrgetter("chunk")
