"""Isolation invariants: nothing outside the asker's eligible view, ever."""

from __future__ import annotations

from dataclasses import replace

from ragward.conformance.answer_diff import asked, differ
from ragward.conformance.contract import Factory
from ragward.conformance.floods import Flooded, flooded
from ragward.conformance.hostile import hostile_programs
from ragward.conformance.invariant import invariant
from ragward.conformance.programs import Program, programs
from ragward.conformance.records import Asker
from ragward.conformance.stateful import run_program
from ragward.conformance.strategies import BARRIERS, Scene, scenes
from ragward.conformance.view import bare_too, build, check_hits, live_of, prepare

__all__ = [
    "deleted_never_return",
    "hostile_identifiers_stay_apart",
    "reclassification_takes_effect",
    "superseded_never_return",
    "tenants_sharing_doc_ids",
    "within_eligible_view",
]

_HITS = frozenset({"hits"})
#: Writes taken or refused per identity, hits traced, counts, and nothing named missing.
_IDENTITY = frozenset({"writes", "hits", "counts", "found"})


@invariant("ISO-001", cases=flooded)
def within_eligible_view(factory: Factory, case: Flooded) -> None:
    """No hit outside the eligible view

    Every hit resolves, by the asker's tenant and the hit's ``doc_id``, to a document the
    kit ingested; its version is that document's, its text comes from that document (and
    carries no other document's fingerprint), and the document is in the asker's eligible
    view E(P, t): their tenant, a classification within their clearance, no barrier or one
    they are inside, fresh under the policy. The corpus reuses ``doc_id``\\ s across
    tenants and floods the namespace with restricted, barred and stale copies of the query,
    so a post-filter, a shared namespace or a forgotten check shows up as a hit that
    cannot be traced into the view. A privileged colleague asks the same question first,
    so that a cache keyed without the asker's view is caught too."""
    scene = case.scene
    docs = [doc for doc, _ in case.merged()]
    system, _, fitted, policy = prepare(factory, docs, scene.policy)
    # A privileged colleague asks first: a cache keyed without the asker's view leaks.
    chief = Asker("kit-chief", scene.asker.tenant, "restricted", (*BARRIERS, "flood-barrier"))
    system.retrieve(scene.query, chief, scene.now_tick, replace(policy, max_stale_ticks=None))
    result = system.retrieve(scene.query, scene.asker, scene.now_tick, policy)
    check_hits(result, scene.asker, scene.now_tick, policy, live_of(fitted), fitted)


@invariant("ISO-002", cases=scenes)
def tenants_sharing_doc_ids(factory: Factory, case: Scene) -> None:
    """Tenants sharing doc ids neither see nor move each other

    A tenant's answer — hits, scores and audit counts — is exactly what it would be if
    no other tenant existed, although other tenants use the same ``doc_id``\\ s, versions
    and near-identical texts; and each hit traces to the asker's own tenant."""
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    result = system.retrieve(case.query, case.asker, case.now_tick, policy)
    check_hits(result, case.asker, case.now_tick, policy, live_of(fitted), fitted)
    alone = build(factory, [d for d in fitted if d.tenant == case.asker.tenant])
    # The drawn policy, then every mode bare (rerank off), where first-stage scores show.
    for each in bare_too(policy, caps):
        result = system.retrieve(case.query, case.asker, case.now_tick, each)
        other = alone.retrieve(case.query, case.asker, case.now_tick, each)
        differ(
            f"answer to {case.asker.tenant!r} alone vs among other tenants",
            asked(case.query, case.asker, case.now_tick, each, caps),
            other,
            result,
            caps,
        )


@invariant(
    "ISO-003",
    cases=lambda: programs(steps=("delete", "delete", "new", "revive")),
    requires=("delete",),
)
def deleted_never_return(factory: Factory, case: Program) -> None:
    """Deleted documents never come back

    After ``delete(tenant, doc_id)``, no retrieval by anyone returns a chunk of the
    deleted document — not under its ``doc_id``, nor its text under another — even when
    the query names its words or its fingerprint; other tenants' documents with the same
    ``doc_id`` are untouched. Checked after every step of a program of writes, deletes
    and retrievals by several principals."""
    run_program(factory, case, _HITS)


@invariant(
    "ISO-004",
    cases=lambda: programs(steps=("reversion", "reversion", "stale")),
    requires=("versions",),
)
def superseded_never_return(factory: Factory, case: Program) -> None:
    """Superseded versions never come back

    Once a newer version of a document is ingested, every hit of that document is of
    the newer version, and no text of an older version (traced by its fingerprint) is
    returned, even to a query made of the old version's words."""
    run_program(factory, case, _HITS)


@invariant("ISO-005", cases=lambda: programs(steps=("reclassify",)), requires=("versions",))
def reclassification_takes_effect(factory: Factory, case: Program) -> None:
    """Reclassification takes effect at once

    A new version of a document with the same text but another classification, barrier
    or tick is judged by its new labels alone: a principal who could read the old version
    and cannot read the new one gets nothing of the document."""
    run_program(factory, case, _HITS)


@invariant("ISO-006", cases=hostile_programs)
def hostile_identifiers_stay_apart(factory: Factory, case: Program) -> None:
    """Hostile identifiers never share a document

    Identifiers are opaque: tenants, ``doc_id``\\ s, barriers and questions drawn from
    hostile alphabets — separators (``:``, ``::``, ``/``, ``\\x00``, ``|``, quotes,
    backslashes), unicode confusables and normalisation twins, case and width twins,
    trailing spaces and NULs, escapes, ids of hundreds of characters that differ at the
    end — never make two documents of different identity share storage, results or
    versions. Documents come in pairs a lossy key merges (tenant ``a`` / ``b\\x00c`` and
    ``a\\x00b`` / ``c``; ``café`` in NFC and NFD; ``p1`` v2 and ``p`` v12; a barrier
    ``b,c`` beside an asker inside ``b`` and ``c``), the first at the higher version; each
    side's principals ask for both by fingerprint, then each side is rewritten and one of
    the pair deleted. Every write is taken or refused by its own identity's versions
    alone, every hit traces to the asker's own tenant and view, the counts hold, and a
    live document in view that a question names comes back whenever a fresh system
    holding it alone answers with it (and the answer has room)."""
    run_program(factory, case, _IDENTITY)
