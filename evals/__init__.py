"""The labelled eval harness: datasets, grids, measures, and evaluation as a library.

>>> from ragward.evals import score_run
>>> score_run({"q": {"d1": 2}}, {"q": ["d1"]}, ["nDCG@10"]).summary["ndcg_cut_10"]
1.0
"""

from ragward.evals.api import Evaluation, SettingResult, evaluate, score_run
from ragward.evals.datasets import load_dataset
from ragward.evals.grid import Grid, IndexSetting, RetrievalSetting, default_grid, load_grid
from ragward.evals.measures import RunScores, measure_name, parse_measures
from ragward.evals.records import Claim, Dataset, Query

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
