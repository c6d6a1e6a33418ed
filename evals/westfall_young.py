"""Westfall-Young max-T step-down: one family of paired comparisons, one set of sign flips.

The gate compares many (setting, measure) pairs over the same queries (and claims). Each
comparison ``j`` has per-unit differences ``d_ij = current - baseline`` (a unit is a query
or a claim; a unit a comparison does not cover has ``d_ij = 0``). Under the null hypothesis
that the two runs are exchangeable query by query, every unit's differences are as likely
to have had the opposite sign *together* across all comparisons, so one random sign
``s_i`` per unit is drawn for all comparisons at once: the comparisons stay as correlated
under the null as they are in the data (settings of one grid share most of their answers),
and the test pays for the number of *independent* things it looks at, not for the number
of rows in the report.

The statistic is the studentized sum ``T_j = |sum_i s_i d_ij| / sqrt(sum_i d_ij**2)``: the
denominator does not change under sign flips, so the test of each comparison is exactly
Fisher's paired randomization test of its mean difference, while the scale of every
measure (nDCG, a precision, a 0/1 grounding verdict) is made comparable for the maximum.
Adjusted p-values follow Westfall and Young's step-down max-T algorithm (P. H. Westfall and
S. S. Young, *Resampling-Based Multiple Testing*, Wiley 1993, Algorithm 2.8; also Ge,
Dudoit and Speed, "Resampling-based multiple testing for microarray data analysis",
TEST 12(1), 2003): order the comparisons by observed ``T`` descending; the adjusted p of
the ``r``-th is the share of sign patterns whose largest ``T`` among the comparisons from
``r`` onward reaches the ``r``-th's observed ``T``, made non-decreasing along the order. It
controls the family-wise error rate strongly under subset pivotality, which sign flips
of paired differences give.

Unlike Bonferroni or Holm over Monte Carlo p-values, the smallest adjusted p-value does not
grow with the number of comparisons: with ``B`` random patterns it is ``1 / (B + 1)``
(the observed pattern counted as one draw, B. Phipson and G. K. Smyth, "Permutation
P-values Should Never Be Zero", 2010), with every pattern enumerated ``2 / 2**n``.

    >>> result = max_t_step_down([[0.1, 0.2], [0.1, 0.0], [0.1, 0.1]], trials=100)
    >>> result.exact, result.patterns
    (True, 8)
    >>> [round(p, 3) for p in result.adjusted]
    [0.25, 0.5]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument

__all__ = ["JointTest", "floor_p", "max_t_step_down"]

# A statistic recomputed in another summation order moves by a few ulps; a relative slack
# this small never merges genuinely different sums of realistic measure values.
_SLACK = 1e-9
_BLOCK_CELLS = 1 << 21  # cells of one block of statistics (patterns x comparisons)


@dataclass(frozen=True)
class JointTest:
    """The outcome of one max-T step-down test over ``len(raw)`` comparisons."""

    statistics: tuple[float, ...]  # observed studentized |sum of differences|, per comparison
    raw: tuple[float, ...]  # each comparison's own two-sided randomization p-value
    adjusted: tuple[float, ...]  # Westfall-Young step-down adjusted p-values
    patterns: int  # sign patterns evaluated (the observed one included when exact)
    exact: bool  # every pattern of the units that differ was enumerated


def floor_p(units: int, trials: int) -> float:
    """The smallest p-value, raw or adjusted, a comparison over ``units`` paired values can
    reach with ``trials`` random patterns: ``2 / 2**units`` when they are few enough to
    enumerate (a pattern and its mirror give the same ``|T|``), else ``1 / (trials + 1)``
    and never below the enumeration's.

        >>> floor_p(4, 10_000), floor_p(300, 10_000)
        (0.125, 9.999000099990002e-05)
    """
    # Enumerated (2**units <= trials), the floor is 2 / 2**units >= 2 / trials, above the
    # Monte Carlo floor: one expression covers both (and no p-value exceeds 1).
    return min(1.0, max(2.0 ** (1 - units), 1.0 / (trials + 1)))


def max_t_step_down(
    differences: Sequence[Sequence[float]] | npt.NDArray[np.float64],
    *,
    trials: int = 10_000,
    seed: int = 0,
) -> JointTest:
    """The Westfall-Young step-down test of every column of ``differences`` (units x
    comparisons, ``current - baseline``) against zero, on one set of sign flips per row.

    Units whose differences are all zero change no statistic and are left out. When the
    ``n`` remaining units have ``2**n <= trials`` patterns, all are enumerated (exact);
    otherwise ``trials`` random patterns are drawn from ``Generator(PCG64(seed))``, so the
    result depends only on the inputs, ``trials`` and ``seed``.
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InvalidArgument(f"trials must be a positive integer, got {trials!r}")
    matrix = np.asarray(differences, dtype=np.float64)
    if matrix.ndim != 2:
        raise InvalidArgument(f"differences must be units x comparisons, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        unit, column = (int(i) for i in np.argwhere(~np.isfinite(matrix))[0])
        raise InvalidArgument(f"differences[{unit}][{column}] is not finite")
    matrix = matrix[np.any(matrix != 0.0, axis=1)]
    units, comparisons = matrix.shape
    norms = np.sqrt(np.einsum("ij,ij->j", matrix, matrix))
    scale = 1.0 / np.where(norms > 0.0, norms, 1.0)  # a column of zeros stays zero
    observed = np.abs(matrix.sum(axis=0)) * scale
    order = np.argsort(-observed, kind="stable")
    threshold = observed - _SLACK * observed - 1e-12
    exact = 1 << units <= trials
    patterns = 1 << units if exact else trials
    raw_counts = np.zeros(comparisons, dtype=np.int64)
    step_counts = np.zeros(comparisons, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(comparisons, units, 1))
    for signs in _sign_blocks(units, patterns, exact, seed, block):
        flipped = np.abs(signs @ matrix) * scale
        raw_counts += np.count_nonzero(flipped >= threshold, axis=0)
        # the largest statistic among the comparisons from each rank of the order onward
        tail_max = np.maximum.accumulate(flipped[:, order[::-1]], axis=1)[:, ::-1]
        step_counts[order] += np.count_nonzero(tail_max >= threshold[order], axis=0)
    if exact:
        raw = raw_counts / patterns
        stepped = step_counts / patterns
    else:  # the observed pattern is one more draw as extreme as itself
        raw = (raw_counts + 1) / (patterns + 1)
        stepped = (step_counts + 1) / (patterns + 1)
    adjusted = np.empty(comparisons, dtype=np.float64)
    adjusted[order] = np.minimum(np.maximum.accumulate(stepped[order]), 1.0)
    return JointTest(
        statistics=tuple(float(t) for t in observed),
        raw=tuple(float(p) for p in np.minimum(raw, 1.0)),
        adjusted=tuple(float(p) for p in adjusted),
        patterns=patterns,
        exact=exact,
    )


def _sign_blocks(
    units: int, patterns: int, exact: bool, seed: int, block: int
) -> Iterator[npt.NDArray[np.float64]]:
    """Blocks of sign rows (+1/-1): every pattern in turn, or random ones."""
    rng = np.random.Generator(np.random.PCG64(seed))
    for start in range(0, patterns, block):
        size = min(block, patterns - start)
        if exact:
            rows = np.arange(start, start + size, dtype=np.int64)[:, None]
            bits = (rows >> np.arange(units, dtype=np.int64)[None, :]) & 1
        else:
            bits = rng.integers(0, 2, size=(size, units), dtype=np.int8)
        yield (1 - 2 * bits).astype(np.float64)
