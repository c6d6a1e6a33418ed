"""Finishing one first stage under many settings at once, on arrays.

A grid finishes every first stage under each of its fusion, rerank and limit settings:
on SciFact, 12 settings per stage, 10,800 finishes. Finished one by one, each builds its
fused list, its reranked list and its cuts as Python objects. :class:`StageTable` lays the
stage's candidates out once, in ``chunk_id`` order, with their documents as numbers; a
setting is then a few array operations on positions into that table, and the reranker
is asked about each chunk once per stage.

What a table finishes is exactly what :meth:`AuthorizedRetriever.finish` returns for the
stage narrowed to the setting's candidate limit (the property tests hold the two equal,
hit for hit and score for score). The floats are the same because the operations are:
a share ``1.0 / (k + rank)`` is one division in either; a document's or a chunk's fused
score is the sum of at most two shares, one rounding, which is what ``math.fsum`` gives
for two terms; and both orders are ``(-score, chunk_id)``, with equal scores left in
``chunk_id`` order by a stable sort.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ragward.reference.chunking import Chunk
from ragward.reference.fusion_methods import fuse
from ragward.reference.ranking import ScoredChunk, scored_all
from ragward.reference.rerank import Reranker, reads_index_terms

if TYPE_CHECKING:
    from ragward.reference.retriever import FirstStage, ReferencePolicy

__all__ = ["Finished", "StageTable"]

Positions = npt.NDArray[np.intp]
#: A reranker's scores of some chunks of a stage, for the stage's question.
Scorer = Callable[[Sequence[Chunk]], Sequence[float]]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Finished:
    """One setting's answer from a :class:`StageTable`: positions into ``table.chunks``
    in rank order, the score each is returned with, and whether the rerank was shed
    (not asked for, or the reranker failed)."""

    positions: Positions
    scores: Floats
    rerank_shed: bool

    def chunks(self, table: StageTable) -> tuple[ScoredChunk, ...]:
        """The answer as the retriever returns it: each chunk with its score."""
        return scored_all(
            map(table.chunks.__getitem__, self.positions.tolist()), self.scores.tolist()
        )


class StageTable:
    """A first stage's candidates (both rankings, at their widest) as arrays.

    ``chunks`` holds each distinct candidate once, in ``chunk_id`` order, so that a
    position is also a tie-break; ``docs`` numbers each position's document.
    """

    def __init__(self, first: FirstStage) -> None:
        self.first = first
        held: dict[str, Chunk] = {}
        for ranking in (first.lexical, first.dense):
            held.update(zip(map(_SCORED_CHUNK_ID, ranking), map(_CHUNK, ranking), strict=True))
        ids = sorted(held)
        self.chunks: list[Chunk] = [held[chunk_id] for chunk_id in ids]
        self.places: dict[str, int] = dict(zip(ids, range(len(ids)), strict=True))
        doc_ids = list(map(_DOC_ID, self.chunks))
        numbers = {doc_id: number for number, doc_id in enumerate(dict.fromkeys(doc_ids))}
        self.doc_list: list[int] = list(map(numbers.__getitem__, doc_ids))
        self.docs: Positions = np.array(self.doc_list, dtype=np.intp)
        self.n_docs = len(numbers)
        self.lexical, self.lexical_scores = self._laid_out(first.lexical)
        self.dense, self.dense_scores = self._laid_out(first.dense)
        # each ranking's documents by first occurrence, and where each first occurs: a
        # prefix of a ranking holds the documents first seen before its end
        self.doc_orders = {
            "lexical": self._doc_order(self.lexical),
            "dense": self._doc_order(self.dense),
        }
        self._prefixes: dict[tuple[str, int, str], int] = {}
        self._fused: dict[tuple[object, ...], tuple[Positions, Floats]] = {}
        self._verdicts: dict[int, _Verdicts] = {}

    def _laid_out(self, ranking: Sequence[ScoredChunk]) -> tuple[Positions, Floats]:
        places = np.fromiter(
            map(self.places.__getitem__, map(_SCORED_CHUNK_ID, ranking)), np.intp, len(ranking)
        )
        return places, np.fromiter(map(_SCORE, ranking), np.float64, len(ranking))

    def _doc_order(self, ranking: Positions) -> tuple[Positions, Positions]:
        """The documents of ``ranking`` by first occurrence, and where each first occurs."""
        docs, first = np.unique(self.docs[ranking], return_index=True)
        order = np.argsort(first)
        return docs[order], first[order]

    def finish(self, policy: ReferencePolicy, reranker: Reranker, score: Scorer) -> Finished:
        """``finish(first.narrowed(cut(first.lexical, L), cut(first.dense, L)), policy)``
        with ``L`` the policy's candidate limit, as positions and scores; ``score`` gives
        ``reranker``'s scores of chunks of the stage (what ``finish`` asks:
        :meth:`AuthorizedRetriever.rerank_scores`)."""
        unit = policy.limit_unit
        # The candidates hold at most ``candidate_limit`` chunks or documents, so a result
        # limit at least as large cuts nothing.
        whole = policy.result_limit >= policy.candidate_limit
        if policy.mode == "hybrid":
            candidates, scores = self._fusion(policy)
        else:
            which = "lexical" if policy.mode == "lexical" else "dense"
            ranking, ranking_scores = (
                (self.lexical, self.lexical_scores)
                if which == "lexical"
                else (self.dense, self.dense_scores)
            )
            end = self._narrowed(which, policy.candidate_limit, unit)
            candidates, scores = ranking[:end], ranking_scores[:end]
        if policy.enable_rerank:
            try:
                verdicts = self._rerank(reranker, score, candidates)
            except Exception:  # a failed reranker is shed, as ``finish`` sheds it
                pass
            else:
                keep = np.sort(candidates[verdicts[candidates] > policy.rerank_min_score])
                order = keep[np.argsort(-verdicts[keep], kind="stable")]
                if not whole:
                    order = order[: self._prefix(order, policy.result_limit, unit)]
                return Finished(order, verdicts[order], False)
        if whole:
            return Finished(candidates, scores, True)
        end = self._prefix(candidates, policy.result_limit, unit)
        return Finished(candidates[:end], scores[:end], True)

    def _narrowed(self, which: str, limit: int, unit: str) -> int:
        """How much of the ``which`` ranking a cut at ``limit`` keeps."""
        key = (which, limit, unit)
        end = self._prefixes.get(key)
        if end is None:
            ranking = self.lexical if which == "lexical" else self.dense
            if unit == "documents":
                starts = self.doc_orders[which][1]
                end = int(starts[limit]) if starts.size > limit else int(ranking.size)
            else:
                end = min(limit, int(ranking.size))
            self._prefixes[key] = end
        return end

    def _prefix(self, positions: Positions, limit: int, unit: str) -> int:
        """How long :func:`~ragward.reference.ranking.cut` keeps ``positions``: ``limit``
        chunks, or up to the first chunk of the ``limit + 1``-th distinct document."""
        size = int(positions.size)
        if unit != "documents" or size <= limit:
            return min(limit, size)
        docs = list(map(self.doc_list.__getitem__, positions.tolist()))
        distinct = dict.fromkeys(docs)
        if len(distinct) <= limit:
            return size
        return docs.index(next(islice(distinct, limit, None)))

    def _fusion(self, policy: ReferencePolicy) -> tuple[Positions, Floats]:
        """The fused candidates of a hybrid policy, cut at its candidate limit, with their
        fused scores: each (method, weight, ``k``, limit, unit) fused once per stage."""
        unit, limit = policy.limit_unit, policy.candidate_limit
        lexical_end = self._narrowed("lexical", limit, unit)
        dense_end = self._narrowed("dense", limit, unit)
        method, weight = policy.fusion, policy.dense_weight
        key = (method, weight, policy.rrf_k, limit, unit, lexical_end, dense_end)
        known = self._fused.get(key)
        if known is not None:
            return known
        if method != "rrf" or weight != 0.5:
            # Other methods and weights: :func:`fuse` itself, on the narrowed rankings, so
            # the floats are the retriever's by construction.
            fused_chunks = fuse(
                self.first.lexical[:lexical_end],
                self.first.dense[:dense_end],
                method=method,
                k=policy.rrf_k,
                dense_weight=weight,
                documents=unit == "documents",
            )
            places = np.fromiter(
                map(self.places.__getitem__, map(_SCORED_CHUNK_ID, fused_chunks)),
                np.intp,
                len(fused_chunks),
            )
            weights = np.fromiter(map(_SCORE, fused_chunks), np.float64, len(fused_chunks))
            end = self._prefix(places, limit, unit)
            known = self._fused[key] = (places[:end], weights[:end])
            return known
        k = policy.rrf_k
        held = np.zeros(len(self.chunks), dtype=bool)
        ends = (("lexical", self.lexical, lexical_end), ("dense", self.dense, dense_end))
        if unit == "documents":
            # a document's share in a ranking: 1 / (k + its rank by first occurrence)
            totals = np.zeros(self.n_docs)
            for which, ranking, end in ends:
                order, starts = self.doc_orders[which]
                docs = order[: int(np.searchsorted(starts, end))]
                totals[docs] += 1.0 / (k + np.arange(1, docs.size + 1, dtype=np.float64))
                held[ranking[:end]] = True
            members = np.flatnonzero(held)
            scores = totals[self.docs[members]]
        else:
            totals = np.zeros(len(self.chunks))
            for _, ranking, end in ends:
                totals[ranking[:end]] += 1.0 / (k + np.arange(1, end + 1, dtype=np.float64))
                held[ranking[:end]] = True
            members = np.flatnonzero(held)
            scores = totals[members]
        order = np.argsort(-scores, kind="stable")
        fused, fused_scores = members[order], scores[order]
        end = self._prefix(fused, limit, unit)
        known = self._fused[key] = (fused[:end], fused_scores[:end])
        return known

    def _rerank(self, reranker: Reranker, score: Scorer, candidates: Positions) -> Floats:
        """The reranker's verdict on every position scored so far (NaN where none yet),
        after asking it about the candidates not yet scored, in their order: what
        ``finish`` asks, and its verdicts are kept in the stage's ``reranked`` for it."""
        known = self._verdicts.get(id(reranker))
        if known is not None and known.reranker is reranker and known.complete and candidates.size:
            return known.values  # nothing to ask (an empty list is asked, as finish asks it)
        memo = self.first.reranked.setdefault(id(reranker), {})
        if known is None or known.reranker is not reranker:
            known = self._verdicts[id(reranker)] = _Verdicts(reranker, len(self.chunks))
            for chunk_id, verdict in memo.items():
                place = self.places.get(chunk_id)
                if place is not None:
                    known.values[place], known.scored[place] = verdict.score, True
        verdicts, scored = known.values, known.scored
        if reads_index_terms(reranker):
            # no model is asked: every candidate of the stage at once costs one read of
            # the question's postings, as a few of them do
            candidates = np.flatnonzero(~scored)
        missing = candidates[~scored[candidates]]
        if missing.size or not candidates.size:  # asked even with nothing, as finish asks
            chunks = list(map(self.chunks.__getitem__, missing.tolist()))
            values = score(chunks)
            if len(values) != len(chunks):
                raise ValueError(
                    f"reranker {reranker.name!r} returned {len(values)} scores for "
                    f"{len(chunks)} chunks"
                )
            floats = list(map(float, values))
            if not reads_index_terms(reranker):  # kept for ``finish``: a model is not asked twice
                memo.update(zip(map(_CHUNK_ID, chunks), scored_all(chunks, floats), strict=True))
            verdicts[missing] = floats
            scored[missing] = True
        known.complete = bool(scored.all())
        return verdicts


class _Verdicts:
    """A reranker's verdicts on a table's positions: the scores (NaN where none yet),
    which positions are scored, and whether all are."""

    __slots__ = ("complete", "reranker", "scored", "values")

    def __init__(self, reranker: Reranker, size: int) -> None:
        self.reranker = reranker
        self.values: Floats = np.full(size, np.nan)
        self.scored: npt.NDArray[np.bool_] = np.zeros(size, dtype=bool)
        self.complete = False


_CHUNK = attrgetter("chunk")
_DOC_ID = attrgetter("doc_id")
_CHUNK_ID = attrgetter("chunk_id")
_SCORED_CHUNK_ID = attrgetter("chunk.chunk_id")
_SCORE = attrgetter("score")
