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
