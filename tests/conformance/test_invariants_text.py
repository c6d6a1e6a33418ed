"""The provenance, fusion, assembly and grounding invariants, run against the reference.

The reference goes through :mod:`ragward.engines.reference`, the door every implementation uses,
and must pass every invariant; each case type survives the trip to data and back, so a
counterexample can be stored and replayed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import REGISTRY, Invariant, Violation
from ragward.conformance.invariants.fusion import FuseCase, rrf_formula
from ragward.conformance.records import from_data, to_data
from ragward.conformance.runner import replay, run_invariant
from ragward.engines.reference import reference_factory

LEVELS = ("provenance", "fusion", "assembly", "grounding")
TEXT_INVARIANTS = sorted(inv.id for inv in REGISTRY.values() if inv.level in LEVELS)


def test_enough_text_invariants() -> None:
    assert len(TEXT_INVARIANTS) >= 12
    for level in LEVELS:
        assert any(REGISTRY[i].level == level for i in TEXT_INVARIANTS), level


@pytest.mark.parametrize("invariant_id", TEXT_INVARIANTS)
def test_reference_passes(invariant_id: str) -> None:
    verdict = run_invariant(REGISTRY[invariant_id], reference_factory, profile="ci")
    assert verdict.status == "pass", verdict
    assert verdict.examples > 0


@pytest.mark.parametrize("invariant_id", TEXT_INVARIANTS)
def test_cases_round_trip_through_data_and_replay(invariant_id: str) -> None:
    invariant: Invariant = REGISTRY[invariant_id]

    @settings(max_examples=6, database=None, suppress_health_check=list(HealthCheck))
    @given(invariant.cases())
    def round_trip(case: Any) -> None:
        assert isinstance(case, invariant.case_type)
        data = json.loads(json.dumps(to_data(case)))
        assert from_data(invariant.case_type, data) == case
        replay(reference_factory, invariant_id, data)

    round_trip()


class _ZeroBasedFusion:
    """Counts RRF ranks from 0: the kind of slip FUS-001 exists to catch."""

    def fuse(
        self, rankings: tuple[tuple[str, ...], ...], k: float
    ) -> tuple[tuple[str, float], ...]:
        scores: dict[str, float] = {}
        for ranking in rankings:
            for rank, chunk_id in enumerate(ranking):
                scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + rank)
        return tuple(sorted(scores.items(), key=lambda pair: (-pair[1], pair[0])))


def test_rrf_hand_worked() -> None:
    # b: 1/(60+2) + 1/(60+1); a: 1/(60+1); c: 1/(60+2)
    case = FuseCase((("a", "b"), ("b", "c")), 60, (1, 0), "d", 0)
    fused = dict(reference_factory().fuse(case.rankings, case.k))
    assert fused == pytest.approx({"b": 1 / 62 + 1 / 61, "a": 1 / 61, "c": 1 / 62}, abs=1e-15)
    rrf_formula(reference_factory, case)
    with pytest.raises(Violation, match="fused score of"):
        rrf_formula(_ZeroBasedFusion, case)  # type: ignore[arg-type]
