"""The matrix's repeat mode: verdicts of repeated runs tallied per column and invariant."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ragward.conformance.runner import Report, Verdict
from ragward.engines import Configuration
from ragward.engines.matrix import REFERENCE, Column, render_stability, tally, write_stability
from ragward.errors import InvalidArgument

_FAKE = Configuration("fake", "one", "a made-up engine", extra="", modules=())


def _column(configuration: Configuration, **statuses: str) -> Column:
    verdicts = tuple(
        Verdict(name.replace("_", "-"), "determinism", name, status, 25)
        for name, status in statuses.items()
    )
    return Column(configuration, Report("fake", "ci", verdicts), 1.0)


def test_tally_counts_each_verdict_of_each_cell_over_the_runs() -> None:
    runs = [
        [_column(_FAKE, DET_001="pass", DET_002="fail"), _column(REFERENCE, DET_001="pass")],
        [_column(_FAKE, DET_001="fail", DET_002="fail"), _column(REFERENCE, DET_001="pass")],
        [_column(_FAKE, DET_001="pass", DET_002="error"), _column(REFERENCE, DET_001="pass")],
    ]
    counts = tally(runs)
    assert counts == {
        "fake-one": {"DET-001": {"pass": 2, "fail": 1}, "DET-002": {"fail": 2, "error": 1}},
        "reference": {"DET-001": {"pass": 3}},
    }
    markdown, data = render_stability(counts, 3, "ci")
    cells = data["cells"]
    assert cells["fake-one"]["DET-001"] == {
        "runs": 3,
        "failures": 1,
        "statuses": {"fail": 1, "pass": 2},
        "stable": False,
    }
    # fail and error both count as failures, but two statuses are still a varying cell
    assert cells["fake-one"]["DET-002"]["failures"] == 3
    assert not cells["fake-one"]["DET-002"]["stable"]
    assert cells["reference"]["DET-001"] == {
        "runs": 3,
        "failures": 0,
        "statuses": {"pass": 3},
        "stable": True,
    }
    assert "1/3" in markdown
    assert "reference" in markdown


def test_a_steady_matrix_has_no_varying_cell() -> None:
    runs = [[_column(_FAKE, DET_001="fail")] for _ in range(4)]
    markdown, data = render_stability(tally(runs), 4, "ci")
    assert data["cells"]["fake-one"]["DET-001"]["stable"]
    assert data["cells"]["fake-one"]["DET-001"]["failures"] == 4
    assert "(none)" in markdown
    assert "DET-001" in markdown  # failed in every run


def test_write_stability_runs_each_column_n_times(tmp_path: Path) -> None:
    stream = io.StringIO()
    counts = write_stability([REFERENCE], tmp_path, 2, select=["DET-001", "DET-003"], stream=stream)
    assert counts == {"reference": {"DET-001": {"pass": 2}, "DET-003": {"pass": 2}}}
    data = json.loads((tmp_path / "stability.json").read_text(encoding="utf-8"))
    assert data["repeat"] == 2
    assert data["cells"]["reference"]["DET-003"]["runs"] == 2
    assert (tmp_path / "stability.md").exists()
    assert sorted(p.name for p in (tmp_path / "repeats").iterdir()) == ["run-1", "run-2"]
    assert (tmp_path / "repeats" / "run-2" / "reference.json").exists()


def test_write_stability_refuses_no_run(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument):
        write_stability([REFERENCE], tmp_path, 0)
