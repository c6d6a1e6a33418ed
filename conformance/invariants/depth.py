"""Depth invariants: limits that count documents (capability ``document_limits``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ragward.conformance.answer_diff import asked, differ
from ragward.conformance.contract import Factory
from ragward.conformance.fusion_oracle import TOLERANCE, expected_fusion
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import Hit, Policy
from ragward.conformance.strategies import Scene, scenes
from ragward.conformance.view import prepare

__all__ = ["document_cut", "document_depth"]

_WIDE = 200  # larger than any generated corpus has chunks


def document_cut(hits: tuple[Hit, ...], limit: int) -> tuple[Hit, ...]:
    """The hits placed before the first hit of the ``limit + 1``-th distinct document."""
    seen: set[str] = set()
    for position, hit in enumerate(hits):
        if hit.doc_id not in seen:
            if len(seen) == limit:
                return hits[:position]
            seen.add(hit.doc_id)
    return hits


def _documents(hits: tuple[Hit, ...]) -> list[tuple[str, float]]:
    """A chunk ranking as a document ranking: each document where its first (best) chunk
    is, with that chunk's score."""
    first: dict[str, float] = {}
    for hit in hits:
        first.setdefault(hit.doc_id, hit.score)
    return list(first.items())


def _fused_by_document(system: Any, case: Scene, narrow: Policy, got: tuple[Hit, ...]) -> None:
    question = (case.query, case.asker, case.now_tick)
    # Each side as fusion sees it: cut at candidate_limit, not yet at result_limit.
    deep = replace(narrow, result_limit=narrow.candidate_limit)
    sides = [system.retrieve(*question, replace(deep, mode=m)) for m in ("lexical", "dense")]
    if any({"lexical", "dense"} & set(side.degraded) for side in sides):
        return  # a stage was shed: not like for like
    by_document = [_documents(side.hits) for side in sides]
    want = expected_fusion(
        *by_document, method=narrow.fusion, k=narrow.rrf_k, dense_weight=narrow.dense_weight
    )
    tolerance = TOLERANCE[narrow.fusion]
    for hit in got:
        if hit.doc_id not in want or abs(hit.score - want[hit.doc_id]) > tolerance:
            raise Violation(
                f"hybrid at document depth: {hit.chunk_id} scores {hit.score!r}, the "
                f"{narrow.fusion} fusion of its document's ranks gives {want.get(hit.doc_id)!r}"
            )


@invariant(
    "DEPTH-001", cases=lambda: scenes(twins=True), requires=("document_limits", "policy_knobs")
)
def document_depth(factory: Factory, case: Scene) -> None:
    """Limits counted in documents reach that many documents

    With ``limit_unit = "documents"`` and rerank off, the answer holds
    ``min(result_limit, candidate_limit, D)`` distinct documents, where ``D`` is the number
    of documents the same question matches with limits wider than the corpus: a document
    with many good chunks cannot crowd the others out. In a single-index mode the answer
    is exactly the wide chunk ranking cut before the first chunk of the next document
    beyond the limit — same chunks, same order, same scores. In hybrid mode, fusion is
    by document: every returned chunk scores what its document scores in the fusion of the
    lexical and the dense answer cut at the same ``candidate_limit``, each read as a
    document ranking by first occurrence, a document scoring its best chunk's score
    (``sum(1 / (rrf_k + rank))`` of its ranks for plain RRF; the other methods as in
    FUS-004)."""
    system, caps, _, policy = prepare(factory, case.docs, case.policy)
    for mode in caps.modes:
        base = replace(policy, mode=mode, rerank=False)
        wide = replace(base, candidate_limit=_WIDE, result_limit=_WIDE, limit_unit="chunks")
        everything = system.retrieve(case.query, case.asker, case.now_tick, wide).hits
        narrow = replace(base, limit_unit="documents")
        answer = system.retrieve(case.query, case.asker, case.now_tick, narrow)
        got = answer.hits
        limit = min(narrow.result_limit, narrow.candidate_limit)
        matching = len({h.doc_id for h in everything})
        found = len({h.doc_id for h in got})
        if found != min(limit, matching):
            raise Violation(
                f"{mode}: {found} distinct documents under a limit of {limit} documents, "
                f"with {matching} matching"
            )
        if mode == "hybrid" and caps.scores and {"lexical", "dense"} <= set(caps.modes):
            _fused_by_document(system, case, narrow, got)
        if mode != "hybrid":
            # The wide ranking cut at the limit, then the answer under it: hits, scores.
            differ(
                f"{mode} hits at document depth {limit} vs the wide ranking cut there",
                asked(case.query, case.asker, case.now_tick, narrow, caps),
                replace(answer, hits=document_cut(everything, limit)),
                answer,
                caps,
                counts=False,
            )
