"""The gate's power benchmark: its grids, its samples, and the command in its quick mode."""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragward.bench import gate_power
from ragward.bench.degraded import RankNoise, degraded_factory
from ragward.bench.power_grids import (
    SHAPES,
    comparisons,
    outcome_data,
    outcome_from,
    part,
    power_grid,
    results_of,
    sampled,
)
from ragward.datasets import bundled
from ragward.engines.reference import reference_factory
from ragward.evals.datasets import load_dataset
from ragward.evals.gate import compare
from ragward.evals.grid_file import default_grid
from ragward.evals.runner import run_grid


def test_the_grids_make_the_sizes_named_and_nest() -> None:
    grids = [power_grid("g", default_grid().indexes, shape) for shape in SHAPES]
    for shape, grid in zip(SHAPES, grids, strict=True):
        assert comparisons(grid, claims=True) == shape.comparisons
    for smaller, larger in itertools.pairwise(grids):
        assert set(smaller.all_settings()) <= set(larger.all_settings())
        assert set(smaller.min_overlaps) <= set(larger.min_overlaps)
    assert [shape.comparisons for shape in SHAPES] == [24, 88, 450, 1224]


def test_a_part_on_a_half_is_what_eval_writes_for_that_grid_and_half() -> None:
    """One run of the larger grid stands for a run of each smaller one on each half."""
    dataset = load_dataset(bundled())
    small, large = (power_grid("g", default_grid().indexes, shape) for shape in SHAPES[:2])
    run = run_grid(dataset, large, reference_factory, splits=("test",), stream=io.StringIO())
    sample, split = sampled(dataset, "test", seed=5)
    assert len(sample.qrels[split]) == len(dataset.qrels["test"]) // 2
    assert len(sample.split_claims(split)) == len(dataset.split_claims("test")) // 2
    made = results_of(sample, small, split, part(run, small), "reference")
    direct = run_grid(sample, small, reference_factory, splits=(split,), stream=io.StringIO())
    written = results_of(sample, small, split, direct, "reference")
    made.pop("work"), written.pop("work")  # the calls made differ, not the answers
    # so do the systems built: the larger grid's include its reranking ones
    made["fingerprints"].pop("models"), written["fingerprints"].pop("models")
    assert made == written
    # the gate compares the figures named: 24 comparisons
    assert len(compare(made, written, trials=50).findings) == 24
    # halves of other seeds differ
    assert sampled(dataset, "test", seed=6)[0].qrels[split] != sample.qrels[split]


def test_an_outcome_survives_its_data_round_trip() -> None:
    dataset = load_dataset(bundled())
    grid = power_grid("g", default_grid().indexes, SHAPES[0])
    factory = degraded_factory(RankNoise(2.0, seed=1))
    run = run_grid(dataset, grid, factory, splits=("test",), stream=io.StringIO())
    again = outcome_from(json.loads(json.dumps(outcome_data(run))), grid)
    assert results_of(dataset, grid, "test", again, "x") == results_of(
        dataset, grid, "test", run, "x"
    )


def test_quick_mode_writes_the_report_detects_halving_and_not_a_rerun(tmp_path: Path) -> None:
    assert gate_power.main(["--quick", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "power.json").read_text(encoding="utf-8"))
    markdown = (tmp_path / "power.md").read_text(encoding="utf-8")
    assert report["format"] == "ragward-gate-power/1"
    assert report["command"] == "python -m ragward.bench.gate_power --quick --out DIR"
    shown = gate_power._shown(["--data=/x/scifact", "--out", "reports/gate", "--repeats", "5"])
    assert shown == "python -m ragward.bench.gate_power --data DIR --out reports/gate --repeats 5"
    assert report["sizes"] == [24, 88]
    tidewater, scifact = report["datasets"]
    assert scifact == {"name": "scifact", "skipped": "skipped: --quick runs the bundled set only"}
    rows = {(row["row"], row["size"]): row for row in tidewater["rows"]}
    names = {name for name, _ in rows}
    assert names == {p.name for p in gate_power.PLANTS} | {"unchanged", "noise-4 twice"}
    for size in (24, 88):
        halved = rows["halved", size]
        assert halved["comparisons"] == size
        assert halved["detection_rate"] == 1.0
        assert halved["mean_ndcg10_delta"] < -0.25  # about half of the reference's 0.7
        unchanged = rows["unchanged", size]
        assert unchanged["repeats"] == 3
        assert unchanged["failed"] == 0
        assert unchanged["mean_ndcg10_delta"] == 0.0
        assert rows["frozen-30", size]["by_leak"] > 0  # outdated versions are leaks
    assert tidewater["reruns_identical"] == [True]
    assert "| halved " in markdown
    assert "100% (3/3)" in markdown
    assert "Not measured: --quick runs the bundled set only." in markdown


@pytest.mark.slow
def test_the_same_arguments_give_the_same_report(tmp_path: Path) -> None:
    """Seeded draws and no timings: a report can be committed and diffed."""
    for name in ("one", "two"):
        argv = ["--quick", "--sizes", "24", "--out", str(tmp_path / name)]
        assert gate_power.main(argv) == 0
    for file in ("power.json", "power.md"):
        assert (tmp_path / "one" / file).read_bytes() == (tmp_path / "two" / file).read_bytes()


@pytest.mark.parametrize(
    "options",
    [["--repeats", "0"], ["--sizes", "25"], ["--data", "no-such-folder"]],
)
def test_bad_options_exit_2_with_one_line(tmp_path: Path, options: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ragward.bench.gate_power", "--out", str(tmp_path), *options],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "power.md").exists()
