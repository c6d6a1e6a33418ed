"""A question's first stage: both rankings over the asker's view, before fusion and rerank.

:class:`FirstStage` is what :meth:`~ragward.reference.retriever.AuthorizedRetriever.finish`
finishes (once per setting, in a grid), :class:`StageSource` where its candidates lie in
the index, and :class:`Remembered` the reranker's verdicts on its chunks, kept so that
each chunk is scored once per stage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from ragward.reference.chunking import Chunk
from ragward.reference.namespace import Namespace
from ragward.reference.ranking import ScoredChunk, ranked, scored_all
from ragward.reference.rerank import Reranker

__all__ = ["FirstStage", "Remembered", "StageSource"]

_CHUNK_ID = attrgetter("chunk_id")
_SCORED_CHUNK_ID = attrgetter("chunk.chunk_id")


class StageSource:
    """Where a first stage's candidates lie: the namespace they were ranked in, how many
    times it had been compacted then (compaction numbers rows anew), and the row of each
    chunk of the stage's two rankings (a narrowed copy of the stage shares its source)."""

    def __init__(
        self,
        namespace: Namespace,
        rankings: tuple[tuple[ScoredChunk, ...], tuple[ScoredChunk, ...]],
        rows: tuple[list[int], list[int]],
    ) -> None:
        self.namespace = namespace
        self.compactions = namespace.compactions
        self._rankings, self._rows = rankings, rows
        self._where: dict[str, int] | None = None

    def rows(self, chunks: Sequence[Chunk]) -> list[int]:
        """The row of each of ``chunks``; KeyError for a chunk that is not a candidate.
        The map is made on the first call."""
        where = self._where
        if where is None:
            where = self._where = {}
            for ranking, rows in zip(self._rankings, self._rows, strict=True):
                where.update(zip(map(_SCORED_CHUNK_ID, ranking), rows, strict=True))
        return list(map(where.__getitem__, map(_CHUNK_ID, chunks)))


@dataclass(frozen=True)
class FirstStage:
    """Both first-stage rankings over the eligible view, before fusion and rerank.

    ``reranked`` remembers the reranker's verdict on each candidate already scored from this
    stage (by reranker, then ``chunk_id``), so that finishing one stage under many
    settings asks the reranker about each chunk once: a reranker scores a (query, chunk)
    pair, whatever else it is shown with.
    """

    query: str
    lexical: tuple[ScoredChunk, ...]
    dense: tuple[ScoredChunk, ...]
    degraded: tuple[str, ...] = ()
    considered: int = 0
    excluded_by_entitlement: int = 0
    excluded_by_freshness: int = 0
    reranked: dict[int, dict[str, ScoredChunk]] = field(
        default_factory=dict, compare=False, repr=False
    )
    #: What finishing this stage under one setting computed that another setting can reuse,
    #: keyed by everything it depends on: the fused candidates (by mode of fusion, ``k``
    #: and the chunk ids of the rankings fused), and what a caller keeps (an adapter's
    #: converted hits).
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    #: Where the candidates lie in the index they came from (None for a stage made by hand).
    source: StageSource | None = field(default=None, compare=False, repr=False)

    @classmethod
    def made(
        cls,
        query: str,
        lexical: tuple[ScoredChunk, ...],
        dense: tuple[ScoredChunk, ...],
        degraded: tuple[str, ...],
        counts: tuple[int, int, int],
        source: StageSource | None = None,
    ) -> FirstStage:
        """``FirstStage(query, lexical, dense, degraded, *counts)``, its fields set as the
        frozen ``__init__`` sets them, in a third of the time (one per question)."""
        first = object.__new__(cls)
        first.__dict__.update(
            query=query,
            lexical=lexical,
            dense=dense,
            degraded=degraded,
            considered=counts[0],
            excluded_by_entitlement=counts[1],
            excluded_by_freshness=counts[2],
            reranked={},
            memo={},
            source=source,
        )
        return first

    def narrowed(
        self, lexical: tuple[ScoredChunk, ...], dense: tuple[ScoredChunk, ...]
    ) -> FirstStage:
        """This stage with other rankings, sharing its memo and its reranker verdicts (what
        ``dataclasses.replace`` gives); the stage itself where both are its own."""
        if lexical is self.lexical and dense is self.dense:
            return self
        other = object.__new__(FirstStage)
        other.__dict__.update(self.__dict__, lexical=lexical, dense=dense)
        return other


class Remembered:
    """A reranker's verdicts on one stage's chunks, kept in ``memo`` (``chunk_id`` to the
    chunk with its score): each chunk is scored, and its ``ScoredChunk`` made, once per stage,
    however many settings rerank it. ``score`` gives the reranker's scores of chunks
    (:meth:`~ragward.reference.retriever.AuthorizedRetriever.rerank_scores`)."""

    def __init__(
        self,
        reranker: Reranker,
        memo: dict[str, ScoredChunk],
        score: Callable[[Sequence[Chunk]], Sequence[float]],
    ) -> None:
        self.reranker, self.memo, self.score = reranker, memo, score

    def rerank(
        self, query: str, candidates: Sequence[ScoredChunk], min_score: float
    ) -> list[ScoredChunk]:
        """What ``rerank(query, candidates, reranker=..., limit=len(candidates),
        min_score=min_score)`` returns."""
        memo = self.memo
        missing = list(
            {c.chunk.chunk_id: c.chunk for c in candidates if c.chunk.chunk_id not in memo}.values()
        )
        if missing or not candidates:  # asked even with nothing to score, as rerank() asks
            scores = self.score(missing)
            if len(scores) != len(missing):
                raise ValueError(
                    f"reranker {self.reranker.name!r} returned {len(scores)} scores for "
                    f"{len(missing)} chunks"
                )
            memo.update(
                zip(map(_CHUNK_ID, missing), scored_all(missing, map(float, scores)), strict=True)
            )
        made = map(memo.__getitem__, map(_SCORED_CHUNK_ID, candidates))
        return ranked(s for s in made if s.score > min_score)
