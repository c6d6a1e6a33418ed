"""The kit's own fusion arithmetic (FUS-004's oracle) and its order check."""

from __future__ import annotations

import math

import pytest

from ragward.conformance.fusion_oracle import TOLERANCE, expected_fusion, near_order

LEX = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
DENSE = [("c", 0.9), ("a", 0.5)]


def test_rrf_is_the_weighted_sum_of_reciprocal_ranks() -> None:
    got = expected_fusion(LEX, DENSE, method="rrf", k=60.0, dense_weight=0.5)
    assert got == {"a": 1 / 61 + 1 / 62, "b": 1 / 62, "c": math.fsum((1 / 63, 1 / 61))}
    weighted = expected_fusion(LEX, DENSE, method="rrf", k=1.0, dense_weight=0.25)
    assert weighted["b"] == pytest.approx(2 * 0.75 / 3)
    assert weighted["c"] == pytest.approx(2 * 0.75 / 4 + 2 * 0.25 / 2)


def test_minmax_maps_each_side_to_unit_range_and_a_missing_item_takes_the_lowest() -> None:
    got = expected_fusion(LEX, DENSE, method="minmax", k=60.0, dense_weight=0.5)
    # lexical: a 1, b 0.5, c 0; dense: c 1, a 0; b is missing from dense: takes 0
    assert got == {"a": 0.5, "b": 0.25, "c": 0.5}
    equal = expected_fusion([("x", 2.0), ("y", 2.0)], [], method="minmax", k=60, dense_weight=0)
    assert equal == {"x": 1.0, "y": 1.0}


def test_zscore_uses_the_population_deviation() -> None:
    got = expected_fusion(LEX, [], method="zscore", k=60.0, dense_weight=0.0)
    deviation = math.sqrt(2 / 3)
    assert got["a"] == pytest.approx(1 / deviation)
    assert got["b"] == pytest.approx(0.0)
    assert got["c"] == pytest.approx(-1 / deviation)
    flat = expected_fusion([("x", 1.0)], [("x", 5.0)], method="zscore", k=60, dense_weight=0.5)
    assert flat == {"x": 0.0}


def test_near_order_lets_near_ties_round_either_way() -> None:
    scores = {"a": 0.5, "b": 0.5 + 1e-13, "c": 0.1}
    assert near_order(["b", "a", "c"], ["a", "b", "c"], scores, TOLERANCE["rrf"])
    assert not near_order(["c", "a", "b"], ["a", "b", "c"], scores, TOLERANCE["rrf"])
    assert not near_order(["a", "b"], ["a", "b", "c"], scores, TOLERANCE["rrf"])
    assert not near_order(["a", "a", "c"], ["a", "b", "c"], scores, TOLERANCE["rrf"])


def test_near_order_holds_exact_ties_to_the_wanted_order() -> None:
    scores = {"a": 0.5, "b": 0.5, "c": 0.1, "d": 0.5}
    # a true tie is settled as wanted (by chunk_id), never either way
    assert near_order(["a", "b"], ["a", "b"], scores, TOLERANCE["rrf"])
    assert not near_order(["b", "a"], ["a", "b"], scores, TOLERANCE["rrf"])
    # across the cut: an exactly tied item may not replace a wanted one
    assert not near_order(["a", "d"], ["a", "b"], scores, TOLERANCE["rrf"])
    # a near tie across the cut may
    near = {**scores, "e": 0.5 + 1e-13}
    assert near_order(["a", "e"], ["a", "b"], near, TOLERANCE["rrf"])
