"""Reciprocal rank fusion."""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter

from ragward.errors import InvalidArgument
from ragward.reference.chunking import Chunk
from ragward.reference.ranking import ScoredChunk, ranked, scored_all

__all__ = ["document_rank_fusion", "reciprocal_rank_fusion"]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[ScoredChunk]],
    *,
    k: float = 60,
    limit: int | None = None,
    weights: Sequence[float] | None = None,
) -> list[ScoredChunk]:
    """Fuse rankings by the sum of ``1 / (k + rank)`` over the rankings a chunk is in
    (``weight / (k + rank)`` with ``weights``, one per ranking: weighted RRF).

    Cormack, Clarke & Buettcher (2009), "Reciprocal Rank Fusion outperforms Condorcet and
    individual Rank Learning Methods". Only positions are read, never the input scores,
    so BM25 scores and cosines need no calibration against each other. Ranks start at 1;
    ties in the fused score break by ``chunk_id``. Sums are exactly rounded (``math.fsum``),
    so the fused scores do not depend on the order the rankings are given in.

    >>> from ragward.reference.chunking import Chunk
    >>> def hit(i: str) -> ScoredChunk:
    ...     return ScoredChunk(Chunk(i, "d", "t", "x", "body", 0, 1, "public", None, 1, 0), 0.0)
    >>> a, b, c = hit("a"), hit("b"), hit("c")
    >>> [(s.chunk.chunk_id, round(s.score, 5)) for s in reciprocal_rank_fusion([[a, b], [b, c]])]
    [('b', 0.03252), ('a', 0.01639), ('c', 0.01613)]
    """
    if isinstance(k, bool) or not isinstance(k, int | float) or not (math.isfinite(k) and k > 0):
        raise InvalidArgument(f"rrf k must be a finite number > 0, got {k!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidArgument(f"rrf limit must be None or an integer >= 0, got {limit!r}")
    weights = _weights(rankings, weights)
    contributions: dict[str, list[float]] = {}
    chunks: dict[str, ScoredChunk] = {}
    for position, (ranking, weight) in enumerate(zip(rankings, weights, strict=True)):
        seen: set[str] = set()
        for rank, entry in enumerate(ranking, start=1):
            key = entry.chunk.chunk_id
            if key in seen:
                raise InvalidArgument(f"chunk {key!r} appears twice in ranking {position}")
            seen.add(key)
            contributions.setdefault(key, []).append(weight / (k + rank))
            chunks.setdefault(key, entry)
    fused = ranked(
        ScoredChunk(chunks[key].chunk, math.fsum(terms)) for key, terms in contributions.items()
    )
    return fused if limit is None else fused[:limit]


def document_rank_fusion(
    rankings: Sequence[Sequence[ScoredChunk]],
    *,
    k: float = 60,
    weights: Sequence[float] | None = None,
) -> list[ScoredChunk]:
    """Reciprocal rank fusion of the *documents* the chunk rankings rank.

    Each ranking is read as a document ranking by first occurrence (a document ranks where
    its best chunk ranks); a document scores ``sum(1 / (k + rank))`` over the rankings it
    is in, and every chunk the rankings hold scores what its document scores, so two
    chunks of one document — one the best lexical match, the other the best dense match —
    reinforce each other, as they do not when chunks are fused one by one. Ties break by
    ``chunk_id``, as everywhere. ``weights``, one per ranking, weigh each ranking's shares.

    >>> from ragward.reference.chunking import Chunk
    >>> def hit(i: str) -> ScoredChunk:
    ...     doc = i.partition("::")[0]
    ...     return ScoredChunk(Chunk(i, doc, "t", "x", "body", 0, 1, "public", None, 1, 0), 0.0)
    >>> fused = document_rank_fusion([[hit("a::1"), hit("b::1")], [hit("b::2"), hit("a::1")]], k=1)
    >>> [(s.chunk.chunk_id, round(s.score, 4)) for s in fused]  # 1/(1+1) + 1/(1+2) each
    [('a::1', 0.8333), ('b::1', 0.8333), ('b::2', 0.8333)]
    """
    if isinstance(k, bool) or not isinstance(k, int | float) or not (math.isfinite(k) and k > 0):
        raise InvalidArgument(f"rrf k must be a finite number > 0, got {k!r}")
    # each ranking's documents by first occurrence, with their shares; the loops run in C
    shares = []
    for ranking, weight in zip(rankings, _weights(rankings, weights), strict=True):
        docs = dict.fromkeys(map(_DOC_ID, ranking))
        terms = [weight / (k + rank) for rank in range(1, len(docs) + 1)]
        shares.append(dict(zip(docs, terms, strict=True)))
    totals: dict[str, float]
    if len(shares) <= 2:
        # one share, or two added once: a rounded sum of two floats is what ``fsum`` gives
        # for them, in either order
        totals = shares[0] if shares else {}
        if len(shares) == 2:
            second = shares[1]
            for doc_id in totals.keys() & second.keys():
                totals[doc_id] += second[doc_id]
            totals = {**second, **totals}
    else:
        contributions: dict[str, list[float]] = {}
        for share in shares:
            for doc_id, term in share.items():
                contributions.setdefault(doc_id, []).append(term)
        totals = {doc_id: math.fsum(terms) for doc_id, terms in contributions.items()}
    # each chunk once (a chunk id names one chunk: any of its ScoredChunk gives it)
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        chunks.update(zip(map(_CHUNK_ID, ranking), map(_CHUNK, ranking), strict=True))
    held = list(chunks.values())
    return ranked(scored_all(held, map(totals.__getitem__, map(_CHUNK_DOC_ID, held))))


def _weights(
    rankings: Sequence[Sequence[ScoredChunk]], weights: Sequence[float] | None
) -> Sequence[float]:
    """One weight per ranking (1.0 each when none are given), each finite and >= 0."""
    if weights is None:
        return [1.0] * len(rankings)
    weights = list(weights)
    if len(weights) != len(rankings) or not all(
        isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w) and w >= 0
        for w in weights
    ):
        raise InvalidArgument(
            f"rrf weights must be one finite number >= 0 per ranking, got {weights!r}"
        )
    return weights


_CHUNK = attrgetter("chunk")
_CHUNK_ID = attrgetter("chunk.chunk_id")
_DOC_ID = attrgetter("chunk.doc_id")
_CHUNK_DOC_ID = attrgetter("doc_id")
