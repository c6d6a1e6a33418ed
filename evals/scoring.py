"""From a grid's answers to figures: ranking measures, leakage and grounding, per setting.

Every judged query of the split is scored, an empty answer included (as ``trec_eval -c``
does): a system that answers nothing must not look better than one that answers badly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ragward.evals.grid import Grid, RetrievalSetting
from ragward.evals.grounding import GroundingScores, score_grounding
from ragward.evals.measures import evaluate_ranking, parse_measures
from ragward.evals.records import Dataset, LabelledClaim
from ragward.evals.runner import GridOutcome

__all__ = ["SettingScores", "score_outcome"]


@dataclass(frozen=True)
class SettingScores:
    """The figures of one retrieval setting on one split."""

    setting: RetrievalSetting
    per_query: Mapping[str, Mapping[str, float]]  # measure -> query id -> value
    means: Mapping[str, float]
    grounding: Mapping[float, GroundingScores]
    per_claim: Mapping[float, Mapping[str, float]]  # threshold -> claim id -> 1 if right


def score_outcome(
    outcome: GridOutcome, dataset: Dataset, grid: Grid, split: str
) -> tuple[tuple[SettingScores, ...], Mapping[float, GroundingScores]]:
    """Scores of every setting on ``split``, and the gold-evidence grounding scores."""
    qrels = dataset.qrels[split]
    queries = [q.query_id for q in dataset.split_queries(split)]
    claims = dataset.split_claims(split)
    measures = parse_measures(grid.measures)  # names already expanded by the grid
    leakage = f"leakage_{grid.depth}"
    scored: list[SettingScores] = []
    for setting in outcome.settings:
        answers = outcome.answers[setting.id]
        per_query: dict[str, dict[str, float]] = {name: {} for name in grid.measures}
        per_query[leakage] = {}
        for qid in queries:
            values = evaluate_ranking(measures, qrels[qid], answers[qid].ranking)
            for name in grid.measures:
                per_query[name][qid] = values[name]
            per_query[leakage][qid] = 1.0 if answers[qid].leaked else 0.0
        means = {name: _mean(values.values()) for name, values in per_query.items()}
        grounding, per_claim = _grounding(outcome.verdicts.get(setting.id, {}), claims)
        scored.append(SettingScores(setting, per_query, means, grounding, per_claim))
    gold = {t: score_grounding(claims, v) for t, v in outcome.gold.items()} if claims else {}
    return tuple(scored), gold


def _grounding(
    verdicts: Mapping[float, Mapping[str, bool]], claims: Sequence[LabelledClaim]
) -> tuple[dict[float, GroundingScores], dict[float, dict[str, float]]]:
    if not claims:
        return {}, {}
    scores = {t: score_grounding(claims, v) for t, v in verdicts.items()}
    right = {
        t: {c.claim_id: 1.0 if v[c.claim_id] == c.supported else 0.0 for c in claims}
        for t, v in verdicts.items()
    }
    return scores, right


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return math.fsum(items) / len(items) if items else 0.0
