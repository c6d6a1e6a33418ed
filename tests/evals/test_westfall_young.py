"""The Westfall-Young max-T step-down test: against its definition, and its power floor."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.evals.significance import paired_randomization
from ragward.evals.westfall_young import floor_p, max_t_step_down

# Dyadic values (k / 8) add and subtract exactly, so exact arithmetic is compared.
_differences = st.integers(1, 7).flatmap(
    lambda units: st.integers(1, 4).flatmap(
        lambda columns: st.lists(
            st.lists(st.integers(-8, 8).map(lambda k: k / 8), min_size=columns, max_size=columns),
            min_size=units,
            max_size=units,
        )
    )
)


def _by_definition(rows: list[list[float]]) -> tuple[list[float], list[float]]:
    """Raw and step-down adjusted p-values over every sign pattern, written out plainly."""
    units, columns = len(rows), len(rows[0])

    def stat(signs: tuple[int, ...], j: int) -> float:
        norm = math.sqrt(sum(rows[i][j] ** 2 for i in range(units)))
        total = sum(s * rows[i][j] for i, s in enumerate(signs))
        return 0.0 if norm == 0 else abs(total) / norm

    patterns = list(itertools.product((1, -1), repeat=units))
    observed = [stat((1,) * units, j) for j in range(columns)]
    order = sorted(range(columns), key=lambda j: -observed[j])

    def reaches(value: float, target: float) -> bool:
        return value >= target - 1e-9 * target - 1e-12

    raw = [
        sum(reaches(stat(s, j), observed[j]) for s in patterns) / len(patterns)
        for j in range(columns)
    ]
    adjusted = [0.0] * columns
    running = 0.0
    for rank, j in enumerate(order):
        later = order[rank:]
        share = sum(reaches(max(stat(s, k) for k in later), observed[j]) for s in patterns) / len(
            patterns
        )
        running = max(running, share)
        adjusted[j] = running
    return raw, adjusted


@given(_differences)
def test_exact_enumeration_matches_the_definition(rows: list[list[float]]) -> None:
    result = max_t_step_down(rows, trials=1 << 12)
    raw, adjusted = _by_definition(rows)
    assert result.exact
    assert result.raw == pytest.approx(raw, abs=1e-12)
    assert result.adjusted == pytest.approx(adjusted, abs=1e-12)


def test_worked_by_hand() -> None:
    # Comparison 0 differs by (1, 1, 1): T = 3 / sqrt(3); of the 8 patterns only the
    # observed one and its mirror reach it. Comparison 1 differs by (2, 0, 1): T = 3 / sqrt(5)
    # = 1.342, reached by |+-2 +-1| = 3 in 2 of its 4 patterns, times 2 for the third unit.
    # Step-down: comparison 0 is first (T 1.732), and comparison 1 never exceeds 1.342 < 1.732,
    # so its adjusted p is its raw 2/8; comparison 1 is last, its own raw 4/8.
    result = max_t_step_down([[1.0, 2.0], [1.0, 0.0], [1.0, 1.0]], trials=8)
    assert result.exact
    assert result.patterns == 8
    assert result.raw == (2 / 8, 4 / 8)
    assert result.adjusted == (2 / 8, 4 / 8)


@given(st.lists(st.integers(-8, 8).map(lambda k: k / 8), min_size=1, max_size=10))
def test_one_comparison_is_fishers_exact_randomization_test(differences: list[float]) -> None:
    result = max_t_step_down([[d] for d in differences], trials=1 << 12)
    fisher = paired_randomization([0.0] * len(differences), differences, trials=1 << 12)
    assert result.raw[0] == pytest.approx(fisher.p_value, abs=1e-12)
    assert result.adjusted[0] == pytest.approx(fisher.p_value, abs=1e-12)


def test_the_floor_does_not_grow_with_the_number_of_comparisons() -> None:
    # 300 queries, 1,232 comparisons, every one halved: Holm over Monte Carlo p-values could
    # not go below 1232 / 10001; the joint test reaches 1 / (trials + 1) for every one.
    rng = np.random.default_rng(7)
    baseline = rng.uniform(0.4, 1.0, size=(300, 1232))
    result = max_t_step_down(baseline / 2 - baseline, trials=2_000)
    assert not result.exact
    assert set(result.adjusted) == {1 / 2_001}
    assert floor_p(300, 2_000) == 1 / 2_001


def test_a_regression_in_one_of_many_comparisons_is_found() -> None:
    rng = np.random.default_rng(3)
    noise = rng.normal(0.0, 0.05, size=(300, 1200))
    noise[:, 17] -= 0.05  # one setting's measure drops by 0.05 on average
    result = max_t_step_down(noise, trials=2_000, seed=1)
    assert result.adjusted[17] < 0.05
    assert sum(p < 0.05 for p in result.adjusted) <= 3  # the others stay unflagged


def test_adjusted_p_values_are_ordered_like_the_statistics() -> None:
    rng = np.random.default_rng(11)
    rows = rng.normal(0.0, 1.0, size=(40, 30)) + np.linspace(0.0, 0.6, 30)
    result = max_t_step_down(rows, trials=500, seed=2)
    for raw, adjusted in zip(result.raw, result.adjusted, strict=True):
        assert adjusted >= raw
    pairs = sorted(zip(result.statistics, result.adjusted, strict=True), key=lambda p: -p[0])
    assert [p for _, p in pairs] == sorted(p for _, p in pairs)


def test_the_family_wise_error_rate_holds_under_the_null() -> None:
    # 200 families of 20 correlated comparisons where nothing changed (the differences are
    # symmetric about 0): at most alpha of them may reject anything, with a binomial margin.
    rng = np.random.default_rng(5)
    rejected = 0
    for seed in range(200):
        shared = rng.normal(0.0, 1.0, size=(30, 1))
        rows = shared + rng.normal(0.0, 1.0, size=(30, 20))
        result = max_t_step_down(rows, trials=199, seed=seed)
        rejected += min(result.adjusted) < 0.05
    assert rejected <= 200 * 0.05 + 3 * math.sqrt(200 * 0.05 * 0.95)


def test_scaling_a_comparison_changes_nothing() -> None:
    rows = np.array([[0.1, 0.2], [0.3, -0.1], [-0.05, 0.4], [0.2, 0.2]])
    scaled = rows * np.array([1.0, 7.5])
    assert max_t_step_down(rows, trials=16).adjusted == max_t_step_down(scaled, trials=16).adjusted


def test_the_same_seed_gives_the_same_result_and_unchanged_runs_give_one() -> None:
    rng = np.random.default_rng(1)
    rows = rng.normal(0.0, 1.0, size=(80, 5))
    assert max_t_step_down(rows, trials=300, seed=4) == max_t_step_down(rows, trials=300, seed=4)
    unchanged = max_t_step_down(np.zeros((80, 5)), trials=300)
    assert unchanged.adjusted == (1.0,) * 5
    assert unchanged.raw == (1.0,) * 5


@pytest.mark.parametrize(
    ("rows", "trials", "message"),
    [
        ([[0.1]], 0, "trials"),
        ([[0.1]], True, "trials"),
        ([0.1, 0.2], 10, "units x comparisons"),
        ([[float("nan")]], 10, "not finite"),
    ],
)
def test_bad_arguments_are_refused(rows: object, trials: int, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        max_t_step_down(rows, trials=trials)  # type: ignore[arg-type]


def test_floor_of_a_few_units_is_the_enumeration() -> None:
    assert floor_p(4, 10_000) == 2 / 16
    assert floor_p(5, 16) == max(2 / 32, 1 / 17)  # too many to enumerate in 16 trials
    assert floor_p(0, 10) == 1.0


def test_a_monte_carlo_raw_p_value_counts_the_observed_pattern_once() -> None:
    # 300 equal differences: no random pattern reaches the observed |T|, so raw and adjusted
    # are both 1 / (trials + 1), never 0 (Phipson and Smyth)
    result = max_t_step_down([[0.125]] * 300, trials=100)
    assert not result.exact
    assert result.raw == (1 / 101,)
    assert result.adjusted == (1 / 101,)


def test_more_units_than_a_block_has_cells_still_take_one_pattern_per_block() -> None:
    # 2**21 + 1 units in one comparison: a block of 2**21 cells holds less than one pattern
    result = max_t_step_down(np.full(((1 << 21) + 1, 1), 0.125), trials=1)
    assert (result.patterns, result.exact) == (1, False)
    assert result.raw == (0.5,)  # (0 + 1) / (1 + 1): the one random pattern does not reach T


@pytest.mark.parametrize("units", [0, 3])
def test_no_comparison_is_an_empty_test(units: int) -> None:
    result = max_t_step_down(np.zeros((units, 0)))
    assert (result.statistics, result.raw, result.adjusted) == ((), (), ())
    assert (result.patterns, result.exact) == (1, True)


def test_a_tiny_statistic_is_compared_with_a_slack_relative_to_its_size() -> None:
    # The two large differences cancel: T is about 6e-7. Of the 64 patterns, the 4 whose
    # small differences sum to 0.1e-6 (the observed sum is 0.9e-6) stay below it.
    rows = [[1.0], [-1.0], [3e-6], [-2e-6], [-0.6e-6], [0.5e-6]]
    result = max_t_step_down(rows, trials=64)
    assert result.exact
    assert result.raw == (60 / 64,)
    assert result.adjusted == (60 / 64,)
