"""The labelled eval harness: datasets, grids, measures, and evaluation as a library.

>>> from ragward.evals import score_run
>>> score_run({"q": {"d1": 2}}, {"q": ["d1"]}, ["nDCG@10"]).summary["ndcg_cut_10"]
1.0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragward.evals.api import Evaluation, SettingResult, evaluate, score_run
    from ragward.evals.datasets import load_dataset
    from ragward.evals.grid import Grid, IndexSetting, RetrievalSetting
    from ragward.evals.grid_file import default_grid, load_grid
    from ragward.evals.measures import RunScores, measure_name, parse_measures
    from ragward.evals.records import Claim, Dataset, Query

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
    "Claim": "records",
    "Dataset": "records",
    "Query": "records",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'ragward.evals' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"ragward.evals.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME])


__all__ = [
    "Claim",
    "Dataset",
    "Evaluation",
    "Grid",
    "IndexSetting",
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
