"""Fusion and rerank invariants: RRF reads ranks only; rerank never adds a chunk.

Reciprocal rank fusion (Cormack, Clarke & Buettcher, 2009) scores a chunk by
``sum(1 / (k + rank))`` over the rankings it appears in, ranks starting at 1, ties by
``chunk_id``. The kit computes that sum exactly (``math.fsum``) and holds the adapter's
``fuse`` to it, and checks that reranking only reorders and filters the fused candidates
above its floor. That hybrid retrieval is RRF over the lexical and dense rankings, each
read up to its limit, is a hand-off: :mod:`.handoffs`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from ragward.conformance.answer_diff import asked, changes, fail_with_diff, fused_changes
from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import Hit, Policy
from ragward.conformance.text_strategies import CorpusCase, corpus_cases, load, policy_for
from ragward.conformance.view import fit_policy

__all__ = ["FuseCase", "expected_rrf"]

_TOLERANCE = 1e-12
_IDS = st.sampled_from([f"c{i}" for i in range(8)])


@dataclass(frozen=True)
class FuseCase:
    """Rankings of chunk ids for ``fuse``; ``order`` permutes them, ``extra`` is a chunk
    to append to ranking ``target`` (a new ranking when ``target == len(rankings)``)."""

    rankings: tuple[tuple[str, ...], ...]
    k: float
    order: tuple[int, ...]
    extra: str
    target: int


@st.composite
def _fuse_cases(draw: st.DrawFn) -> FuseCase:
    size = draw(st.sampled_from((0, 1, 2, 2, 3, 3, 4, 4)))  # several rankings make ties
    ranking = st.lists(_IDS, unique=True, max_size=7).map(tuple)
    rankings = tuple(draw(ranking) for _ in range(size))
    k = draw(st.one_of(st.sampled_from((60, 1, 0.5, 10.0, 0.01)), st.floats(0.01, 1000.0)))
    order = tuple(draw(st.permutations(range(len(rankings)))))
    target = draw(st.integers(0, len(rankings)))
    present = set(rankings[target]) if target < len(rankings) else set()
    choices = [f"c{i}" for i in range(8) if f"c{i}" not in present]
    return FuseCase(rankings, k, order, draw(st.sampled_from(choices)), target)


def expected_rrf(rankings: tuple[tuple[str, ...], ...], k: float) -> dict[str, float]:
    """Each chunk's exact RRF score over ``rankings`` (ranks from 1)."""
    terms: dict[str, list[float]] = {}
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            terms.setdefault(chunk_id, []).append(1.0 / (k + rank))
    return {chunk_id: math.fsum(values) for chunk_id, values in terms.items()}


def _fuse(factory: Factory, rankings: tuple[tuple[str, ...], ...], k: float) -> dict[str, float]:
    system: Any = factory()
    fused: tuple[tuple[str, float], ...] = system.fuse(rankings, k)
    ids = [chunk_id for chunk_id, _ in fused]
    if len(set(ids)) != len(ids):
        raise Violation(f"fuse returned a chunk twice: {ids}")
    return dict(fused)


@invariant("FUS-001", cases=_fuse_cases, requires=("fusion",))
def rrf_formula(factory: Factory, case: FuseCase) -> None:
    """RRF is the rank-only sum 1/(k+rank), ordered by (-score, chunk_id)

    ``fuse`` returns each chunk of any input ranking exactly once, with the score
    ``sum(1 / (k + rank))`` over the rankings it appears in (ranks from 1), within 1e-12,
    ordered by descending score with ties broken by ascending ``chunk_id`` (ties decided
    on the exact sum). Only ids go in, so a fusion that weighs first-stage scores, counts
    ranks from 0 or drops a ranking's tail fails here."""
    system: Any = factory()
    fused: tuple[tuple[str, float], ...] = system.fuse(case.rankings, case.k)
    expected = expected_rrf(case.rankings, case.k)
    ids = [chunk_id for chunk_id, _ in fused]
    if sorted(ids) != sorted(expected):
        raise Violation(f"fuse returned chunks {sorted(ids)}, expected {sorted(expected)}")
    for chunk_id, score in fused:
        if abs(score - expected[chunk_id]) > _TOLERANCE:
            raise Violation(f"fused score of {chunk_id} is {score!r}, not {expected[chunk_id]!r}")
    order = sorted(expected, key=lambda chunk_id: (-expected[chunk_id], chunk_id))
    if ids != order:
        raise Violation(f"fused order {ids}, expected {order} by (-score, chunk_id)")


