"""The candidates of a first stage: each index's best eligible rows, cut at the limit.

The caller holds the retriever's lock and has taken the asker's view; these functions
rank rows of that view only (the pre-filter), BM25's through the lexical index's gathered
postings, the dense scan's through its scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ragward.reference.lexical import Gathered, Masks, count_matched
from ragward.reference.namespace import Namespace, View
from ragward.reference.policy import ReferencePolicy
from ragward.reference.ranking import (
    ScoredChunk,
    Settle,
    break_ties,
    scored_all,
    top_rows,
    top_rows_by_document,
)

__all__ = ["lexical_stage", "top_candidates"]


def lexical_stage(
    namespace: Namespace,
    view: View,
    live: npt.NDArray[np.bool_],
    lexical_rows: npt.NDArray[np.bool_],
    query: str,
    policy: ReferencePolicy,
) -> tuple[
    npt.NDArray[np.integer[Any]],
    tuple[int, int, int],
    tuple[ScoredChunk, ...],
    npt.NDArray[np.integer[Any]],
    list[int],
]:
    """BM25's part of a first stage in ``view`` (the caller holds the lock): the rows
    it scored, their audit counts, its ranking, the other live rows holding a query
    term (outside the view: matched, never scored; possibly repeated), and the rows
    of its ranking."""
    masks = view.memo.get("masks")
    if masks is None:
        eligible = view.eligible
        masks = view.memo["masks"] = Masks.of(eligible & lexical_rows, live, view.visible, eligible)
    found = namespace.lexical.gather(
        namespace.analyzer.terms(query), masks.rankable, live, view.memo
    )
    scored, counts, lexical, ranked_rows = _lexical_top(namespace, found, masks, policy)
    return scored, counts, lexical, found.others, ranked_rows


def _lexical_top(
    namespace: Namespace, found: Gathered, masks: Masks, policy: ReferencePolicy
) -> tuple[npt.NDArray[np.integer[Any]], tuple[int, int, int], tuple[ScoredChunk, ...], list[int]]:
    """The rows BM25 scored, their audit counts, and the best of them that may rank
    (those ``masks.rankable`` marks, whatever the scorer returned), cut at
    ``policy.candidate_limit``, with their rows."""
    chunks = namespace.chunks
    if policy.limit_unit == "documents":
        scores = found.scores()
        # Every share is positive: the rows to rank are the eligible rows with a score.
        rows = np.flatnonzero(scores != 0.0)  # a mask: 6x faster than of the floats
        counts = count_matched(rows, masks.live, masks.visible, masks.eligible)
        ranking, ranked_rows = top_candidates(namespace, scores, rows[masks.rankable[rows]], policy)
        return rows, counts, ranking, ranked_rows
    limit = policy.candidate_limit
    top = found.top(limit, namespace.lexical.buffers(found.n_rows), masks)
    best, values = top.rows, top.scores
    places = break_ties(best, values, chunks, limit)
    ranking = scored_all(map(chunks.__getitem__, best[:places]), values[:places])
    return top.scored, top.counts, ranking, best if places == len(best) else best[:places]


def top_candidates(
    namespace: Namespace,
    scores: npt.NDArray[np.float64],
    rows: npt.NDArray[np.intp],
    policy: ReferencePolicy,
    settle: Settle | None = None,
) -> tuple[tuple[ScoredChunk, ...], list[int]]:
    """The best of ``rows`` (those that may rank: eligible, with a positive score),
    and their rows; ``settle(rows, limit)``, if given, first makes exact the scores
    that may place."""
    if policy.limit_unit == "documents":
        best = top_rows_by_document(rows, scores, namespace.chunks, policy.candidate_limit, settle)
    else:
        if settle is not None:
            settle(rows, policy.candidate_limit)
        best = top_rows(rows, scores, namespace.chunks, policy.candidate_limit)
    chunks = namespace.chunks
    return scored_all(map(chunks.__getitem__, best), scores[best].tolist()), best
