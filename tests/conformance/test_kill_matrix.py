"""The kit tested: every broken implementation is killed on the invariants aimed at its
defect, and the reference passes everything.

Each broken system of :mod:`tests.conformance.broken` runs against the invariants of its
expected levels (``ci`` profile, no shrinking, to keep this fast); at least one must
*fail* — an ``error`` means the kit or the double crashed, which proves nothing — and
every failing one must be among those the catalogue aims at the defect. The seed lab's
reference solution (:mod:`tests.conformance.seed_lab`, a verbatim copy behind an adapter)
gets the verdict committed in :data:`~tests.conformance.seed_lab.EXPECTED_FAILS`, level
by level. ``python tools/kill_matrix.py --all`` runs every invariant against every system and
writes the matrix to ``reports/conformance/kill_matrix.md``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance import (
    LEVELS,
    REGISTRY,
    Asker,
    AssembleRequest,
    Context,
    Doc,
    Hit,
    Policy,
    run_conformance,
)
from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.errors import BudgetError
from ragward.reference import neutralise

from .broken import BROKEN, _assemble, _CustomFirstStage, _joined_size, kill_row
from .seed_lab import ACCOUNTING, CLAIMS_KEPT, EXPECTED_FAILS, FAILING_LEVELS, NOT_APPLICABLE
from .seed_lab.adapter import factory as seed_lab_factory

_WORDS = ("payment", "held", "screening", "acme", "fee", "release", "hold", "the")
_TEXTS = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(" ".join)
_DOCS = st.builds(
    Doc,
    tenant=st.sampled_from(("acme", "beta")),
    doc_id=st.sampled_from(("a", "b", "c", "d")),
    text=_TEXTS,
    classification=st.sampled_from(("public", "internal", "confidential", "restricted")),
    barrier=st.sampled_from((None, "deal")),
    version=st.integers(1, 3),
    updated_tick=st.integers(0, 10),
)
_POLICIES = st.builds(
    Policy,
    mode=st.sampled_from(("hybrid", "lexical", "dense")),
    rerank=st.booleans(),
    candidate_limit=st.integers(1, 6),
    result_limit=st.integers(1, 4),
    max_stale_ticks=st.none() | st.integers(0, 5),
)
_ASKERS = st.sampled_from(
    (
        Asker("u", "acme", "internal"),
        Asker("boss", "acme", "restricted", ("deal",)),
        Asker("x", "beta", "public"),
    )
)
_HITS = st.builds(
    Hit,
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
    AssembleRequest,
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


@given(st.lists(_DOCS, max_size=10), _ASKERS, _TEXTS, _POLICIES, st.integers(0, 12))
def test_the_first_stage_double_without_a_defect_is_the_reference(
    docs: list[Doc], asker: Asker, query: str, policy: Policy, now: int
) -> None:
    # The doubles that re-implement the first stage carry their one defect and no other.
    reference, double = ReferenceSystem(), _CustomFirstStage()
    for doc in docs:
        assert reference.ingest(doc) == double.ingest(doc)
    want = reference.retrieve(query, asker, now, policy)
    assert double.retrieve(query, asker, now, policy) == want


@given(_REQUESTS)
def test_the_assembler_double_without_a_defect_is_the_reference(prompt: AssembleRequest) -> None:
    try:
        want: Context | None = ReferenceSystem().assemble(prompt)
    except BudgetError:
        want = None
    if want is None:
        with pytest.raises(BudgetError):
            _assemble(prompt, measure=_joined_size, escape=neutralise)
    else:
        assert _assemble(prompt, measure=_joined_size, escape=neutralise) == want


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


# -- the seed lab's reference solution ------------------------------------------------

_SEED_LAB = Path(__file__).parent / "seed_lab" / "solution.py"
_SEED_MARKER = b"# ---- verbatim copy of the seed below this line ----\n"
#: SHA-256 of seeds/001_033c89f1e1ead4e4.txt, the lab's reference solution.
_SEED_SHA256 = "cf356051381dbe9cc3d8d03056c6a0ab6109c5cdd5749b6ebb756839357ad5d7"


def test_the_seed_lab_copy_is_verbatim() -> None:
    header, marker, body = _SEED_LAB.read_bytes().partition(_SEED_MARKER)
    assert marker, "the copy lost its marker line"
    assert all(line.startswith(b"#") for line in header.splitlines()), "code above the copy"
    assert hashlib.sha256(body).hexdigest() == _SEED_SHA256


def test_the_seed_lab_expectation_is_coherent() -> None:
    assert set(EXPECTED_FAILS) == set(LEVELS)
    for level, fails in EXPECTED_FAILS.items():
        assert all(REGISTRY[i].level == level for i in fails), level
    expected = {i for fails in EXPECTED_FAILS.values() for i in fails}
    kept = {i for ids in CLAIMS_KEPT.values() for i in ids}
    assert all(EXPECTED_FAILS[level] for level in FAILING_LEVELS)
    assert set(ACCOUNTING) <= expected
    assert not kept & (expected | NOT_APPLICABLE)
    assert (kept | NOT_APPLICABLE) <= set(REGISTRY)


@pytest.mark.parametrize("level", LEVELS)
def test_the_seed_lab_solution_gets_its_verdict(level: str) -> None:
    # One level per test, so that xdist spreads the run; ci profile, no shrinking.
    chosen = [i for i, inv in REGISTRY.items() if inv.level == level]
    report = run_conformance(
        seed_lab_factory, profile="ci", select=chosen, name="seed-lab", shrink=False
    )
    status = {v.id: v.status for v in report.verdicts}
    reasons = {v.id: v.reason for v in report.verdicts}
    assert {i: reasons[i] for i, s in status.items() if s == "error"} == {}
    failed = {i for i, s in status.items() if s == "fail"}
    unexpected = failed ^ set(EXPECTED_FAILS[level])
    assert unexpected == set(), {i: reasons[i] or "passed" for i in unexpected}
    assert {i for i, s in status.items() if s == "n/a"} == NOT_APPLICABLE & set(chosen)
    for claim, ids in CLAIMS_KEPT.items():
        assert all(status[i] == "pass" for i in ids if i in status), claim