@invariant("FUS-002", cases=_fuse_cases, requires=("fusion",))
def rrf_order_free(factory: Factory, case: FuseCase) -> None:
    """RRF does not depend on the order of its input rankings

    Fusing the same rankings listed in another order gives the same chunks, in the same
    order, with bit-identical scores: a sum whose rounding depends on the order of its
    terms, or a tie broken by which ranking came first, fails here."""
    first = _fuse(factory, case.rankings, case.k)
    permuted = tuple(case.rankings[i] for i in case.order)
    system: Any = factory()
    second: tuple[tuple[str, float], ...] = system.fuse(permuted, case.k)
    if tuple(first.items()) != second:
        fail_with_diff(
            f"fuse of the rankings listed in order {list(case.order)}",
            f"fuse of {len(case.rankings)} rankings at k={case.k}",
            fused_changes(tuple(first.items()), second),
        )


@invariant("FUS-003", cases=_fuse_cases, requires=("fusion",))
def rrf_monotone(factory: Factory, case: FuseCase) -> None:
    """adding a chunk to another ranking raises its fused score only

    Appending a chunk to the end of a ranking that lacks it (or as a ranking of its
    own) strictly raises that chunk's fused score, by ``1 / (k + its new rank)``, and
    leaves every other chunk's score unchanged."""
    before = _fuse(factory, case.rankings, case.k)
    rankings = list(case.rankings)
    if case.target < len(rankings):
        rankings[case.target] = (*rankings[case.target], case.extra)
        rank = len(rankings[case.target])
    else:
        rankings.append((case.extra,))
        rank = 1
    after = _fuse(factory, tuple(rankings), case.k)
    old = before.get(case.extra, 0.0)
    new = after.get(case.extra, 0.0)
    if not new > old or abs(new - old - 1.0 / (case.k + rank)) > _TOLERANCE:
        raise Violation(
            f"adding {case.extra} at rank {rank} moved its score {old!r} -> {new!r}, "
            f"expected +{1.0 / (case.k + rank)!r}"
        )
    for chunk_id, score in before.items():
        if chunk_id != case.extra and abs(after.get(chunk_id, math.nan) - score) > _TOLERANCE:
            raise Violation(
                f"adding {case.extra} moved {chunk_id}: {score!r} -> {after.get(chunk_id)!r}"
            )


def _ids(hits: tuple[Hit, ...]) -> list[str]:
    return [hit.chunk_id for hit in hits]


@invariant(
    "FUS-005",
    cases=lambda: corpus_cases(knobs=True, subset_limits=True),
    requires=("rerank_toggle", "policy_knobs"),
)
def rerank_within_candidates(factory: Factory, case: CorpusCase) -> None:
    """rerank only reorders and filters the candidates

    When ``result_limit >= candidate_limit``, the answer with rerank off is every
    fused candidate, so the chunks returned with rerank on must be a subset of them: a
    reranker may reorder and drop, never bring in a chunk the first stage did not
    propose. Nor does any answer hold more than ``candidate_limit`` chunks, whatever
    ``result_limit`` allows: the fused list is cut at it before rerank sees it. Asked in
    the case's mode, and in hybrid mode too where declared (where two rankings fuse to
    more candidates than either holds)."""
    system = factory()
    load(system, case.docs)
    caps = system.capabilities
    case_policy = policy_for(case, caps.modes, False, caps)
    modes = dict.fromkeys((case_policy.mode, *(m for m in ("hybrid",) if m in caps.modes)))
    for mode in modes:
        off_policy = replace(case_policy, mode=mode)
        off = system.retrieve(case.query, case.asker, 0, off_policy)
        on = system.retrieve(case.query, case.asker, 0, replace(off_policy, rerank=True))
        for name, result in (("off", off), ("on", on)):
            if len(result.hits) > case.candidate_limit:
                raise Violation(
                    f"{mode}, rerank {name}: {len(result.hits)} hits came back under "
                    f"candidate_limit={case.candidate_limit}: {_ids(result.hits)}"
                )
        extra = sorted(set(_ids(on.hits)) - set(_ids(off.hits)))
        if extra:
            raise Violation(
                f"{mode}: rerank returned {extra}, not among the candidates {_ids(off.hits)}"
            )


