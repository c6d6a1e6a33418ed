"""The labelled eval harness: datasets, grids, measures, and evaluation as a library.

>>> from ragward.evals import score_run
>>> score_run({"q": {"d1": 2}}, {"q": ["d1"]}, ["nDCG@10"]).summary["ndcg_cut_10"]
1.0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragward.exports import Exports

if TYPE_CHECKING:
    from ragward.evals.api import Evaluation, SettingResult, evaluate, score_run
    from ragward.evals.datasets import load_dataset
    from ragward.evals.grid import Grid, IndexSetting, RetrievalSetting
    from ragward.evals.grid_file import default_grid, load_grid
    from ragward.evals.measures import RunScores, measure_name, parse_measures
    from ragward.evals.records import Dataset, LabelledClaim, Query

__all__ = [
    "Dataset",
    "Evaluation",
    "Grid",
    "IndexSetting",
    "LabelledClaim",
    "Query",
    "RetrievalSetting",
    "RunScores",
    "SettingResult",
    "default_grid",
    "evaluate",
    "load_dataset",
    "load_grid",
    "measure_name",
    "parse_measures",
    "score_run",
]


# Each name is imported on first use, so that a command needing one module (``ragward
# metrics`` needs the measures and the TREC readers) does not load the whole harness.
_HOME = {
    "api": ("Evaluation", "SettingResult", "evaluate", "score_run"),
    "datasets": ("load_dataset",),
    "grid": ("Grid", "IndexSetting", "RetrievalSetting"),
    "grid_file": ("default_grid", "load_grid"),
    "measures": ("RunScores", "measure_name", "parse_measures"),
    "records": ("LabelledClaim", "Dataset", "Query"),
}
_EXPORTS = Exports("ragward.evals", globals(), lazy=_HOME)


def __getattr__(name: str) -> Any:
    return _EXPORTS.find(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()
