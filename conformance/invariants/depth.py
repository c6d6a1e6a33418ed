"""Depth invariants: limits that count documents (capability ``document_limits``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ragward.conformance.answer_diff import asked, differ
from ragward.conformance.contract import Factory
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


def _fused_by_document(system: Any, case: Scene, narrow: Policy, got: tuple[Hit, ...]) -> None:
    question = (case.query, case.asker, case.now_tick)
    # Each side as fusion sees it: cut at candidate_limit, not yet at result_limit.
    deep = replace(narrow, result_limit=narrow.candidate_limit)
    sides = [system.retrieve(*question, replace(deep, mode=m)) for m in ("lexical", "dense")]
    if any({"lexical", "dense"} & set(side.degraded) for side in sides):
        return  # a stage was shed: not like for like
    want: dict[str, float] = {}
    for side in sides:
        documents = dict.fromkeys(h.doc_id for h in side.hits)  # by first occurrence
        for rank, doc_id in enumerate(documents, 1):
            want[doc_id] = want.get(doc_id, 0.0) + 1.0 / (narrow.rrf_k + rank)
    for hit in got:
        if hit.doc_id not in want or abs(hit.score - want[hit.doc_id]) > 1e-12:
            raise Violation(
                f"hybrid at document depth: {hit.chunk_id} scores {hit.score!r}, the RRF of "
                f"its document's ranks gives {want.get(hit.doc_id)!r}"
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
    by document: every returned chunk scores ``sum(1 / (rrf_k + rank))`` of its document,
    ranked by first occurrence in the lexical and the dense answer cut at the same
    ``candidate_limit``."""
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
