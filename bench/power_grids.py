"""The grids of the gate's power benchmark, and eval results of a part of one run.

Four grids, chosen so that the gate makes 24, 88, 450 and 1,224 comparisons (settings x
(ranking measures + grounding thresholds)); each is part of the next, so one run of the
largest answers them all. A repeat of the benchmark judges a random half of the split's
queries and claims: :func:`results_of` makes, with the eval's own scoring and
``results.json`` builder, what ``ragward eval`` writes for a smaller grid on that half
(answers do not depend on which other questions are asked, so they are the answers a
run of the smaller grid on the half would give).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.evals.grid import Grid, IndexSetting
from ragward.evals.grid_file import default_grid
from ragward.evals.records import Dataset
from ragward.evals.report import build_results
from ragward.evals.runner import Answer, GridOutcome
from ragward.evals.scoring import score_outcome

__all__ = [
    "SHAPES",
    "Shape",
    "comparisons",
    "outcome_data",
    "outcome_from",
    "part",
    "power_grid",
    "results_of",
    "sampled",
]

_BOTH = ("none", "lexical-overlap")
_THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


@dataclass(frozen=True)
class Shape:
    """One grid size: the first ``indexes`` index settings and these retrieval and
    grounding values (every mode; ``rrf_k`` applies to hybrid settings only)."""

    comparisons: int
    indexes: int
    rrf_ks: tuple[float, ...]
    reranks: tuple[str, ...]
    candidate_limits: tuple[int, ...]
    min_overlaps: tuple[float, ...]


#: The sizes, smallest first; each grid is part of the next.
SHAPES = (
    Shape(24, 1, (60.0,), ("none",), (30,), (0.6,)),
    Shape(88, 1, (30.0, 60.0), _BOTH, (30,), (0.4, 0.5, 0.6, 0.7)),
    Shape(450, 1, (30.0, 60.0, 120.0), _BOTH, (20, 30, 50), _THRESHOLDS[:8]),
    Shape(1224, 2, (10.0, 30.0, 60.0, 120.0), _BOTH, (20, 30, 50), _THRESHOLDS),
)


def power_grid(name: str, indexes: tuple[IndexSetting, ...], shape: Shape) -> Grid:
    """The grid of ``shape`` over ``indexes``: the default grid's depth and measures."""
    return replace(
        default_grid(),
        name=name,
        indexes=indexes[: shape.indexes],
        modes=("hybrid", "lexical", "dense"),
        rrf_ks=shape.rrf_ks,
        reranks=shape.reranks,
        candidate_limits=shape.candidate_limits,
        min_overlaps=shape.min_overlaps,
    )


def comparisons(grid: Grid, claims: bool) -> int:
    """How many comparisons the gate makes on results of ``grid`` (with ``claims``: one
    per grounding threshold too)."""
    per_setting = len(grid.measures) + (len(grid.min_overlaps) if claims else 0)
    return len(grid.all_settings()) * per_setting


def part(outcome: GridOutcome, grid: Grid) -> GridOutcome:
    """The answers and verdicts of ``outcome`` (a run of a larger grid) that ``grid``
    asks for."""
    settings = grid.all_settings()
    return replace(
        outcome,
        settings=settings,
        answers={s.id: outcome.answers[s.id] for s in settings},
        verdicts={
            s.id: {t: outcome.verdicts[s.id][t] for t in grid.min_overlaps}
            for s in settings
            if s.id in outcome.verdicts
        },
        gold={t: outcome.gold[t] for t in grid.min_overlaps if t in outcome.gold},
    )


def sampled(dataset: Dataset, split: str, seed: int) -> tuple[Dataset, str]:
    """``dataset`` with a split made of a random half of ``split``'s queries and claims
    (drawn from ``seed``), and that split's name."""
    name = f"{split}-half"
    draw = random.Random(seed)
    judged = dataset.qrels[split]
    queries = sorted(draw.sample(sorted(judged), len(judged) // 2))
    claims = [c.claim_id for c in dataset.split_claims(split)]
    chosen = set(draw.sample(claims, len(claims) // 2))
    return (
        replace(
            dataset,
            qrels={**dataset.qrels, name: {q: judged[q] for q in queries}},
            claims=tuple(
                replace(c, split=name) if c.claim_id in chosen else c for c in dataset.claims
            ),
        ),
        name,
    )


def results_of(
    dataset: Dataset, grid: Grid, split: str, outcome: GridOutcome, implementation: str
) -> dict[str, Any]:
    """What ``ragward eval`` writes in ``results.json`` for ``outcome`` on ``split``."""
    scores, gold = score_outcome(outcome, dataset, grid, split)
    return build_results(
        dataset=dataset,
        grid=grid,
        split=split,
        implementation=implementation,
        outcome=outcome,
        scores=scores,
        gold=gold,
    )


def outcome_data(outcome: GridOutcome) -> dict[str, Any]:
    """``outcome`` as JSON-ready data: what scoring reads (each answer's ranking and
    leaks, the grounding verdicts), not the hits; thresholds by ``repr``."""
    return {
        "answers": {
            setting: {key: [list(a.ranking), list(a.leaked)] for key, a in answers.items()}
            for setting, answers in outcome.answers.items()
        },
        "verdicts": {
            setting: {repr(t): v for t, v in by.items()} for setting, by in outcome.verdicts.items()
        },
        "gold": {repr(t): v for t, v in outcome.gold.items()},
        "grounding": outcome.grounding,
        "staged": outcome.staged,
        "index_settings_passed": outcome.index_settings_passed,
        "depth_unit": outcome.depth_unit,
        "work": outcome.work,
        "capabilities": None if outcome.capabilities is None else asdict(outcome.capabilities),
        "models": outcome.models,
    }


def outcome_from(data: Mapping[str, Any], grid: Grid) -> GridOutcome:
    """The outcome :func:`outcome_data` wrote, for ``grid`` (hits left empty)."""
    return GridOutcome(
        settings=grid.all_settings(),
        answers={
            setting: {key: Answer(tuple(r), tuple(leaked), ()) for key, (r, leaked) in a.items()}
            for setting, a in data["answers"].items()
        },
        verdicts={
            setting: {float(t): dict(v) for t, v in by.items()}
            for setting, by in data["verdicts"].items()
        },
        gold={float(t): dict(v) for t, v in data["gold"].items()},
        grounding=data["grounding"],
        staged=data["staged"],
        index_settings_passed=data["index_settings_passed"],
        depth_unit=data["depth_unit"],
        work=dict(data["work"]),
        capabilities=_capabilities(data["capabilities"]),
        models=dict(data["models"]),
    )


def _capabilities(data: Mapping[str, Any] | None) -> Capabilities | None:
    if data is None:
        return None
    return Capabilities(**{**data, "modes": tuple(data["modes"])})
