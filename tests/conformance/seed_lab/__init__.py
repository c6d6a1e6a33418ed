"""The seed lab's reference solution as a test subject of the kit, and its verdict.

:mod:`.solution` is a verbatim copy of the teaching solution ragward was specified from;
:mod:`.adapter` puts it behind the kit's contract. ``SPEC.md`` says where ragward is
stricter than it, so the kit must fail it on exactly those points and pass it where the
solution is right. :data:`EXPECTED_FAILS` is that verdict, committed: per level, the
invariants the ``ci`` profile fails (one line each on why); every other invariant passes
or, for :data:`NOT_APPLICABLE`, is n/a because the solution cannot be asked (no delete,
a single hybrid mode, no ``rrf_k`` or rerank floor, no document-counted limits).
``tests/conformance/test_kill_matrix.py`` runs the kit and compares.
"""

from __future__ import annotations

__all__ = ["ACCOUNTING", "CLAIMS_KEPT", "EXPECTED_FAILS", "FAILING_LEVELS", "NOT_APPLICABLE"]

#: Per level, the invariants the seed lab's solution fails, and why (SPEC.md's words).
EXPECTED_FAILS: dict[str, dict[str, str]] = {
    "isolation": {
        # Not cross-tenant: ingest appends, so a superseded version stays retrievable.
        "ISO-004": "re-ingesting v2 leaves v1's chunks in both indexes; v1 comes back",
        "ISO-005": "a reclassified v2 leaves v1 (old classification) retrievable",
        # Not the ids: its stores key by tenant and keep lists, but every write is taken.
        "ISO-006": "a late, older write under a hostile id is accepted (as LIFE-002)",
    },
    "prefilter": {
        "PRE-001": "rankings cut at candidate_limit before filtering: invisible chunks take slots",
        "PRE-002": "an invisible chunk counted once per ranking: eligible matches go negative",
        "PRE-003": "one hidden matching chunk moves excluded_by_entitlement by 2",
        "PRE-004": "excluded_by_entitlement exceeds considered (double counting)",
        "PRE-005": "a flood of invisible matches leaves a low-clearance user with no hits",
    },
    "statistics": {
        "STAT-001": "BM25 N, avgdl and df over the whole namespace: invisible chunks move scores",
        "STAT-002": "superseded versions stay in the index and in its statistics",
    },
    "lifecycle": {
        "LIFE-001": "ingest is not an upsert: the old version's chunks stay",
        "LIFE-002": "same or older versions are accepted, never refused",
        "LIFE-004": "audit counts double-count (excluded > considered)",
        "LIFE-005": "audit counts double-count (excluded > considered)",
        "LIFE-006": "ingest appends: 1,099 superseded versions stay in the answer's statistics",
    },
    "determinism": {},
    "provenance": {
        "PROV-001": "chunk text re-joined with single spaces: text[start:end] is not the hit",
        "PROV-002": "hits still cite v1 after v2 was ingested",
        "PROV-003": "spans are not verbatim slices (whitespace normalised)",
        "PROV-005": "offsets ignore stripped leading whitespace: span text != doc[start:end]",
    },
    "fusion": {
        "FUS-002": "RRF sums in ranking order: permuted rankings round differently",
    },
    "assembly": {
        "ASM-006": "a '[instructions]' line inside a segment is copied as a forged header",
    },
    "grounding": {
        "GRD-001": "a claim with no content word is 'supported' with no evidence chunk",
        "GRD-002": "a claim with no content word is 'supported' though nothing backs it",
        "GRD-004": "equal overlaps go to the first chunk in the given order",
        "GRD-005": "of two identical chunks, the first in the given order is cited",
    },
}

#: Levels the issue says the solution fails: at least one invariant each.
FAILING_LEVELS: tuple[str, ...] = ("prefilter", "statistics", "lifecycle", "provenance")

#: The accounting invariants (audit counts, each chunk once), which the issue says it fails.
ACCOUNTING: tuple[str, ...] = ("PRE-002", "PRE-003", "PRE-004")

#: What the issue says the solution keeps: no cross-tenant leakage, budget never exceeded,
#: question never dropped, deterministic ties (the whole determinism level passes).
CLAIMS_KEPT: dict[str, tuple[str, ...]] = {
    "cross-tenant isolation": ("ISO-001", "ISO-002"),
    "budget": ("ASM-001",),
    "question kept": ("ASM-002",),
    "ties": ("DET-001", "DET-002", "DET-003"),
}

#: Invariants the solution cannot be asked about, given the capabilities it declares.
NOT_APPLICABLE: frozenset[str] = frozenset(
    {
        "ISO-003",  # delete
        "STAT-004",  # delete
        "LIFE-003",  # delete
        "DEPTH-001",  # document_limits, policy_knobs
        "DET-004",  # policy_knobs
        "FUS-004",  # lexical, dense, policy_knobs
        "FUS-005",  # policy_knobs
        "FUS-006",  # policy_knobs
    }
)
