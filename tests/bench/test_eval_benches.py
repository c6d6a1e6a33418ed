"""The eval benchmarks run end to end on small inputs and write their reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragward.bench import grid_speed, metrics_speed
from tests.evals.dataset_files import write_dataset
from tests.evals.test_eval_cli import SMALL_GRID


@pytest.mark.slow
def test_grid_bench_checks_both_ways_agree_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    grid = tmp_path / "grid.toml"
    grid.write_text(SMALL_GRID, encoding="utf-8")
    argv = ["--dataset", str(data), "--grid", str(grid), "--out", str(tmp_path), "--repeat", "1"]
    assert grid_speed.main(argv) == 0
    figures = json.loads((tmp_path / "grid.json").read_text())
    assert figures["settings"] == 16
    assert figures["work_reuse"]["indexes"] == 2
    assert "rebuild per setting" in (tmp_path / "grid.md").read_text()
    capsys.readouterr()


def test_metrics_bench_agrees_with_pytrec_eval_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--queries", "50", "--docs", "20", "--repeat", "1", "--out", str(tmp_path)]
    assert metrics_speed.main(argv) == 0
    assert "agree within 1e-9: yes" in (tmp_path / "metrics.md").read_text()
    capsys.readouterr()


def test_metrics_commands_print_the_same_and_are_measured_apart() -> None:
    figures = metrics_speed.measure_commands(50, 20, 1)["rows"]
    assert set(figures) == {"ragward metrics", "pytrec_eval command"}
    for seconds, peak in figures.values():
        # each child's own peak: an interpreter is some MiB, far from the parent's
        assert seconds > 0
        assert 2**20 < peak < 2**30
