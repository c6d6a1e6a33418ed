"""Reciprocal rank fusion."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ragward.errors import InvalidArgument
from ragward.reference.ranking import Scored, ranked

__all__ = ["reciprocal_rank_fusion"]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Scored]],
    *,
    k: float = 60,
    limit: int | None = None,
) -> list[Scored]:
    """Fuse rankings by the sum of ``1 / (k + rank)`` over the rankings a chunk is in.

    Cormack, Clarke & Buettcher (2009), "Reciprocal Rank Fusion outperforms Condorcet and
    individual Rank Learning Methods". Only positions are read, never the input scores,
    so BM25 scores and cosines need no calibration against each other. Ranks start at 1;
    ties in the fused score break by ``chunk_id``. Sums are exactly rounded (``math.fsum``),
    so the fused scores do not depend on the order the rankings are given in.

    >>> from ragward.reference.chunking import Chunk
    >>> def hit(i: str) -> Scored:
    ...     return Scored(Chunk(i, "d", "t", "x", "body", 0, 1, "public", None, 1, 0), 0.0)
    >>> a, b, c = hit("a"), hit("b"), hit("c")
    >>> [(s.chunk.chunk_id, round(s.score, 5)) for s in reciprocal_rank_fusion([[a, b], [b, c]])]
    [('b', 0.03252), ('a', 0.01639), ('c', 0.01613)]
    """
    if isinstance(k, bool) or not isinstance(k, int | float) or not (math.isfinite(k) and k > 0):
        raise InvalidArgument(f"rrf k must be a finite number > 0, got {k!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidArgument(f"rrf limit must be None or an integer >= 0, got {limit!r}")
    contributions: dict[str, list[float]] = {}
    chunks: dict[str, Scored] = {}
    for position, ranking in enumerate(rankings):
        seen: set[str] = set()
        for rank, scored in enumerate(ranking, start=1):
            key = scored.chunk.chunk_id
            if key in seen:
                raise InvalidArgument(f"chunk {key!r} appears twice in ranking {position}")
            seen.add(key)
            contributions.setdefault(key, []).append(1.0 / (k + rank))
            chunks.setdefault(key, scored)
    fused = ranked(
        Scored(chunks[key].chunk, math.fsum(terms)) for key, terms in contributions.items()
    )
    return fused if limit is None else fused[:limit]
