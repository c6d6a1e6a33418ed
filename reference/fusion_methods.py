"""Fusion methods: how the lexical and the dense ranking become one.

Three methods, each weighting the two sides by ``dense_weight`` (``a``, in [0, 1]; the
lexical side gets ``1 - a``):

- ``rrf``, weighted reciprocal rank fusion: ``2(1 - a) / (k + r_lex) + 2a / (k + r_dense)``,
  ranks from 1, a side a chunk is absent from adding nothing. At ``a = 0.5`` both weights
  are 1: Cormack et al.'s RRF, exactly as :func:`~ragward.reference.fusion.reciprocal_rank_fusion`
  computes it (the default everywhere). LangChain's ``EnsembleRetriever(weights=...)`` and
  Elasticsearch's weighted ``rrf`` retriever fuse this way.
- ``minmax``, a convex combination of min-max normalised scores:
  ``(1 - a) * (s_lex - min) / (max - min) + a * (s_dense - min) / (max - min)``, the min and
  max of each side taken over that side's candidates (a side whose candidates all score
  alike normalises them to 1). Weaviate's ``relativeScoreFusion`` (its ``alpha`` is ``a``)
  and Elasticsearch's ``linear`` retriever with ``normalizer: minmax``.
- ``zscore``, the same combination of z-scores: ``(s - mean) / std`` over each side's
  candidates (population deviation; 0 when they all score alike). Weaviate's and
  Qdrant's distribution-based score fusion standardise this way; ranx's ``wsum`` over
  ``zmuv``-normalised runs is this method.

A chunk absent from one side takes that side's lowest normalised score there (for
``minmax``, 0): it is treated as tied with the side's last candidate, never as better
than a candidate. Each side's candidates are its first stage's ranking, already cut at
``candidate_limit`` from the asker's eligible view, so every statistic a normalisation
reads comes from chunks the asker may see: an invisible chunk cannot move a fused score.

With ``documents=True`` (a policy's ``limit_unit = "documents"``) each side is read as a
document ranking, a document scoring what its best chunk scores there (ranking by first
occurrence for ``rrf``), and every chunk of a document gets the document's fused score.
Ties break by ``chunk_id``, as everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter

from ragward.errors import InvalidArgument
from ragward.reference.fusion import document_rank_fusion, reciprocal_rank_fusion
from ragward.reference.ranking import ScoredChunk, ranked, scored_all

__all__ = ["FUSIONS", "check_fusion", "fuse"]

#: Every fusion method, the default first.
FUSIONS: tuple[str, ...] = ("rrf", "minmax", "zscore")

_CHUNK_ID = attrgetter("chunk.chunk_id")
_DOC_ID = attrgetter("chunk.doc_id")


def check_fusion(owner: str, method: object, dense_weight: object) -> None:
    """Refuse, in one line naming ``owner``, a method or weight no fusion has."""
    if method not in FUSIONS:
        raise InvalidArgument(f"{owner}.fusion must be one of {', '.join(FUSIONS)}, got {method!r}")
    if (
        isinstance(dense_weight, bool)
        or not isinstance(dense_weight, int | float)
        or not 0.0 <= dense_weight <= 1.0
    ):
        raise InvalidArgument(
            f"{owner}.dense_weight must be a number from 0 to 1, got {dense_weight!r}"
        )


def fuse(
    lexical: Sequence[ScoredChunk],
    dense: Sequence[ScoredChunk],
    *,
    method: str = "rrf",
    k: float = 60,
    dense_weight: float = 0.5,
    documents: bool = False,
) -> list[ScoredChunk]:
    """The two sides fused by ``method`` (see the module's formulas), best first.

    >>> from ragward.reference.chunking import Chunk
    >>> def hit(i: str, s: float) -> ScoredChunk:
    ...     return ScoredChunk(Chunk(i, i, "t", "x", "body", 0, 1, "public", None, 1, 0), s)
    >>> lex, dense = [hit("a", 9.0), hit("b", 3.0)], [hit("b", 0.8), hit("c", 0.2)]
    >>> [(s.chunk.chunk_id, round(s.score, 3)) for s in fuse(lex, dense, method="minmax")]
    [('a', 0.5), ('b', 0.5), ('c', 0.0)]
    """
    check_fusion("fusion", method, dense_weight)
    if method == "rrf":
        sides = [side for side in (lexical, dense) if side]
        weights = [2.0 * (1.0 - dense_weight), 2.0 * dense_weight]
        used = [w for w, side in zip(weights, (lexical, dense), strict=True) if side]
        if documents:
            return document_rank_fusion(sides, k=k, weights=used)
        return reciprocal_rank_fusion(sides, k=k, weights=used)
    normalise = _minmax if method == "minmax" else _zscore
    key = _DOC_ID if documents else _CHUNK_ID
    parts: list[tuple[float, dict[str, float], float]] = []
    for weight, side in ((1.0 - dense_weight, lexical), (dense_weight, dense)):
        best: dict[str, float] = {}
        for entry in side:  # best first: a key's first entry is its best score
            best.setdefault(key(entry), entry.score)
        values = normalise(list(best.values()))
        shares = dict(zip(best, values, strict=True))
        parts.append((weight, shares, min(values, default=0.0)))
    chunks = {_CHUNK_ID(entry): entry.chunk for side in (lexical, dense) for entry in side}
    held = list(chunks.values())
    scores = []
    for chunk in held:
        name = chunk.doc_id if documents else chunk.chunk_id
        scores.append(
            math.fsum(weight * shares.get(name, lowest) for weight, shares, lowest in parts)
        )
    return ranked(scored_all(held, scores))


def _minmax(values: list[float]) -> list[float]:
    if not values:
        return []
    low, high = min(values), max(values)
    if not high > low:  # one score, or all alike (inf - inf included): the side's best
        return [1.0] * len(values)
    span = high - low
    return [(v - low) / span for v in values]


def _zscore(values: list[float]) -> list[float]:
    if not values:
        return []
    mean = math.fsum(values) / len(values)
    deviation = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if not deviation > 0.0:
        return [0.0] * len(values)
    return [(v - mean) / deviation for v in values]
