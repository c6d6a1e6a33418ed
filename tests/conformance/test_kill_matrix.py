"""The kit tested: every broken implementation is killed on the invariants aimed at its
defect, and the reference passes everything.

Each broken system of :mod:`tests.conformance.broken` runs against the invariants of its
expected levels (``ci`` profile, no shrinking, to keep this fast); at least one must
*fail* — an ``error`` means the kit or the double crashed, which proves nothing — and
every failing one must be among those the catalogue aims at the defect.
``python -m tests.conformance.kill_matrix --all`` runs every invariant against every system
and writes the matrix to ``reports/conformance/kill_matrix.md``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance import LEVELS, REGISTRY, records, run_conformance
from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.errors import BudgetError
from ragward.reference import neutralise

from .broken import BROKEN, aimed, kill_row
from .broken_assembly import assemble_with, joined_size
from .broken_first_stage import CustomFirstStage

_WORDS = ("payment", "held", "screening", "acme", "fee", "release", "hold", "the")
_TEXTS = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(" ".join)
_DOCS = st.builds(
    records.Doc,
    tenant=st.sampled_from(("acme", "beta")),
    doc_id=st.sampled_from(("a", "b", "c", "d")),
    text=_TEXTS,
    classification=st.sampled_from(("public", "internal", "confidential", "restricted")),
    barrier=st.sampled_from((None, "deal")),
    version=st.integers(1, 3),
    updated_tick=st.integers(0, 10),
)
_POLICIES = st.builds(
    records.Policy,
    mode=st.sampled_from(("hybrid", "lexical", "dense")),
    rerank=st.booleans(),
    candidate_limit=st.integers(1, 6),
    result_limit=st.integers(1, 4),
    max_stale_ticks=st.none() | st.integers(0, 5),
)
_ASKERS = st.sampled_from(
    (
        records.Asker("u", "acme", "internal"),
        records.Asker("boss", "acme", "restricted", ("deal",)),
        records.Asker("x", "beta", "public"),
    )
)
_HITS = st.builds(
    records.Hit,
    chunk_id=st.sampled_from(("a::1", "b::1", "c::2")),
    doc_id=st.just("a"),
    version=st.just(1),
    start=st.just(0),
    end=st.just(3),
    text=st.text(max_size=40),
    score=st.just(1.0),
    citation=st.just("a@v1#body[0:3]"),
)
_REQUESTS = st.builds(
    records.AssembleRequest,
    budget_tokens=st.integers(1, 80),
    instructions=st.text(max_size=30),
    question=st.text(min_size=1, max_size=30).filter(str.strip),
    tool_schemas=st.text(max_size=10),
    policy=st.text(max_size=10),
    memory=st.text(max_size=10),
    retrieved=st.lists(_HITS, max_size=4).map(tuple),
)


def test_the_catalogue_is_large_and_documented() -> None:
    assert len(BROKEN) >= 12
    for name, (factory, expected) in BROKEN.items():
        assert (factory.__doc__ or "").strip(), f"{name} has no docstring"
        assert expected, f"{name} names no level or invariant"
        unknown = [e for e in expected if e not in LEVELS and e not in REGISTRY]
        assert unknown == [], f"{name}: unknown level or invariant {unknown}"


#: The defects of a retriever built the simple way (rank the namespace, cut, then filter;
#: append on ingest; re-join chunk words), each with a catalogue entry that carries it and
#: the invariant that entry must be aimed at. ``test_the_kit_kills`` proves each is killed.
_SIMPLE_RETRIEVER_DEFECTS: dict[str, tuple[str, str]] = {
    "filtering after the top-k cut": ("post-filter", "PRE-001"),
    "BM25 statistics over the whole namespace": ("namespace-statistics", "STAT-001"),
    "a withheld chunk counted once per index": ("double-counted", "PRE-002"),
    "superseded versions left retrievable": ("stale-versions", "ISO-004"),
    "superseded versions left in the statistics": ("stale-versions", "STAT-002"),
    "older or equal versions accepted": ("older-version-accepted", "LIFE-002"),
    "spans of whitespace-normalised text": ("whitespace-citations", "PROV-005"),
    "RRF rounding that follows the rankings' order": ("rrf-sum-in-order", "FUS-002"),
    "forged segment headers copied through": ("headers-not-neutralised", "ASM-006"),
    "a claim with no content word supported": ("empty-claim-covered", "GRD-002"),
    "grounding ties broken by position": ("grounding-ties-by-order", "GRD-005"),
    # Issue 35: a heap's top-k then sorted, a reranker fed the top of the list.
    "a tie at the candidate cut settled by ingestion order": ("cut-tie-by-ingestion", "DET-006"),
    "a first stage one candidate short": ("dense-candidates-one-short", "DET-007"),
    "rankings fused only up to result_limit": ("fusion-reads-result-limit", "FUS-004"),
    "rerank over the first result_limit candidates only": ("rerank-sees-result-limit", "FUS-008"),
    "assembly of the first few hits only": ("assembly-reads-eight", "ASM-008"),
}


def test_the_catalogue_carries_each_defect_of_a_simple_retriever() -> None:
    registry = [(inv.id, inv.level) for inv in REGISTRY.values()]
    for defect, (name, invariant) in _SIMPLE_RETRIEVER_DEFECTS.items():
        assert name in BROKEN, f"{defect}: no catalogue entry {name!r}"
        assert invariant in aimed(BROKEN[name][1], registry), f"{defect}: {name} vs {invariant}"


@given(st.lists(_DOCS, max_size=10), _ASKERS, _TEXTS, _POLICIES, st.integers(0, 12))
def test_the_first_stage_double_without_a_defect_is_the_reference(
    docs: list[records.Doc], asker: records.Asker, query: str, policy: records.Policy, now: int
) -> None:
    # The doubles that re-implement the first stage carry their one defect and no other.
    reference, double = ReferenceSystem(), CustomFirstStage()
    for doc in docs:
        assert reference.ingest(doc) == double.ingest(doc)
    want = reference.retrieve(query, asker, now, policy)
    assert double.retrieve(query, asker, now, policy) == want


@given(_REQUESTS)
def test_the_assembler_double_without_a_defect_is_the_reference(
    prompt: records.AssembleRequest,
) -> None:
    try:
        want: records.Context | None = ReferenceSystem().assemble(prompt)
    except BudgetError:
        want = None
    if want is None:
        with pytest.raises(BudgetError):
            assemble_with(prompt, measure=joined_size, escape=neutralise)
    else:
        assert assemble_with(prompt, measure=joined_size, escape=neutralise) == want


def test_the_reference_passes_everything() -> None:
    report = run_conformance(reference_factory, profile="ci")
    bad = [(v.id, v.status, v.reason) for v in report.verdicts if v.status not in ("pass", "n/a")]
    assert bad == []
    assert report.counts()["pass"] >= 25


@pytest.mark.parametrize("name", list(BROKEN))
def test_the_kit_kills(name: str) -> None:
    row = kill_row(name, profile="ci")
    assert row.ran, f"no invariant of {row.expected} is registered"
    assert row.errored == (), f"{name}: invariants errored instead of failing: {row.errored}"
    assert row.caught, f"{name} ({row.defect}) is not caught by any of {row.aimed}"
    assert row.stray == (), f"{name} fails invariants not aimed at its defect: {row.stray}"
