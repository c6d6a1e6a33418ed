"""The gate's power benchmark on one labelled set: one repeat judged, verdicts counted.

Each row (a planted regression, or a null row where nothing changed) is judged at every
grid size on the repeat's random half of the split: the baseline's and the row's eval
results are made for that half and that grid, and :func:`ragward.evals.gate.compare`
decides, with the repeat's number as its randomization seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragward.evals.gate import GateResult, compare
from ragward.evals.grid import Grid, IndexSetting
from ragward.evals.grid_file import default_grid
from ragward.evals.records import Dataset
from ragward.evals.runner import GridOutcome
from ragward.implementation import REFERENCE

__all__ = ["Subject", "Tally", "grids_of", "judge_repeat", "subject_named"]

#: The measure whose change the report shows beside each detection rate.
SHOWN = "ndcg_cut_10"


@dataclass(frozen=True)
class Subject:
    """A labelled set the benchmark runs on, its split and its index settings."""

    name: str
    dataset: Dataset
    split: str
    indexes: tuple[IndexSetting, ...]


_SCIFACT_INDEXES = (IndexSetting(256, 32, "hash-256"), IndexSetting(128, 16, "hash-256"))


def subject_named(name: str, data: Path | None) -> Subject:
    """The bundled set (``tidewater``) with the default grid's indexes, or SciFact from
    ``data`` (its ``beir/`` and dev claims) with the SciFact grid's chunkings."""
    from ragward.datasets import bundled
    from ragward.evals.datasets import load_dataset

    if name == "tidewater":
        return Subject(name, load_dataset(bundled()), "test", default_grid().indexes)
    assert data is not None
    claims = {"test": data / "claims_dev.jsonl"}
    return Subject(name, load_dataset(data / "beir", claims=claims), "test", _SCIFACT_INDEXES)


def grids_of(subject: Subject, sizes: Sequence[int]) -> dict[int, Grid]:
    """The benchmark's grids of ``sizes`` (comparisons) over ``subject``'s indexes."""
    from ragward.bench.power_grids import SHAPES, power_grid

    return {
        s.comparisons: power_grid(f"{subject.name}-{s.comparisons}", subject.indexes, s)
        for s in SHAPES
        if s.comparisons in sizes
    }


@dataclass
class Tally:
    """The gate's verdicts on one row at one size, over the repeats."""

    repeats: int = 0
    failed: int = 0
    by_regression: int = 0  # repeats failed with a significant regression
    by_leak: int = 0  # repeats failed with a leak
    regressions: int = 0  # regressions found, summed over the repeats
    comparisons: int = 0
    delta_sum: float = 0.0  # of the mean change of SHOWN over the settings

    def add(self, result: GateResult, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        """Count one repeat's verdict."""
        found = sum(f.status == "regression" for f in result.findings)
        self.repeats += 1
        self.failed += not result.passed
        self.by_regression += found > 0
        self.by_leak += bool(result.leaks)
        self.regressions += found
        self.comparisons = len(result.findings)
        self.delta_sum += _mean_change(before, after)

    def data(self) -> dict[str, Any]:
        """The row's figures, rounded for a report."""
        return {
            "comparisons": self.comparisons,
            "repeats": self.repeats,
            "failed": self.failed,
            "by_regression": self.by_regression,
            "by_leak": self.by_leak,
            "detection_rate": round(self.by_regression / self.repeats, 4),
            "failure_rate": round(self.failed / self.repeats, 4),
            "mean_regressions": round(self.regressions / self.repeats, 2),
            "mean_ndcg10_delta": round(self.delta_sum / self.repeats, 4),
        }


def _mean_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> float:
    old = {s["id"]: s["means"][SHOWN] for s in before["settings"]}
    changes = [s["means"][SHOWN] - old[s["id"]] for s in after["settings"]]
    return math.fsum(changes) / len(changes)


Row = tuple[str, GridOutcome | tuple[GridOutcome, GridOutcome]]


def judge_repeat(
    subject: Subject,
    grids: Mapping[int, Grid],
    base: GridOutcome,
    rows: Sequence[Row],
    repeat: int,
    trials: int,
    tallies: dict[tuple[str, int], Tally],
) -> None:
    """Judge every row of repeat ``repeat`` at every size of ``grids`` against ``base``
    (a row given as two outcomes is judged against the first of them), on the repeat's
    random half of the split; add the verdicts to ``tallies`` by (row, size)."""
    from ragward.bench.power_grids import part, results_of, sampled

    sample, split = sampled(subject.dataset, subject.split, seed=repeat)
    reference = REFERENCE
    baselines = {
        size: results_of(sample, grid, split, part(base, grid), reference)
        for size, grid in grids.items()
    }
    for name, run in rows:
        for size, grid in grids.items():
            if isinstance(run, tuple):
                before = results_of(sample, grid, split, part(run[0], grid), name)
                current = run[1]
            else:
                before, current = baselines[size], run
            after = results_of(sample, grid, split, part(current, grid), name)
            result = compare(before, after, trials=trials, seed=repeat)
            tallies.setdefault((name, size), Tally()).add(result, before, after)
