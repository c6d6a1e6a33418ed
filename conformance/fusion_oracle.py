"""What a hybrid answer should score: the kit's own arithmetic of each fusion method.

The kit computes the fused score of every chunk (or document) from the lexical-mode and
dense-mode answers an adapter gives, by the formulas of :attr:`Policy.fusion
<ragward.conformance.records.Policy.fusion>`, written here from the formulas and not
from any implementation's code. With ``a`` the dense weight:

- ``rrf``: ``2(1 - a) / (k + r_lex) + 2a / (k + r_dense)`` (at ``a = 0.5``, plain RRF);
- ``minmax``: ``(1 - a) * mm_lex + a * mm_dense``, each side's scores mapped onto [0, 1]
  by ``(s - min) / (max - min)`` over that side's answer (all 1 when they are equal);
- ``zscore``: the same with ``(s - mean) / std`` (population deviation; all 0 when the
  side's scores are equal).

An item missing from one side takes that side's lowest normalised score (for ``rrf``,
nothing). Each side is a list of ``(key, score)`` best first, a key once (a chunk id, or
for fusion by document a doc id with its best chunk's score).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["TOLERANCE", "expected_fusion", "near_order"]

#: How far a fused score may be from the kit's: RRF's sums of a few fractions are exact
#: to about 1e-16; normalised scores go through a division and a square root more.
TOLERANCE = {"rrf": 1e-12, "minmax": 1e-9, "zscore": 1e-9}

Side = Sequence[tuple[str, float]]


def expected_fusion(
    lexical: Side, dense: Side, *, method: str, k: float, dense_weight: float
) -> dict[str, float]:
    """Every key of either side with the fused score ``method`` gives it."""
    weights = (1.0 - dense_weight, dense_weight)
    if method == "rrf":
        terms: dict[str, list[float]] = {}
        for weight, side in zip(weights, (lexical, dense), strict=True):
            for rank, (key, _) in enumerate(side, start=1):
                terms.setdefault(key, []).append(2.0 * weight / (k + rank))
        return {key: math.fsum(parts) for key, parts in terms.items()}
    normalised = []
    for side in (lexical, dense):
        values = [score for _, score in side]
        mapped = _minmax(values) if method == "minmax" else _zscore(values)
        normalised.append((dict(zip((key for key, _ in side), mapped, strict=True)), mapped))
    keys = dict.fromkeys(key for side in (lexical, dense) for key, _ in side)
    return {
        key: math.fsum(
            weight * shares.get(key, min(mapped, default=0.0))
            for weight, (shares, mapped) in zip(weights, normalised, strict=True)
        )
        for key in keys
    }


def near_order(
    got: Sequence[str], want: Sequence[str], scores: dict[str, float], tol: float
) -> bool:
    """Whether ``got`` is ``want`` up to items whose expected scores are within ``tol``
    of each other (two near-equal sums may round either way in another implementation's
    arithmetic): the same length, and at each place an item scoring what ``want``'s does.
    Items whose expected scores are *equal* (a true tie: the kit's sums are correctly
    rounded) keep ``want``'s relative order, the contract's order of ties."""
    if len(got) != len(want) or len(set(got)) != len(got):
        return False
    if not all(
        item in scores and abs(scores[item] - scores[wanted]) <= tol
        for item, wanted in zip(got, want, strict=True)
    ):
        return False
    place = {item: n for n, item in enumerate(want)}
    kept = set(got)
    left_out = {scores[item] for item in want if item not in kept}
    last: dict[float, int] = {}
    for item in got:
        if item not in place:  # a near tie across the cut; an exact one keeps want's
            if scores[item] in left_out:
                return False
            continue
        if place[item] < last.get(scores[item], -1):
            return False
        last[scores[item]] = place[item]
    return True


def _minmax(values: list[float]) -> list[float]:
    if not values:
        return []
    low, high = min(values), max(values)
    if not high > low:
        return [1.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def _zscore(values: list[float]) -> list[float]:
    if not values:
        return []
    mean = math.fsum(values) / len(values)
    deviation = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if not deviation > 0.0:
        return [0.0] * len(values)
    return [(v - mean) / deviation for v in values]
