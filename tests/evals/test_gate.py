"""``ragward gate``: significant regressions and leaks fail, noise and the same run pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragward.cli import main
from ragward.evals.gate import compare


def _results(per_query: dict[str, dict[str, float]], setting: str = "s1") -> dict[str, Any]:
    means = {m: sum(v.values()) / len(v) for m, v in per_query.items()}
    return {
        "format": "ragward-eval/1",
        "settings": [{"id": setting, "means": means, "per_query": per_query, "per_claim": {}}],
    }


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return path


QUERIES = [f"q{i:03d}" for i in range(60)]
GOOD = {q: 0.8 if i % 3 else 0.6 for i, q in enumerate(QUERIES)}


def test_identical_runs_pass() -> None:
    data = _results({"ndcg_cut_10": GOOD, "leakage_10": dict.fromkeys(QUERIES, 0.0)})
    result = compare(data, data)
    assert result.passed
    assert [f.status for f in result.findings] == ["unchanged"]
    assert result.findings[0].p_value == 1.0


def test_a_consistent_drop_is_a_regression() -> None:
    worse = {q: v - 0.1 for q, v in GOOD.items()}
    result = compare(_results({"ndcg_cut_10": GOOD}), _results({"ndcg_cut_10": worse}))
    assert not result.passed
    (finding,) = result.findings
    assert finding.status == "regression"
    assert finding.adjusted_p < 0.05


def test_a_drop_within_tolerance_passes() -> None:
    worse = {q: v - 0.01 for q, v in GOOD.items()}
    result = compare(
        _results({"ndcg_cut_10": GOOD}), _results({"ndcg_cut_10": worse}), tolerance=0.02
    )
    assert result.passed


def test_noise_on_a_few_queries_is_not_significant() -> None:
    noisy = dict(GOOD)
    noisy["q000"] -= 0.2
    noisy["q001"] += 0.1
    result = compare(_results({"ndcg_cut_10": GOOD}), _results({"ndcg_cut_10": noisy}))
    assert result.passed


def test_any_leak_fails_even_without_a_regression() -> None:
    leaky = dict.fromkeys(QUERIES, 0.0)
    leaky["q007"] = 1.0
    data = _results({"ndcg_cut_10": GOOD, "leakage_10": leaky})
    result = compare(data, data)
    assert not result.passed
    assert result.leaks == ("s1",)


def test_runs_on_different_queries_cannot_be_compared() -> None:
    fewer = {q: v for q, v in GOOD.items() if q != "q000"}
    with pytest.raises(Exception, match="different queries"):
        compare(_results({"ndcg_cut_10": GOOD}), _results({"ndcg_cut_10": fewer}))


def test_gate_command_exit_codes_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _write(tmp_path / "base", _results({"ndcg_cut_10": GOOD}))
    same = _write(tmp_path / "same", _results({"ndcg_cut_10": GOOD}))
    worse = _write(
        tmp_path / "worse", _results({"ndcg_cut_10": {q: v - 0.2 for q, v in GOOD.items()}})
    )
    assert main(["gate", "--baseline", str(base), "--current", str(same)]) == 0
    assert "# Quality gate: PASS" in (same / "gate.md").read_text()
    assert main(["gate", "--baseline", str(base), "--current", str(worse)]) == 1
    summary = (worse / "gate.md").read_text()
    assert "# Quality gate: FAIL" in summary
    assert "regression" in summary
    capsys.readouterr()


def test_failed_invariant_in_a_conformance_report_fails_the_gate(tmp_path: Path) -> None:
    base = _write(tmp_path / "base", _results({"ndcg_cut_10": GOOD}))
    report = tmp_path / "conform.json"
    report.write_text(json.dumps({"invariants": [{"id": "PRE-001", "verdict": "fail"}]}))
    argv = ["gate", "--baseline", str(base), "--current", str(base)]
    assert main([*argv, "--conformance", str(report)]) == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{", "not valid JSON"),
        ('{"format": "other"}', "not a ragward eval results file"),
    ],
)
def test_bad_results_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    base = _write(tmp_path / "base", _results({"ndcg_cut_10": GOOD}))
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert main(["gate", "--baseline", str(base), "--current", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert expected in err
    assert "bad.json" in err


def test_a_clean_conformance_report_is_acknowledged(tmp_path: Path) -> None:
    base = _write(tmp_path / "base", _results({"ndcg_cut_10": GOOD}))
    report = tmp_path / "conform.json"
    report.write_text(json.dumps({"invariants": [{"id": "PRE-001", "verdict": "pass"}]}))
    argv = ["gate", "--baseline", str(base), "--current", str(base)]
    assert main([*argv, "--conformance", str(report)]) == 0
    assert "Conformance: none of 1 verdicts failed" in (base / "gate.md").read_text()


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ([{"id": "s1", "means": {}}], "settings[0].per_query"),
        ([_results({"ndcg_cut_10": GOOD})["settings"][0], "s2"], "settings[1].per_query"),
    ],
)
def test_a_results_file_without_per_query_values_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: list[Any], field: str
) -> None:
    base = _write(tmp_path / "base", _results({"ndcg_cut_10": GOOD}))
    bad = _write(tmp_path / "bad", {"format": "ragward-eval/1", "settings": settings})
    assert main(["gate", "--baseline", str(base), "--current", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"bad/results.json: field '{field}': missing" in err, err


def test_a_missing_results_file_is_named_as_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _write(tmp_path / "base", _results({"ndcg_cut_10": GOOD}))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["gate", "--baseline", str(base), "--current", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "current results not found" in err
    assert str(empty / "results.json") in err
