"""The harness as a Python library: load a set, score a run, evaluate an implementation.

    >>> from ragward.evals import load_dataset, evaluate, score_run
    >>> dataset = load_dataset("datasets/tidewater")                   # doctest: +SKIP
    >>> evaluation = evaluate(dataset, measures=["nDCG@10", "R@100"])  # doctest: +SKIP
    >>> evaluation.best("nDCG@10").id, evaluation.best("nDCG@10").means  # doctest: +SKIP
    >>> lexical = evaluation["c96o16/hash-96/lexical/norerank/cl30"]  # doctest: +SKIP
    >>> lexical.per_query["ndcg_cut_10"]["q1"]  # doctest: +SKIP

Measure names are accepted in ``trec_eval``'s spelling (``ndcg_cut_10``) and in
ir_measures' (``nDCG@10``, ``R@100``, ``RR``, ``P@10``); results are keyed by the
``trec_eval`` names.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TextIO

from ragward.errors import InputError
from ragward.evals.grid import Grid, RetrievalSetting
from ragward.evals.grid_file import default_grid
from ragward.evals.grid_size import SizeLimits
from ragward.evals.grounding import GroundingScores
from ragward.evals.measures import RunScores, evaluate_run, measure_name, parse_measures
from ragward.evals.records import Dataset
from ragward.evals.runner import GridOutcome
from ragward.evals.scoring import score_outcome

__all__ = [
    "Evaluation",
    "FittedRun",
    "SettingResult",
    "check_split",
    "evaluate",
    "run_fitted",
    "score_run",
]

Run = Mapping[str, Mapping[str, float]] | Mapping[str, Sequence[str]]


def score_run(
    qrels: Mapping[str, Mapping[str, int]],
    run: Run,
    measures: Sequence[str] = ("nDCG@10", "R@100", "RR", "P@10"),
    *,
    complete: bool = True,
) -> RunScores:
    """Score ``run`` against ``qrels`` as ``trec_eval`` would.

    ``run`` maps a query id to ``{doc_id: score}`` — ranked by descending score, ties by
    descending doc id, as ``trec_eval`` ranks — or to a ranked list of doc ids.
    ``complete`` scores a judged query missing from the run as an empty ranking
    (``trec_eval -c``). Per-query values are in ``.per_query[qid][measure]``, means in
    ``.summary``.

    >>> scores = score_run({"q": {"d1": 1}}, {"q": {"d0": 2.0, "d1": 1.0}}, ["RR", "P@2"])
    >>> scores.summary["recip_rank"], scores.summary["P_2"]
    (0.5, 0.5)
    """
    rankings: dict[str, Sequence[str]] = {}
    for qid, answer in run.items():
        if isinstance(answer, Mapping):
            rankings[qid] = _trec_order(answer)
        else:
            rankings[qid] = list(answer)
    return evaluate_run(parse_measures(measures), qrels, rankings, complete=complete)


def _trec_order(scores: Mapping[str, float]) -> list[str]:
    # descending score, equal scores by descending doc id: trec_eval's order
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]))][::-1]


@dataclass(frozen=True)
class SettingResult:
    """One setting's figures: means and per-query values by ``trec_eval`` measure name
    (``leakage_K`` among them), grounding scores by threshold."""

    setting: RetrievalSetting
    means: Mapping[str, float]
    per_query: Mapping[str, Mapping[str, float]]  # measure -> query id -> value
    grounding: Mapping[float, GroundingScores]

    @property
    def id(self) -> str:
        return self.setting.id

    def mean(self, measure: str) -> float:
        """The mean of ``measure`` (either spelling)."""
        return self.means[measure_name(measure)]


@dataclass(frozen=True)
class Evaluation:
    """Every setting of a grid, evaluated on one split.

    ``grid`` is the grid as run: fitted to what the implementation declares, ``dropped``
    saying what fitting left out (one line each). ``report`` is the content of
    ``results.json``; ``outcome`` every answer (for TREC runs).
    """

    dataset: str
    split: str
    grid: Grid
    settings: tuple[SettingResult, ...]
    dropped: tuple[str, ...]
    report: dict[str, Any] = dataclasses.field(repr=False, compare=False)
    outcome: GridOutcome = dataclasses.field(repr=False, compare=False)

    def __iter__(self) -> Iterator[SettingResult]:
        return iter(self.settings)

    def __len__(self) -> int:
        return len(self.settings)

    def __getitem__(self, setting_id: str) -> SettingResult:
        for result in self.settings:
            if result.id == setting_id:
                return result
        raise KeyError(setting_id)

    def best(self, measure: str) -> SettingResult:
        """The setting with the highest mean ``measure``; the first in grid order on a tie."""
        name = measure_name(measure)
        if name not in self.grid.measures:
            raise InputError(
                f"measure {measure!r} was not evaluated ({', '.join(self.grid.measures)})"
            )
        return max(enumerate(self.settings), key=lambda item: (item[1].means[name], -item[0]))[1]


def check_split(dataset: Dataset, split: str) -> None:
    """Refuse a split that would give a report of zeros: absent, empty, or judging no
    document relevant (every ranking measure is then 0, whatever the system does)."""
    if split not in dataset.qrels:
        known = ", ".join(sorted(dataset.qrels))
        raise InputError(f"split {split!r} has no qrels in {dataset.name} (it has: {known})")
    source = dataset.sources.get(f"qrels:{split}", f"qrels of split {split}")
    judged = dataset.qrels[split]
    if not judged:
        raise InputError(f"{source}: no judgements: split {split!r} is empty")
    if not any(grade > 0 for docs in judged.values() for grade in docs.values()):
        raise InputError(
            f"{source}: no query of split {split!r} has a relevant document (grade > 0), "
            "so every ranking measure would be 0"
        )


@dataclass(frozen=True)
class FittedRun:
    """A grid run on some splits: the grid as fitted, what fitting dropped, the answers."""

    grid: Grid
    dropped: tuple[str, ...]
    outcome: GridOutcome


def run_fitted(
    dataset: Dataset,
    grid: Grid,
    factory: Callable[..., Any],
    *,
    splits: tuple[str, ...],
    name: str,
    reuse: bool = True,
    progress: TextIO | None = None,
    limits: SizeLimits | None = None,
    grid_name: str = "the grid",
    on_fit: Callable[[tuple[str, ...]], None] | None = None,
) -> FittedRun:
    """Check ``splits``, fit ``grid`` to what ``factory``'s systems declare (``on_fit`` is
    told what was dropped, before any index is built), refuse a run bigger than ``limits``,
    then answer every query of ``splits`` under every setting."""
    from ragward.evals.grid_size import check_memory
    from ragward.evals.runner import run_grid  # looked up per call: tests replace it
    from ragward.evals.systems import fit_grid

    for split in splits:
        check_split(dataset, split)
    grid, dropped = fit_grid(grid, factory, name)
    if on_fit is not None:
        on_fit(tuple(dropped))
    if limits is not None:
        check_memory(grid, dataset, splits, grid_name, limits)
    outcome = run_grid(
        dataset,
        grid,
        factory,
        splits=splits,
        name=name,
        reuse=reuse,
        stream=progress if progress is not None else io.StringIO(),
    )
    return FittedRun(grid, tuple(dropped), outcome)


def evaluate(
    dataset: Dataset,
    factory: Callable[..., Any] | None = None,
    *,
    grid: Grid | None = None,
    split: str | None = None,
    measures: Sequence[str] | None = None,
    progress: TextIO | None = None,
    name: str | None = None,
    reuse: bool = True,
    limits: SizeLimits | None = None,
    grid_name: str = "the grid",
    on_fit: Callable[[tuple[str, ...]], None] | None = None,
) -> Evaluation:
    """Evaluate an implementation over every setting of ``grid`` on ``split``.

    ``factory`` builds the implementation (the reference when None), as ``--impl`` names
    it, and ``name`` is how reports name it; ``grid`` defaults to the packaged default
    grid, fitted to what the implementation declares (see :func:`run_fitted`), ``split``
    to the grid's, and ``measures``, when given, replaces the grid's. Progress bars go to
    ``progress`` (nowhere by default). This is what ``ragward eval`` runs.
    """
    from ragward.engines.reference import reference_factory
    from ragward.evals.report import build_results

    grid = grid or default_grid()
    if measures is not None:
        names = tuple(dict.fromkeys(m.name for m in parse_measures(measures)))
        grid = replace(grid, measures=names)
    split = split or grid.split
    if name is None:
        name = getattr(factory, "__name__", "implementation") if factory else "reference"
    run = run_fitted(
        dataset,
        grid,
        factory or reference_factory,
        splits=(split,),
        name=name,
        reuse=reuse,
        progress=progress,
        limits=limits,
        grid_name=grid_name,
        on_fit=on_fit,
    )
    scores, gold = score_outcome(run.outcome, dataset, run.grid, split)
    results = tuple(SettingResult(s.setting, s.means, s.per_query, s.grounding) for s in scores)
    report = build_results(
        dataset=dataset,
        grid=run.grid,
        split=split,
        implementation=name,
        outcome=run.outcome,
        scores=scores,
        gold=gold,
    )
    return Evaluation(dataset.name, split, run.grid, results, run.dropped, report, run.outcome)
