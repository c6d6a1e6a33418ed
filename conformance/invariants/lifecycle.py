"""Lifecycle invariants: upserts, refused writes, deletes and tenants sharing doc ids."""

from __future__ import annotations

from dataclasses import replace

from ragward.conformance.answer_diff import asked, differ
from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.programs import Churn, Program, churns, programs
from ragward.conformance.stateful import ALONE, CHECKS, run_program
from ragward.conformance.strategies import TENANTS, restamp
from ragward.conformance.view import bare_too, build, fit_doc, fit_policy, label

__all__ = [
    "churn_leaves_no_trace",
    "delete_removes",
    "old_versions_refused",
    "random_programs",
    "tenants_independent",
    "upsert_replaces",
]

#: Every step checked against the model and against a fresh system: ids, scores (bare
#: lexical ones too) and counts.
_ANSWER = frozenset({"writes", "hits", "fresh-ids", "fresh-scores", "fresh-counts"})


@invariant(
    "LIFE-001", cases=lambda: programs(steps=("reversion", "reclassify")), requires=("versions",)
)
def upsert_replaces(factory: Factory, case: Program) -> None:
    """Upsert replaces the previous version

    A newer version is accepted (``ingest`` returns True) and replaces every chunk of
    the previous one: after each step, hits and audit counts equal those of a fresh system
    holding only the live versions — nothing of the old version is left, nothing of the
    new one is missing."""
    run_program(factory, case, _ANSWER)


@invariant(
    "LIFE-002",
    cases=lambda: programs(steps=("stale", "stale", "reversion")),
    requires=("versions",),
)
def old_versions_refused(factory: Factory, case: Program) -> None:
    """Same or older versions are refused and change nothing

    Re-ingesting the live version or an older one (with other text, classification or
    tick) returns False, and afterwards hits, scores and counts are exactly those of a
    fresh system holding the live versions: an out-of-order write never overwrites newer
    data, nor leaves a trace."""
    run_program(factory, case, _ANSWER | {"fresh-scores"})


@invariant(
    "LIFE-003",
    cases=lambda: programs(steps=("delete", "revive", "revive", "new")),
    requires=("delete",),
)
def delete_removes(factory: Factory, case: Program) -> None:
    """Delete removes from results and counts

    After ``delete(tenant, doc_id)``, hits and audit counts equal those of a fresh system
    that never saw the document: none of its chunks is retrieved or counted."""
    run_program(factory, case, _ANSWER | {"counts"})


@invariant("LIFE-004", cases=lambda: programs(tenants=TENANTS[:2]))
def tenants_independent(factory: Factory, case: Program) -> None:
    """Tenants sharing a doc id are independent

    Writes, re-versions and deletes of ``(tenant B, d1)`` never touch ``(tenant A, d1)``:
    versions are checked per ``(tenant, doc_id)`` (B's v5 does not make A's v2 "old"), and
    every answer equals that of a fresh system holding the asker's tenant's live
    documents alone."""
    run_program(factory, case, ALONE)


@invariant("LIFE-005", cases=programs)
def random_programs(factory: Factory, case: Program) -> None:
    """Random programs keep the model

    A random program of ingests, re-versions, reclassifications, stale writes, deletes
    and retrievals by several principals (the case-based form of the kit's
    ``LifecycleMachine``) is checked after every step against a simple model: each write
    is taken exactly when it must be, every hit traces to a live version in the asker's
    eligible view, the audit counts are consistent, and the answer equals that of a fresh
    system holding the live documents."""
    run_program(factory, case, CHECKS)


@invariant("LIFE-006", cases=churns, requires=("versions",))
def churn_leaves_no_trace(factory: Factory, case: Churn) -> None:
    """A thousand rewrites leave no trace

    One document written first, then a small corpus, then the document's next thousand
    versions (past the point where an index compacts or merges its dead rows: the
    reference's at 1024, when live rows sit behind dead ones), then — where the
    adapter deletes — one document deleted and another replaced, and a third, deleted
    before the churn, written again in a newer version: every answer, hits,
    scores and counts, bare in each mode too, is exactly that of a fresh system holding
    only the live versions. Compaction that loses a barrier, a classification, a row's
    place or a delete shows here; so do statistics that keep the dead versions."""
    system = factory()
    caps = system.capabilities
    # Its first version before the corpus, so that live rows sit behind dead ones.
    first = fit_doc(case.version(1), caps)
    live = {(d.tenant, d.doc_id): fit_doc(d, caps) for d in case.docs}
    for doc in (first, *live.values()):
        if system.ingest(doc) is not True:
            raise Violation(f"ingest of new document {label(doc)} was refused")
    mine = [key for key in live if key[0] == case.asker.tenant]
    # A document deleted before the churn: a compaction must forget its rows.
    gone = live.pop(mine[2]) if caps.delete else None
    if gone is not None:
        system.delete(gone.tenant, gone.doc_id)
    for number in range(2, case.rewrites + 1):
        doc = fit_doc(case.version(number), caps)
        if system.ingest(doc) is not True:
            raise Violation(f"ingest of {label(doc)} over version {number - 1} was refused")
    live[(case.churned.tenant, case.churned.doc_id)] = fit_doc(case.churned, caps)
    # Writes after the churn, on rows a compaction has moved; the deleted one comes back
    # in a newer version, and none of its old chunks with it.
    if gone is not None:
        back = restamp(replace(gone, version=gone.version + 1, text=gone.text + " churn5 q3"))
        if system.ingest(back) is not True:
            raise Violation(f"ingest of {label(back)} after its delete was refused")
        live[mine[2]] = back
    if caps.delete:
        system.delete(*mine[0])
        del live[mine[0]]
    old = live[mine[1]]
    new = restamp(replace(old, version=old.version + 1, text=old.text + " churn3 wire"))
    if system.ingest(new) is not True:
        raise Violation(f"ingest of {label(new)} after the churn was refused")
    live[mine[1]] = new
    fresh = build(factory, live.values())
    policy = fit_policy(case.policy, caps)
    question = (case.query, case.asker, case.now_tick)
    for each in bare_too(policy, caps):
        differ(
            f"answer after {case.rewrites} versions of {label(case.churned)} vs a fresh system",
            asked(*question, each, caps),
            fresh.retrieve(*question, each),
            system.retrieve(*question, each),
            caps,
        )
