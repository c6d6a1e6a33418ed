"""The default shrink budget counts steps: the same run ends at the same case."""

from __future__ import annotations

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import REGISTRY
from ragward.conformance.runner import PROFILES, SHRINK_STEPS_PER_EXAMPLE, run_invariant
from tests.conformance.broken import BROKEN


def test_the_default_budget_stops_after_its_steps_at_the_same_case() -> None:
    shared = BROKEN["shared-namespace"][0]
    first = run_invariant(REGISTRY["ISO-003"], shared)
    again = run_invariant(REGISTRY["ISO-003"], shared)
    steps = PROFILES["ci"] * SHRINK_STEPS_PER_EXAMPLE
    assert first.status == "fail"
    assert first.shrink_steps == steps
    # the minimiser goes on from there, to its end: no budget ended the case reported
    assert first.minimised is not None
    assert first.minimised[1]
    assert "budget" not in first.reason
    assert (again.counterexample, again.reason) == (first.counterexample, first.reason)


def test_a_budget_in_seconds_replaces_the_steps() -> None:
    verdict = run_invariant(REGISTRY["ISO-003"], BROKEN["shared-namespace"][0], shrink_budget=60)
    assert verdict.status == "fail"
    assert verdict.shrink_steps > PROFILES["ci"] * SHRINK_STEPS_PER_EXAMPLE
    assert "budget" not in verdict.reason
