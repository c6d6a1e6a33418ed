"""Fisher's paired randomization test of one measure over per-query values.

For one measure the per-query differences ``d_i = current_i - baseline_i`` are tested:
under the null hypothesis that the two systems are exchangeable, each ``d_i`` is as likely
to have had the opposite sign, so the observed mean difference is compared with the means
of the ``2**n`` sign-flipped copies. Smucker, Allan and Carterette found it the test to
prefer for IR evaluation (M. D. Smucker, J. Allan and B. Carterette, "A Comparison of
Statistical Significance Tests for Information Retrieval Evaluation", CIKM 2007). It
compares *one* measure; the gate judges many at once with the joint test of
:mod:`ragward.evals.westfall_young`, which is this test for a family of one.

    >>> c = paired_randomization([0.2, 0.4, 0.6], [0.3, 0.6, 0.9])
    >>> c.p_value  # exact: 2 of the 8 sign patterns are as extreme as the observed one
    0.25
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument

__all__ = ["Comparison", "paired_randomization"]

# Float summation in a different order can move a tied statistic by a few ulps; a relative
# slack this small never merges genuinely different sums of realistic metric values.
_RELATIVE_SLACK = 1e-12
_BLOCK_CELLS = 1 << 20  # sign-matrix cells per block: bounds memory at 8 MiB


@dataclass(frozen=True)
class Comparison:
    """A paired comparison of one metric over ``n`` queries.

    ``p_value`` is two-sided (a change in either direction); ``p_decrease`` and
    ``p_increase`` are one-sided (the current run is lower, respectively higher). When
    ``exact`` is true every sign pattern was enumerated and the p-values are exact;
    otherwise they are Monte Carlo estimates ``(count + 1) / (trials + 1)``, counting the
    observed pattern as one of the draws, which are never 0 and remain valid p-values
    (B. Phipson and G. K. Smyth, "Permutation P-values Should Never Be Zero", Statistical
    Applications in Genetics and Molecular Biology 9(1), 2010).
    """

    n: int
    baseline_mean: float
    current_mean: float
    delta: float  # current_mean - baseline_mean
    p_value: float
    p_decrease: float
    p_increase: float
    trials: int  # sign patterns evaluated: 2**nonzero when exact, else the trials asked for
    exact: bool


def paired_randomization(
    baseline: Sequence[float], current: Sequence[float], *, trials: int = 10_000, seed: int = 0
) -> Comparison:
    """Fisher's paired randomization test of ``current`` against ``baseline``.

    Queries whose difference is exactly zero do not change any flipped mean and are left
    out of the enumeration. If the remaining ``m`` differences have ``2**m <= trials`` sign
    patterns, all are enumerated (exact p-values); otherwise ``trials`` random patterns are
    drawn from ``numpy.random.Generator(PCG64(seed))``, so the result depends only on the
    inputs, ``trials`` and ``seed``. A pattern counts as extreme when ``|flipped mean| >=
    |observed mean|`` (two-sided), up to a relative slack of 1e-12 so that ties survive
    float summation in a different order.
    """
    if len(baseline) != len(current):
        raise InvalidArgument(
            f"baseline has {len(baseline)} values but current has {len(current)}; "
            "pair the per-query values of the same queries"
        )
    if len(baseline) == 0:
        raise InvalidArgument("no per-query values to compare; need at least one query")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InvalidArgument(f"trials must be a positive integer, got {trials!r}")
    before = np.asarray(baseline, dtype=np.float64)
    after = np.asarray(current, dtype=np.float64)
    for name, values in (("baseline", before), ("current", after)):
        if not np.all(np.isfinite(values)):
            index = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InvalidArgument(
                f"{name}[{index}] is {float(values[index])}; values must be finite"
            )
    differences = after - before
    nonzero = differences[differences != 0.0]
    observed = float(nonzero.sum())
    slack = _RELATIVE_SLACK * float(np.abs(nonzero).sum())
    exact = 1 << nonzero.size <= trials
    patterns = 1 << nonzero.size if exact else trials
    counts = np.zeros(3, dtype=np.int64)
    for signs in _sign_blocks(nonzero.size, patterns, exact, seed):
        counts += _extreme_counts(signs @ nonzero, observed, slack)
    # Monte Carlo counts get the +1 of the observed pattern, which enumeration already has.
    p_two, p_low, p_high = (
        (int(count) / patterns) if exact else (int(count) + 1) / (trials + 1) for count in counts
    )
    baseline_mean = float(before.mean())
    current_mean = float(after.mean())
    return Comparison(
        n=len(before),
        baseline_mean=baseline_mean,
        current_mean=current_mean,
        delta=float(differences.mean()),
        p_value=p_two,
        p_decrease=p_low,
        p_increase=p_high,
        trials=patterns,
        exact=exact,
    )


def _sign_blocks(m: int, patterns: int, exact: bool, seed: int) -> Iterator[npt.NDArray[np.int8]]:
    """Blocks of ``patterns`` rows of ``m`` signs: every pattern in turn, or random ones."""
    rng = np.random.Generator(np.random.PCG64(seed))
    block = max(1, _BLOCK_CELLS // max(m, 1))
    for start in range(0, patterns, block):
        size = min(block, patterns - start)
        if exact:
            rows = np.arange(start, start + size)[:, None] >> np.arange(m)[None, :]
            bits = (rows & 1).astype(np.int8)
        else:
            bits = rng.integers(0, 2, size=(size, m), dtype=np.int8)
        yield 1 - 2 * bits


def _extreme_counts(
    sums: npt.NDArray[np.float64], observed: float, slack: float
) -> npt.NDArray[np.int64]:
    """How many sums are as extreme as ``observed``: two-sided, as low, as high."""
    return np.array(
        [
            np.count_nonzero(np.abs(sums) >= abs(observed) - slack),
            np.count_nonzero(sums <= observed + slack),
            np.count_nonzero(sums >= observed - slack),
        ],
        dtype=np.int64,
    )
