"""Grounding quality against labelled claims.

A grounding check says, per claim, *supported* or not; the labels say what is true for
the claim's asker. Positive means *supported*: precision is the share of claims called
supported that are, recall the share of supported claims called so, and the false-support
rate the share of unsupported claims called supported — the number that matters most, a
fabrication waved through. Coverage is what the system reports: the share of claims it
calls supported, labels aside.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragward.evals.records import LabelledClaim

__all__ = ["GROUNDING_MEASURES", "GroundingScores", "score_grounding"]

GROUNDING_MEASURES = ("coverage", "precision", "recall", "f1", "false_support", "accuracy")


@dataclass(frozen=True)
class GroundingScores:
    """Confusion counts of one threshold and the measures derived from them."""

    true_support: int
    false_support: int
    true_reject: int
    false_reject: int

    @property
    def claims(self) -> int:
        return self.true_support + self.false_support + self.true_reject + self.false_reject

    def measures(self) -> dict[str, float]:
        """Each of :data:`GROUNDING_MEASURES`; a ratio with an empty denominator is 0."""
        called = self.true_support + self.false_support
        supported = self.true_support + self.false_reject
        unsupported = self.false_support + self.true_reject
        precision = _ratio(self.true_support, called)
        recall = _ratio(self.true_support, supported)
        f1 = _ratio(2 * precision * recall, precision + recall)
        return {
            "coverage": _ratio(called, self.claims),
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "false_support": _ratio(self.false_support, unsupported),
            "accuracy": _ratio(self.true_support + self.true_reject, self.claims),
        }


def score_grounding(
    claims: Sequence[LabelledClaim], verdicts: Mapping[str, bool]
) -> GroundingScores:
    """Confusion counts of ``verdicts`` (claim id -> called supported) against labels."""
    counts = [0, 0, 0, 0]
    for claim in claims:
        called = verdicts[claim.claim_id]
        if claim.supported:
            counts[0 if called else 3] += 1
        else:
            counts[1 if called else 2] += 1
    return GroundingScores(*counts)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0
