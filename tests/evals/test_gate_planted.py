"""The committed baseline against the bundled set: the reference passes the gate, a planted
regression and a leaking implementation fail it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragward.cli import main
from tests.evals.grids import grid_toml

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "reports" / "baseline"

# A slice of the default grid (same setting ids as the baseline), to keep the test quick.
SLICE = grid_toml(
    chunking=[(96, 16)],
    mode=["hybrid", "lexical"],
    rrf_k=[60],
    rerank=[True, False],
    min_overlap=[0.6],
)


def _eval_then_gate(tmp_path: Path, impl: str, *, allow_missing: bool = True) -> tuple[int, str]:
    grid = tmp_path / "slice.toml"
    grid.write_text(SLICE, encoding="utf-8")
    out = tmp_path / "current"
    argv = ["eval", "--quiet", "--grid", str(grid), "--out", str(out), "--impl", impl]
    assert main(argv) == 0
    # the slice holds 4 of the baseline's settings: the others are missing, allowed here
    gate = ["gate", "--baseline", str(BASELINE), "--current", str(out)]
    code = main([*gate, "--allow-missing"] if allow_missing else gate)
    return code, (out / "gate.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_reference_passes_against_the_committed_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = _eval_then_gate(tmp_path, "ragward.engines.reference:reference_factory")
    capsys.readouterr()
    assert code == 0, summary
    assert "# Quality gate: PASS" in summary


@pytest.mark.slow
def test_a_slice_of_the_baselines_grid_fails_on_what_it_misses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = _eval_then_gate(
        tmp_path, "ragward.engines.reference:reference_factory", allow_missing=False
    )
    capsys.readouterr()
    assert code == 1
    assert "- **Missing**: setting c48o8/hash-96/hybrid/k10/norerank/cl30" in summary
    assert "grid: baseline sha256:" in summary  # another grid, the same data: judged


@pytest.mark.slow
def test_a_planted_regression_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = _eval_then_gate(tmp_path, "tests.evals.planted:coarse_factory")
    capsys.readouterr()
    assert code == 1
    assert "# Quality gate: FAIL" in summary
    assert "| regression | c96o16/hash-96/hybrid/k60/norerank/cl30 | ndcg_cut_10" in summary


@pytest.mark.slow
@pytest.mark.parametrize(
    "factory",
    [
        pytest.param("leaky_factory", id="a-leak"),
        pytest.param("timeless_factory", id="ignoring-freshness"),  # a stale hit is a leak
    ],
)
def test_a_leak_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], factory: str
) -> None:
    code, summary = _eval_then_gate(tmp_path, f"tests.evals.planted:{factory}")
    capsys.readouterr()
    assert code == 1
    assert "**Leak**" in summary
