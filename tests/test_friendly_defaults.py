"""Friendlier defaults: the report is named after the dataset, ``--impl`` takes a file,
``gate --tolerance`` refuses a measure the runs do not have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import one_error_line, run, write_inputs
from tests.evals.dataset_files import write_dataset


def test_eval_on_a_dataset_without_out_writes_reports_named_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_dataset(tmp_path / "mybank")
    monkeypatch.chdir(tmp_path)
    code, stdout, _ = run(["eval", "--dataset", str(data), "--quiet"], capsys)
    assert code == 0
    out = Path("reports") / "mybank"
    assert f"wrote {out / 'results.json'}" in stdout
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["name"] == "mybank"
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("# Eval report: mybank\n")
    assert sorted(p.name for p in Path("reports").iterdir()) == ["mybank"]  # not tidewater


def _adapter_file(folder: Path, stem: str) -> Path:
    folder.mkdir(parents=True)
    path = folder / f"{stem}.py"
    path.write_text(
        "from ragward.engines.reference import reference_factory\n\n\n"
        "def factory(**keywords):\n    return reference_factory(**keywords)\n",
        encoding="utf-8",
    )
    return path


def test_impl_takes_the_path_of_a_python_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path / "in")
    adapter = _adapter_file(tmp_path / "mine", "ragward_test_file_adapter")
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(inputs.data), "--grid", str(inputs.grid), "--quiet"]
    code, _, err = run([*argv, "--out", str(out), "--impl", f"{adapter}:factory"], capsys)
    assert code == 0, err
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["implementation"] == f"{adapter}:factory"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            "{tmp}/nope.py:factory", "no file {tmp}/nope.py; give pkg.module:factory", id="missing"
        ),
        pytest.param(
            "{tmp}/notes.txt:factory", "is not a .py file; give pkg.module:factory", id="not-py"
        ),
        pytest.param(
            "{tmp}/my-adapter.py:factory", "my-adapter.py is not a module name", id="bad-name"
        ),
    ],
)
@pytest.mark.parametrize("command", ["eval", "conform"])
def test_impl_with_a_path_it_cannot_import_says_to_use_a_module_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, expected: str, command: str
) -> None:
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    (tmp_path / "my-adapter.py").write_text("", encoding="utf-8")
    spec = spec.format(tmp=tmp_path)
    inputs = write_inputs(tmp_path / "in")
    argv = {
        "eval": ["eval", "--dataset", str(inputs.data), "--out", str(tmp_path / "out")],
        "conform": ["conform"],
    }[command]
    code, _, err = run([*argv, "--impl", spec], capsys)
    assert code == 2
    line = one_error_line(err, command)
    assert expected.format(tmp=tmp_path) in line
    assert f"--impl {spec}: " in line


@pytest.mark.parametrize(
    ("tolerance", "expected"),
    [
        pytest.param(
            "recall_10=0.01",
            "--tolerance recall_10: not a measure of the runs (they have ndcg_cut_10)",
            id="not-in-the-runs",
        ),
        pytest.param("recal_10=0.01", "unknown measure", id="not-a-measure"),
    ],
)
def test_gate_tolerance_for_an_unknown_measure_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tolerance: str, expected: str
) -> None:
    inputs = write_inputs(tmp_path)
    argv = ["gate", "--baseline", str(inputs.baseline), "--current", str(inputs.current)]
    code, _, err = run([*argv, "--tolerance", tolerance], capsys)
    assert code == 2
    assert expected in one_error_line(err, "gate")
    assert not (inputs.current / "gate.md").exists()
