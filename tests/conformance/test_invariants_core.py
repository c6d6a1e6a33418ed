"""The isolation, pre-filter, statistics, lifecycle and determinism invariants hold for the
reference; their cases survive a round trip through data; the lifecycle state machine runs."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import LEVELS, REGISTRY, Invariant
from ragward.conformance.records import from_data, to_data
from ragward.conformance.runner import run_invariant
from ragward.conformance.stateful import machine_for
from ragward.conformance.strategies import fingerprint, fingerprints_in, stamp
from ragward.engines.reference import reference_factory

CORE = ("ISO-", "PRE-", "STAT-", "LIFE-", "DET-")
INVARIANTS: list[Invariant] = [inv for inv in REGISTRY.values() if inv.id.startswith(CORE)]


def test_enough_core_invariants_with_valid_levels() -> None:
    assert len(INVARIANTS) >= 15
    for inv in INVARIANTS:
        assert inv.level in LEVELS
        assert inv.doc
        assert inv.title


@pytest.mark.parametrize("inv", INVARIANTS, ids=lambda inv: inv.id)
def test_reference_passes(inv: Invariant) -> None:
    verdict = run_invariant(inv, reference_factory, profile="ci")
    assert verdict.status == "pass", (verdict.reason, verdict.counterexample)
    assert verdict.examples > 0


@pytest.mark.parametrize("inv", INVARIANTS, ids=lambda inv: inv.id)
def test_cases_round_trip_through_data(inv: Invariant) -> None:
    @settings(max_examples=10, deadline=None, database=None, derandomize=True)
    @given(inv.cases())
    def round_trip(case: Any) -> None:
        assert isinstance(case, inv.case_type)
        assert from_data(inv.case_type, to_data(case)) == case

    round_trip()


@given(st.sampled_from(("acme", "globex")), st.sampled_from(("d1", "a::b")), st.integers(1, 9))
def test_fingerprints_are_found_and_distinct(tenant: str, doc_id: str, version: int) -> None:
    text = stamp("§ payment\n\n## Hold\n§ ledger", tenant, doc_id, version)
    assert fingerprints_in(text) == {fingerprint(tenant, doc_id, version)}
    assert fingerprint(tenant, doc_id, version) != fingerprint(tenant, doc_id, version + 1)
    assert fingerprint(tenant, doc_id, version) != fingerprint("initech", doc_id, version)


Lifecycle = machine_for(reference_factory)
Lifecycle.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestLifecycleOnReference = Lifecycle.TestCase


def test_another_tenant_s_chunk_under_a_repeated_id_is_said_as_the_leak() -> None:
    # LlamaIndex returned acme's d1::1 and globex's d1::1 to an acme asker: a leak, which
    # the kit once reported as a repeated id.
    from ragward.conformance.invariant import Violation
    from ragward.conformance.records import Asker, Doc, Hit, Policy, Result
    from ragward.conformance.view import check_hits

    mine = Doc(tenant="acme", doc_id="d1", text="q")
    theirs = Doc(tenant="globex", doc_id="d1", text="qx")
    hits = (Hit("d1::1", "d1", 1, 0, 1, "q", 0.03), Hit("d1::1", "d1", 1, 0, 2, "qx", 0.01))
    asker = Asker("u1", "acme", "internal")
    live = {("acme", "d1"): mine, ("globex", "d1"): theirs}
    with pytest.raises(Violation) as leak:
        check_hits(Result(hits), asker, 0, Policy(), live, [mine, theirs])
    assert "its text 'qx' is not from that document" in str(leak.value)
    assert str(leak.value).endswith("(its text belongs to globex/d1 v1)")
    with pytest.raises(Violation, match="returned twice"):
        check_hits(Result(hits[:1] * 2), asker, 0, Policy(), live, [mine, theirs])
