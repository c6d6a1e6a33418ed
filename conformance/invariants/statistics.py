"""Statistics invariants: scores are computed over the eligible view alone."""

from __future__ import annotations

from dataclasses import replace

from ragward.conformance.answer_diff import (
    added,
    asked,
    changes,
    differ,
    fail_with_diff,
)
from ragward.conformance.contract import Factory
from ragward.conformance.floods import Flooded, flooded
from ragward.conformance.invariant import invariant
from ragward.conformance.programs import Program, programs
from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc, Policy, Result
from ragward.conformance.stateful import run_program
from ragward.conformance.strategies import LAST_TICK, Scene, scenes
from ragward.conformance.view import bare_too, flood_systems, prepare, rounding_note
from ragward.conformance.visibility import fresh

__all__ = [
    "deleted_leave_no_statistic",
    "flood_moves_no_score",
    "same_view_same_answer",
    "superseded_leave_no_statistic",
]

_SCORES = frozenset({"fresh-scores"})


@invariant("STAT-001", cases=flooded, requires=("scores",))
def flood_moves_no_score(factory: Factory, case: Flooded) -> None:
    """Invisible chunks move no score

    Every chunk returned both with and without a flood of invisible documents carries
    exactly the same score (compared with ``==``, not approximately): collection
    statistics such as BM25's ``N``, ``avgdl`` and document frequencies are taken over the
    asker's eligible view, not over the namespace. Checked under the drawn policy and, when
    rerank can be switched off, bare in every declared mode."""
    caps, fitted, base, full, hidden = flood_systems(factory, case)
    scene = case.scene
    for policy in bare_too(fitted, caps):
        before = base.retrieve(scene.query, scene.asker, scene.now_tick, policy)
        after = full.retrieve(scene.query, scene.asker, scene.now_tick, policy)
        scores = {h.chunk_id: h.score for h in before.hits}
        for hit in after.hits:
            if hit.chunk_id in scores and scores[hit.chunk_id] != hit.score:
                # Every change is listed, the moved score first (it is the breach).
                lines = changes(before, after, caps)
                moved = [line for line in lines if line.startswith(f"{hit.chunk_id} ")]
                fail_with_diff(
                    f"a score moved after adding {added(hidden)} outside the view",
                    asked(scene.query, scene.asker, scene.now_tick, policy, caps),
                    moved + [line for line in lines if line not in moved],
                    rounding_note(scores[hit.chunk_id], hit.score),
                )


@invariant(
    "STAT-002",
    cases=lambda: programs(steps=("reversion", "reclassify", "stale")),
    requires=("versions", "scores"),
)
def superseded_leave_no_statistic(factory: Factory, case: Program) -> None:
    """Superseded versions leave no statistic

    After re-versions and refused stale writes, every score equals that of a fresh
    system holding only the live versions: a replaced version's terms, lengths and vectors
    no longer count anywhere."""
    run_program(factory, case, _SCORES)


@invariant("STAT-003", cases=scenes)
def same_view_same_answer(factory: Factory, case: Scene) -> None:
    """Same eligible view, same answer

    The answer — hits, scores and counts — depends on the eligible view alone: another
    user id, a barrier no document uses (added or dropped), a clearance raised past no
    document's classification, or a later ``now_tick`` at which no document changes side
    of the freshness edge, all give exactly the same answer."""
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    mine = [d for d in fitted if d.tenant == case.asker.tenant]
    want = system.retrieve(case.query, case.asker, case.now_tick, policy)
    for what, asker, now in _variants(case.asker, case.now_tick, policy, mine):
        got: Result = system.retrieve(case.query, asker, now, policy)
        differ(f"answer for {what}", asked(case.query, asker, now, policy, caps), want, got, caps)


def _variants(
    asker: Asker, now: int, policy: Policy, mine: list[Doc]
) -> list[tuple[str, Asker, int]]:
    out = [("another user id", replace(asker, user_id=asker.user_id + "-other"), now)]
    out.append(("an unused barrier", replace(asker, barriers=(*asker.barriers, "kit-unused")), now))
    used = {d.barrier for d in mine}
    idle = tuple(b for b in asker.barriers if b not in used)
    if idle:
        kept = tuple(b for b in asker.barriers if b not in idle)
        out.append((f"dropping unused barriers {idle}", replace(asker, barriers=kept), now))
    rank = CLASSIFICATIONS.index(asker.max_classification)
    above = [CLASSIFICATIONS.index(d.classification) for d in mine]
    top = min([r for r in above if r > rank], default=len(CLASSIFICATIONS)) - 1
    if top > rank:
        raised = replace(asker, max_classification=CLASSIFICATIONS[top])
        out.append((f"clearance {CLASSIFICATIONS[top]}", raised, now))
    sides = [fresh(d, now, policy) for d in mine]
    for shift in (1, 2, 5, 13, 40):
        if now + shift > LAST_TICK:  # a tick is a 64-bit signed integer: none comes later
            break
        if [fresh(d, now + shift, policy) for d in mine] == sides:
            out.append((f"now_tick {now + shift}", asker, now + shift))
            break
    return out


@invariant(
    "STAT-004",
    cases=lambda: programs(steps=("delete", "delete", "new")),
    requires=("delete", "scores"),
)
def deleted_leave_no_statistic(factory: Factory, case: Program) -> None:
    """Deleted documents leave no statistic

    After deletes, every score equals that of a fresh system that never saw the deleted
    documents: their terms, lengths and vectors are gone from every statistic."""
    run_program(factory, case, _SCORES)
