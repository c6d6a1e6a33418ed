"""The paired randomization test, Holm's adjustment and the gate's per-metric verdicts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.evals.significance import Comparison, holm, judge, paired_randomization

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


def test_identical_runs_give_p_one_and_unchanged() -> None:
    values = [0.1, 0.5, 0.9, 0.0]
    comparison = paired_randomization(values, values)
    assert (comparison.p_value, comparison.delta) == (1.0, 0.0)
    (verdict,) = judge({"ndcg@10": comparison})
    assert verdict.status == "unchanged"
    assert verdict.adjusted_p == 1.0


def test_strong_regression_is_flagged() -> None:
    rng = np.random.default_rng(7)
    baseline = rng.uniform(0.4, 1.0, size=100)
    current = baseline - rng.uniform(0.05, 0.3, size=100)
    comparison = paired_randomization(baseline.tolist(), current.tolist())
    assert not comparison.exact
    assert comparison.p_value == 1 / 10_001  # no random pattern is as extreme
    (verdict,) = judge({"recall@10": comparison})
    assert verdict.status == "regression"
    assert "worse by" in verdict.reason


def test_significant_drop_within_tolerance_is_unchanged() -> None:
    baseline = [0.5] * 50
    current = [0.49] * 50
    comparison = paired_randomization(baseline, current)
    assert comparison.p_value < 0.05
    (verdict,) = judge({"mrr": comparison}, tolerance=0.02)
    assert verdict.status == "unchanged"
    assert "within tolerance" in verdict.reason
    (strict,) = judge({"mrr": comparison}, tolerance={"other": 0.5})
    assert strict.status == "regression"


def test_lower_is_better_metric_regresses_when_it_rises() -> None:
    comparison = paired_randomization([0.0] * 40, [0.25] * 40)
    up, leak = judge(
        {"recall@10": comparison, "leakage": comparison}, higher_is_better={"leakage": False}
    )
    assert (up.status, leak.status) == ("improvement", "regression")


def test_judge_adjusts_over_all_metrics() -> None:
    rng = np.random.default_rng(3)
    base = rng.uniform(0, 1, size=30)
    comparisons = {
        "a": paired_randomization(base.tolist(), (base - 0.2).tolist()),
        "b": paired_randomization(base.tolist(), base.tolist()),
    }
    verdicts = judge(comparisons)
    assert [v.metric for v in verdicts] == ["a", "b"]
    expected = holm([comparisons["a"].p_value, comparisons["b"].p_value])
    assert tuple(v.adjusted_p for v in verdicts) == expected


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


def test_holm_worked_by_hand() -> None:
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> raised to 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx((0.03, 0.06, 0.06, 0.02))
    assert holm([0.5, 0.6]) == (1.0, 1.0)  # 0.5 * 2 capped at 1; 0.6 raised to 1
    assert holm([0.2]) == (0.2,)
    assert holm([]) == ()


def test_holm_rejects_non_p_values() -> None:
    with pytest.raises(InvalidArgument, match=r"p_values\[1\] is 1.5"):
        holm([0.1, 1.5])


def test_judge_rejects_bad_alpha_and_tolerance() -> None:
    comparison = paired_randomization([0.1], [0.2])
    with pytest.raises(InvalidArgument, match="alpha"):
        judge({"m": comparison}, alpha=1.5)
    with pytest.raises(InvalidArgument, match="tolerance"):
        judge({"m": comparison}, tolerance=-0.1)


@given(st.lists(st.floats(0, 1), max_size=12))
def test_holm_is_monotone_bounded_and_not_below_raw(p_values: list[float]) -> None:
    adjusted = holm(p_values)
    assert all(p <= a <= 1.0 for p, a in zip(p_values, adjusted, strict=True))
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    assert all(adjusted[i] <= adjusted[j] for i, j in itertools.pairwise(order))


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
