"""The gate with a conformance report (``--conformance``): a clean, complete report of the
gated implementation passes; a failed, errored, partial or foreign one fails or is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import tests.evals.gate_inputs
import tests.evals.test_gate
from tests.evals.test_gate import _gated_with, _report

#: The identity a run records, with the list a real one holds (capabilities' ``modes``).
IMPLEMENTATION: dict[str, Any] = dict(
    tests.evals.gate_inputs.IMPLEMENTATION,
    capabilities={"lexical": True, "dense": True, "modes": ["hybrid", "lexical", "dense"]},
)


@pytest.fixture(autouse=True)
def _a_real_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both the gated run and the report record :data:`IMPLEMENTATION`."""
    for module in (tests.evals.gate_inputs, tests.evals.test_gate):
        monkeypatch.setattr(module, "IMPLEMENTATION", IMPLEMENTATION)


def test_a_clean_complete_conformance_report_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _gated_with(tmp_path, _report(tmp_path, {})) == 0
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "Conformance: every one of" in summary
    capsys.readouterr()


@pytest.mark.parametrize("verdict", ["fail", "error"])
def test_a_failed_or_errored_invariant_fails_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verdict: str
) -> None:
    from ragward.api import _kit

    first = sorted(_kit())[0]
    assert _gated_with(tmp_path, _report(tmp_path, {first: verdict})) == 1
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert f"**Invariant failed**: `{first} ({verdict})`" in summary
    assert "Conformance: every one of" not in summary
    capsys.readouterr()


def test_a_partial_report_fails_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragward.api import _kit

    first = sorted(_kit())[0]
    selected = _report(
        tmp_path, {}, selection=[first], invariants=[{"id": first, "verdict": "pass"}]
    )
    assert _gated_with(tmp_path, selected) == 1
    summary = (tmp_path / "now" / "gate.md").read_text()
    assert "made with --select" in summary
    assert "without" in summary
    assert _gated_with(tmp_path, selected, "--allow-partial") == 0
    older_kit = _report(tmp_path, {})
    data = json.loads(older_kit.read_text())
    data["catalogue"] = data["catalogue"][1:]
    data["invariants"] = data["invariants"][1:]
    older_kit.write_text(json.dumps(data))
    assert _gated_with(tmp_path, older_kit) == 1
    capsys.readouterr()


def _capabilities(**changes: Any) -> dict[str, Any]:
    """A report whose implementation's capabilities differ from the run's in ``changes``."""
    capabilities: dict[str, Any] = {**IMPLEMENTATION["capabilities"], **changes}
    return {"fingerprints": {"implementation": dict(IMPLEMENTATION, capabilities=capabilities)}}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"fingerprints": {"implementation": dict(IMPLEMENTATION, spec="other:factory")}},
            "the report is of",
        ),
        (
            {"fingerprints": {"implementation": dict(IMPLEMENTATION, capabilities={"x": True})}},
            "capabilities of 'ragward.engines.reference:reference_factory' differ",
        ),
        (
            {
                "fingerprints": {
                    "implementation": {
                        k: v for k, v in IMPLEMENTATION.items() if k != "index_settings_passed"
                    }
                }
            },
            "index_settings_passed of 'ragward.engines.reference:reference_factory' differ",
        ),
        ({"schema": 1}, "written by an earlier ragward conform"),
        ({"catalogue": None}, "catalogue"),
        # found by tests/test_fuzz_hostile_json.py: 1 == True let these pass as the run's
        (
            {"fingerprints": {"implementation": dict(IMPLEMENTATION, index_settings_passed=1)}},
            "index_settings_passed of 'ragward.engines.reference:reference_factory' differ",
        ),
        ({"schema": 2.0, "catalogue": ["\ud800"]}, "field 'catalogue'"),
        # Values of another JSON type than the run's, each refused, none taken for a crash.
        (_capabilities(modes=["hybrid", "lexical", "lexical"]), "capabilities of"),
        (_capabilities(modes=["hybrid", "lexical"]), "capabilities of"),
        (_capabilities(modes="hybrid lexical dense"), "capabilities of"),
        (_capabilities(lexical=[True]), "capabilities of"),
        (_capabilities(modes={"hybrid": 1, "lexical": 1, "dense": 1}), "capabilities of"),
        (
            {"fingerprints": {"implementation": dict(IMPLEMENTATION, spec={"module": "x"})}},
            "the report is of \"{'module': 'x'}\"",
        ),
    ],
)
def test_a_report_of_another_system_or_layout_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, Any], expected: str
) -> None:
    capsys.readouterr()
    assert _gated_with(tmp_path, _report(tmp_path, {}, **changes)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert expected in err


@pytest.mark.parametrize("entry", [{"verdict": "pass"}, "GRD-001", {"id": 7, "verdict": "pass"}])
def test_an_invariant_entry_without_an_id_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: Any
) -> None:
    report = _report(tmp_path, {})
    data = json.loads(report.read_text())
    data["invariants"].insert(1, entry)
    report.write_text(json.dumps(data))
    capsys.readouterr()
    assert _gated_with(tmp_path, report) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "field 'invariants[1].id': missing" in err


def test_an_unknown_verdict_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ragward.api import _kit

    report = _report(tmp_path, {sorted(_kit())[0]: "skipped"})
    capsys.readouterr()
    assert _gated_with(tmp_path, report) == 2
    assert "'skipped' is not a verdict" in capsys.readouterr().err


@pytest.mark.parametrize("verdict", [["pass"], {"pass": 1}, None, 1])
def test_a_verdict_that_is_not_a_string_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], verdict: Any
) -> None:
    """Found by tests/test_fuzz_hostile_json.py: a list or an object was exit 3."""
    from ragward.api import _kit

    report = _report(tmp_path, {sorted(_kit())[0]: verdict})
    capsys.readouterr()
    assert _gated_with(tmp_path, report) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "is not a verdict" in err


def test_an_invariant_id_that_is_not_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An id with a lone surrogate (JSON's "\\ud800") failed the gate, then was exit 3
    writing the summary that names it."""
    report = _report(tmp_path, {})
    data = json.loads(report.read_text())
    data["invariants"].append({"id": "\ud800", "verdict": "fail"})
    report.write_text(json.dumps(data))
    capsys.readouterr()
    assert _gated_with(tmp_path, report) == 2
    assert f"field 'invariants[{len(data['invariants']) - 1}].id'" in capsys.readouterr().err
