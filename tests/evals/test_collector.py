"""A grid collects cyclic garbage rarely while it runs, and leaves the collector as it
found it, whether the grid finishes or fails."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ragward.conformance.records import Doc
from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.errors import AdapterError
from ragward.evals import evaluate, load_dataset, load_grid
from ragward.evals.runner import GRID_GC_THRESHOLD
from tests.evals.dataset_files import write_dataset
from tests.evals.grids import grid_toml

GRID = grid_toml(
    name="tiny",
    depth=3,
    measures=["nDCG@3"],
    mode=["lexical"],
    rerank=["none"],
    candidate_limit=[5],
    min_overlap=[0.5],
)

#: Thresholds no interpreter starts with, so a restore is told from a default.
MARKED = (777, 11, 12)


@pytest.fixture
def marked_collector() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*MARKED)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _recording(seen: list[tuple[int, ...]], fail: bool) -> Any:
    def factory(**kwargs: Any) -> ReferenceSystem:
        system = reference_factory(**kwargs)

        def ingest_many(docs: Iterable[Doc]) -> tuple[bool, ...]:
            seen.append(gc.get_threshold())
            if fail:
                raise RuntimeError("the index is full")
            return ReferenceSystem.ingest_many(system, docs)

        system.ingest_many = ingest_many  # type: ignore[method-assign]
        return system

    return factory


@pytest.mark.usefixtures("marked_collector")
def test_the_grid_runs_with_rare_collections_and_restores_them(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    (tmp_path / "grid.toml").write_text(GRID, encoding="utf-8")
    seen: list[tuple[int, ...]] = []
    evaluation = evaluate(dataset, _recording(seen, False), grid=load_grid(tmp_path / "grid.toml"))
    assert len(list(evaluation)) == 1
    assert seen
    assert {threshold[0] for threshold in seen} == {GRID_GC_THRESHOLD}
    assert gc.get_threshold() == MARKED


@pytest.mark.usefixtures("marked_collector")
def test_a_failing_grid_restores_the_collector_too(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    (tmp_path / "grid.toml").write_text(GRID, encoding="utf-8")
    seen: list[tuple[int, ...]] = []
    with pytest.raises(AdapterError, match="the index is full"):
        evaluate(dataset, _recording(seen, True), grid=load_grid(tmp_path / "grid.toml"))
    assert seen
    assert gc.get_threshold() == MARKED
