"""Fisher's paired randomization test of one measure (the gate's joint test is tested in
test_westfall_young.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.evals.significance import Comparison, paired_randomization

# Dyadic values (k / 8) add and subtract exactly, so properties compare exact arithmetic.
_values = st.integers(0, 8).map(lambda k: k / 8)
_pairs = st.integers(1, 20).flatmap(
    lambda n: st.tuples(
        st.lists(_values, min_size=n, max_size=n), st.lists(_values, min_size=n, max_size=n)
    )
)


def test_exact_case_worked_by_hand() -> None:
    # Differences (1, 2, 3), observed sum 6. The 8 sign patterns give the sums
    # +1+2+3 = 6, -1+2+3 = 4, +1-2+3 = 2, +1+2-3 = 0, -1-2+3 = 0, -1+2-3 = -2, +1-2-3 = -4
    # and -1-2-3 = -6: two reach |sum| >= 6, one reaches sum >= 6, all eight have sum <= 6.
    comparison = paired_randomization([0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    assert comparison.exact
    assert comparison.trials == 8
    assert comparison.p_value == 2 / 8
    assert comparison.p_increase == 1 / 8  # only the identity pattern reaches +6
    assert comparison.p_decrease == 8 / 8  # every sum is <= 6
    assert comparison.delta == 2.0
    assert (comparison.baseline_mean, comparison.current_mean) == (0.0, 2.0)


def test_exact_case_with_ties_counts_both_tied_patterns() -> None:
    # Differences (1, 1): sums 2, 0, 0, -2; |sum| >= 2 twice; with a zero difference added
    # the zero is left out, so there are still 4 patterns.
    comparison = paired_randomization([0.0, 0.0, 5.0], [1.0, 1.0, 5.0])
    assert comparison.trials == 4
    assert comparison.p_value == 2 / 4


def test_float_rounding_does_not_break_ties() -> None:
    # 0.1 + 0.2 != 0.3 in binary; the flipped sum 0.1 + 0.2 - 0.3 must still count as 0.
    comparison = paired_randomization([0.0, 0.0, 0.3], [0.1, 0.2, 0.0])
    # The observed sum is 0 up to rounding, as is its mirror -0.1 - 0.2 + 0.3; all 8 count.
    assert comparison.p_value == 1.0


def test_same_seed_same_result_and_seed_matters() -> None:
    rng = np.random.default_rng(11)
    baseline = rng.uniform(0, 1, size=200).tolist()
    current = (np.asarray(baseline) + rng.normal(0, 0.2, size=200)).tolist()
    first = paired_randomization(baseline, current, seed=5)
    again = paired_randomization(baseline, current, seed=5)
    assert first == again
    other = paired_randomization(baseline, current, seed=6)
    assert other.p_value != first.p_value
    assert abs(other.p_value - first.p_value) < 0.05


def test_monte_carlo_agrees_with_exact() -> None:
    rng = np.random.default_rng(2)
    baseline = rng.uniform(0, 1, size=12).tolist()
    current = (np.asarray(baseline) + rng.normal(0.1, 0.2, size=12)).tolist()
    exact = paired_randomization(baseline, current, trials=1 << 12)
    sampled = paired_randomization(baseline, current, trials=(1 << 12) - 1, seed=1)
    assert exact.exact
    assert not sampled.exact
    # standard error of a proportion near 0.1 with 4095 trials is about 0.005
    assert abs(sampled.p_value - exact.p_value) < 0.03
    assert abs(sampled.p_decrease - exact.p_decrease) < 0.03


def test_exact_agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    baseline = rng.uniform(0, 1, size=10)
    current = baseline + rng.normal(0.05, 0.2, size=10)
    ours = paired_randomization(baseline.tolist(), current.tolist())
    theirs = stats.permutation_test(
        (current, baseline),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        n_resamples=np.inf,
        alternative="two-sided",
    )
    assert ours.exact
    assert ours.p_value == pytest.approx(theirs.pvalue)


@pytest.mark.parametrize(
    ("baseline", "current", "trials", "message"),
    [
        ([0.1, 0.2], [0.1], 10, "baseline has 2 values but current has 1"),
        ([], [], 10, "at least one query"),
        ([0.1, float("nan")], [0.1, 0.2], 10, r"baseline\[1\] is nan"),
        ([0.1], [float("inf")], 10, r"current\[0\] is inf"),
        ([0.1], [0.2], 0, "trials must be a positive integer"),
    ],
)
def test_invalid_input_names_the_fix(
    baseline: list[float], current: list[float], trials: int, message: str
) -> None:
    with pytest.raises(InvalidArgument, match=message):
        paired_randomization(baseline, current, trials=trials)


@given(_pairs, st.integers(0, 3))
def test_p_values_are_valid_and_symmetric(
    pairs: tuple[list[float], list[float]], seed: int
) -> None:
    baseline, current = pairs
    forward = paired_randomization(baseline, current, trials=200, seed=seed)
    backward = paired_randomization(current, baseline, trials=200, seed=seed)
    for p in (forward.p_value, forward.p_decrease, forward.p_increase):
        assert 0.0 < p <= 1.0
    assert backward.p_value == forward.p_value
    assert backward.p_decrease == forward.p_increase
    assert backward.delta == -forward.delta


@given(_pairs, st.integers(-4, 4))
def test_adding_a_constant_to_both_runs_changes_nothing(
    pairs: tuple[list[float], list[float]], shift: int
) -> None:
    baseline, current = pairs
    plain = paired_randomization(baseline, current, trials=200)
    shifted = paired_randomization(
        [b + shift for b in baseline], [c + shift for c in current], trials=200
    )
    assert (shifted.p_value, shifted.p_decrease, shifted.p_increase) == (
        plain.p_value,
        plain.p_decrease,
        plain.p_increase,
    )
    assert shifted.delta == plain.delta


def test_comparison_is_frozen() -> None:
    comparison = paired_randomization([0.1], [0.2])
    assert isinstance(comparison, Comparison)
    with pytest.raises(AttributeError):
        comparison.p_value = 0.0  # type: ignore[misc]


def test_one_trial_is_enough_to_run() -> None:
    one = paired_randomization([0.5, 0.25], [0.25, 0.5], trials=1)
    assert (one.trials, one.exact) == (1, False)
    assert one.p_value in (0.5, 1.0)  # (count + 1) / 2


def test_more_values_than_a_block_has_cells_still_take_one_pattern_per_block() -> None:
    # 2**20 + 1 differing values: a block of 2**20 sign cells holds less than one pattern
    many = (1 << 20) + 1
    result = paired_randomization([0.0] * many, [0.125] * many, trials=1)
    assert (result.trials, result.exact) == (1, False)
    assert result.p_value == 0.5  # (0 + 1) / (1 + 1): the random pattern does not reach it
