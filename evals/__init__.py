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

# Each name is imported on first use, so that a command needing one module (``ragward
# metrics`` needs the measures and the TREC readers) does not load the whole harness.
_HOME = {
    "Evaluation": "api",
    "SettingResult": "api",
    "evaluate": "api",
    "score_run": "api",
    "load_dataset": "datasets",
    "Grid": "grid",
    "IndexSetting": "grid",
    "RetrievalSetting": "grid",
    "default_grid": "grid_file",
    "load_grid": "grid_file",
    "RunScores": "measures",
    "measure_name": "measures",
    "parse_measures": "measures",
    "LabelledClaim": "records",
    "Dataset": "records",
    "Query": "records",
}


_EXPORTS = Exports("ragward.evals", globals(), lazy=_HOME)


def __getattr__(name: str) -> Any:
    return _EXPORTS.find(name)


def __dir__() -> list[str]:
    return _EXPORTS.names()


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