@invariant(
    "FUS-006",
    cases=lambda: corpus_cases(knobs=True),
    requires=("rerank_toggle", "policy_knobs", "scores"),
)
def rerank_floor(factory: Factory, case: CorpusCase) -> None:
    """rerank honours its floor

    With rerank on (and not reported shed in ``degraded``), every returned hit scores
    strictly above ``rerank_min_score``: the floor is what lets "nothing relevant" come
    back as nothing rather than as the least irrelevant few. The floor is then put
    *exactly on* each score the reranker gave (read from an answer under a floor far
    below them): the answer must be the hits scoring strictly above it, in the same
    order — a floor compared inclusively keeps the hit sitting on it."""
    system = factory()
    load(system, case.docs)
    caps = system.capabilities
    policy = policy_for(case, caps.modes, rerank=True, caps=caps)
    result = system.retrieve(case.query, case.asker, 0, policy)
    if "rerank" in result.degraded:
        return
    _above(result.hits, case.rerank_min_score)
    low = replace(policy, rerank_min_score=-1e9)
    wide = system.retrieve(case.query, case.asker, 0, low)
    if "rerank" in wide.degraded:
        return
    for floor in sorted({hit.score for hit in wide.hits})[:3]:
        on = system.retrieve(case.query, case.asker, 0, replace(policy, rerank_min_score=floor))
        if "rerank" in on.degraded:
            continue
        _above(on.hits, floor)
        want = replace(wide, hits=tuple(hit for hit in wide.hits if hit.score > floor))
        if _ids(on.hits) != _ids(want.hits):
            fail_with_diff(
                f"hits with the floor on a rerank score ({floor!r}) vs those above it under a "
                "floor far below",
                asked(case.query, case.asker, 0, replace(policy, rerank_min_score=floor), caps),
                changes(want, on, caps, scores=False, counts=False),
            )


def _above(hits: tuple[Hit, ...], floor: float) -> None:
    for hit in hits:
        if not hit.score > floor:
            raise Violation(
                f"hit {hit.chunk_id} scores {hit.score!r}, not above the floor {floor!r}"
            )


#: A question without a single term: punctuation and blanks only.
_TERMLESS = "?!"


@invariant("FUS-007", cases=lambda: corpus_cases(knobs=True), requires=())
def whole_answers(factory: Factory, case: CorpusCase) -> None:
    """nothing is reported degraded when nothing failed

    The kit injects no fault, so no answer names a stage in ``degraded`` that was
    asked for: in every declared mode, with rerank on and off where it can be toggled,
    for the case's question and for one without a single term (``"?!"``), neither
    first stage is shed, and rerank is not shed while it is on. ``degraded`` is for a
    stage that failed or was shed under load; a stage that fails on every call — an
    embedder whose output the index rejects, a reranker that divides by the number of
    query terms — hides behind it, and every invariant that excuses a degraded answer
    would let it pass."""
    system = factory()
    load(system, case.docs)
    caps = system.capabilities
    toggles = (True, False) if caps.rerank_toggle else (None,)
    for mode in caps.modes:
        for rerank in toggles:
            policy = policy_for(case, caps.modes, bool(rerank), caps)
            policy = replace(policy, mode=mode)
            if rerank is None:
                policy = replace(policy, rerank=Policy().rerank)
            # rerank off, or not the adapter's to switch: reporting it skipped is fine
            excused = set() if rerank else {"rerank"}
            for query in (case.query, _TERMLESS):
                result = system.retrieve(query, case.asker, 0, fit_policy(policy, caps))
                shed = sorted(set(result.degraded) - excused)
                if shed:
                    raise Violation(
                        f"{mode}, rerank {'on' if policy.rerank else 'off'}: {query!r} was "
                        f"answered with {shed} degraded, though nothing failed"
                    )
