"""Lifecycle invariants: upserts, refused writes, deletes and tenants sharing doc ids."""

from __future__ import annotations

from ragward.conformance.contract import Factory
from ragward.conformance.invariant import invariant
from ragward.conformance.stateful import ALONE, CHECKS, run_program
from ragward.conformance.strategies import TENANTS, Program, programs

__all__ = [
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
    "LIFE-001",
    "lifecycle",
    "Upsert replaces the previous version",
    case_type=Program,
    cases=lambda: programs(steps=("reversion", "reclassify")),
    requires=("versions",),
)
def upsert_replaces(factory: Factory, case: Program) -> None:
    """A newer version is accepted (``ingest`` returns True) and replaces every chunk of
    the previous one: after each step, hits and audit counts equal those of a fresh system
    holding only the live versions — nothing of the old version is left, nothing of the
    new one is missing."""
    run_program(factory, case, _ANSWER)


@invariant(
    "LIFE-002",
    "lifecycle",
    "Same or older versions are refused and change nothing",
    case_type=Program,
    cases=lambda: programs(steps=("stale", "stale", "reversion")),
    requires=("versions",),
)
def old_versions_refused(factory: Factory, case: Program) -> None:
    """Re-ingesting the live version or an older one (with other text, classification or
    tick) returns False, and afterwards hits, scores and counts are exactly those of a
    fresh system holding the live versions: an out-of-order write never overwrites newer
    data, nor leaves a trace."""
    run_program(factory, case, _ANSWER | {"fresh-scores"})


@invariant(
    "LIFE-003",
    "lifecycle",
    "Delete removes from results and counts",
    case_type=Program,
    cases=lambda: programs(steps=("delete", "revive", "revive", "new")),
    requires=("delete",),
)
def delete_removes(factory: Factory, case: Program) -> None:
    """After ``delete(tenant, doc_id)``, hits and audit counts equal those of a fresh system
    that never saw the document: none of its chunks is retrieved or counted."""
    run_program(factory, case, _ANSWER | {"counts"})


@invariant(
    "LIFE-004",
    "lifecycle",
    "Tenants sharing a doc id are independent",
    case_type=Program,
    cases=lambda: programs(tenants=TENANTS[:2]),
)
def tenants_independent(factory: Factory, case: Program) -> None:
    """Writes, re-versions and deletes of ``(tenant B, d1)`` never touch ``(tenant A, d1)``:
    versions are checked per ``(tenant, doc_id)`` (B's v5 does not make A's v2 "old"), and
    every answer equals that of a fresh system holding the asker's tenant's live
    documents alone."""
    run_program(factory, case, ALONE)


@invariant(
    "LIFE-005",
    "lifecycle",
    "Random programs keep the model",
    case_type=Program,
    cases=programs,
)
def random_programs(factory: Factory, case: Program) -> None:
    """A random program of ingests, re-versions, reclassifications, stale writes, deletes
    and retrievals by several principals (the case-based form of the kit's
    ``LifecycleMachine``) is checked after every step against a simple model: each write
    is taken exactly when it must be, every hit traces to a live version in the asker's
    eligible view, the audit counts are consistent, and the answer equals that of a fresh
    system holding the live documents."""
    run_program(factory, case, CHECKS)
