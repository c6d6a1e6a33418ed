"""The kit's ways in: ``ragward conform`` (run, JSON, errors, replay) and the pytest plugin.

Most tests run a throwaway invariant registered for the test only (``conform_fixtures``),
so they are fast and do not depend on which invariants the kit ships; the slow tier runs
the whole registry.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ragward.cli import main
from ragward.conformance.invariant import catalogue

from .broken import SharedNamespace
from .conform_fixtures import LEAK_ID, MODULE, NA_ID, throwaway  # noqa: F401

pytest_plugins = ["pytester"]

LEAKY = f"{MODULE}:leaky_factory"
TOY = "ragward.conformance.examples.toy:factory"


def _conform(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["conform", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("throwaway")
def test_reference_passes_selected_invariants(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _conform(capsys, "--select", f"{LEAK_ID},{NA_ID}")
    assert code == 0, out + err
    rows = {line.split()[0]: line.split()[2] for line in out.splitlines() if "ZZ-" in line}
    assert rows == {LEAK_ID: "pass", NA_ID: "pass"}
    # a selection makes no claim on the kit: it says how much of it ran
    kit = len(catalogue()) + 2  # the two throwaway invariants are not part of the kit
    assert out.rstrip().endswith(f"— 2 of {kit} invariants run: all hold"), out
    assert "CONFORM" not in out
    assert "Counterexamples" not in out


@pytest.mark.usefixtures("throwaway")
def test_not_applicable_is_reported_with_its_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _conform(capsys, "--impl", TOY, "--select", f"{LEAK_ID},{NA_ID}")
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith(NA_ID))
    assert line.split()[2] == "n/a"
    assert "needs capability assembly" in line


@pytest.mark.usefixtures("throwaway")
def test_json_report_is_deterministic(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    runs = []
    for _ in range(2):
        code, _, _ = _conform(capsys, "--impl", LEAKY, "--select", LEAK_ID, "--json", str(target))
        assert code == 1
        runs.append(target.read_bytes())
    assert runs[0] == runs[1]
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temp file left
    report = json.loads(runs[0])
    assert report["implementation"] == LEAKY
    assert report["counts"] == {"pass": 0, "fail": 1, "error": 0, "n/a": 0}
    (entry,) = report["invariants"]
    assert entry["id"] == LEAK_ID
    assert entry["verdict"] == "fail"
    assert entry["examples"] >= 1
    assert set(entry["counterexample"]) == {"docs", "asker", "query"}
    assert entry["replay"].endswith(f"--replay {target} --invariant {LEAK_ID}")
    assert b"0x" not in runs[0]
    # keys sorted at every level and indented by two, as docs/conformance.md shows it
    text = runs[0].decode("utf-8")
    assert text == json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    ("impl", "message"),
    [
        ("no-colon", "is not of the form pkg.module:factory"),
        ("no_such_module_xyz:factory", "module 'no_such_module_xyz' not found"),
        (f"{MODULE}:missing", f"module '{MODULE}' has no attribute 'missing'"),
        (f"{MODULE}:constant", "is a int, not a callable factory"),
        (f"{MODULE}:not_a_system", "lacks capabilities, ingest, delete, retrieve"),
    ],
)
@pytest.mark.usefixtures("throwaway")
def test_bad_impl_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], impl: str, message: str
) -> None:
    code, out, err = _conform(capsys, "--impl", impl, "--select", LEAK_ID)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("ragward conform: error: ")
    assert message in err


@pytest.mark.parametrize(
    "args",
    [
        ["--select", "NOPE-1"],
        ["--invariant", "X"],
        ["--json", "/no/such/dir/report.json"],
        ["--replay", "/no/such/file.json"],
    ],
)
@pytest.mark.usefixtures("throwaway")
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    code, _, err = _conform(capsys, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.usefixtures("throwaway")
def test_failure_prints_a_readable_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _conform(capsys, "--impl", LEAKY, "--select", LEAK_ID)
    assert code == 1
    summary = out.split("Counterexamples", 1)[0].rstrip().splitlines()[-1]
    assert summary.endswith(f"— 1 of {len(catalogue()) + 1} invariants run; it fails"), summary
    assert "CONFORM" not in out
    story = out.split("Counterexamples", 1)[1]
    assert f"{LEAK_ID} (isolation) no hit from another tenant" in story
    assert "fail: hit " in story
    assert "is not a document of acme" in story
    docs = [line.strip() for line in story.splitlines() if line.strip().startswith("- ")]
    assert any(line.startswith("- globex/d") for line in docs), story  # the leaked document
    assert all("[internal, no barrier, tick 0]:" in line for line in docs), story
    assert "asker: alice@acme (internal, no barriers)" in story
    assert f"replay: ragward conform --impl {LEAKY} --select {LEAK_ID}" in story


@pytest.mark.usefixtures("throwaway")
def test_replay_reproduces_the_failure(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    _conform(capsys, "--impl", LEAKY, "--select", LEAK_ID, "--json", str(report))
    code, out, _ = _conform(
        capsys, "--impl", LEAKY, "--replay", str(report), "--invariant", LEAK_ID
    )
    assert code == 1
    assert f"{LEAK_ID} still fails" in out
    assert "globex/d" in out
    # One invariant's entry on its own replays too (and --invariant is then optional).
    entry = tmp_path / "entry.json"
    entry.write_text(json.dumps(json.loads(report.read_text())["invariants"][0]))
    assert _conform(capsys, "--impl", LEAKY, "--replay", str(entry))[0] == 1
    # The same case against the reference holds.
    code, out, _ = _conform(capsys, "--replay", str(entry))
    assert code == 0
    assert "holds" in out


@pytest.mark.usefixtures("throwaway")
def test_replay_rejects_bad_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    for text in ("not json", "[1]", json.dumps({"id": "NOPE", "counterexample": {}})):
        bad.write_text(text)
        code, _, err = _conform(capsys, "--replay", str(bad))
        assert code == 2, text
        assert len(err.strip().splitlines()) == 1, err
    bad.write_text(json.dumps({"id": LEAK_ID, "counterexample": {"docs": [], "oops": 1}}))
    code, _, err = _conform(capsys, "--replay", str(bad))
    assert code == 2
    assert "unknown field(s) oops" in err


@pytest.mark.slow
@pytest.mark.usefixtures("throwaway")
def test_external_peer_is_checked_over_the_wire(capsys: pytest.CaptureFixture[str]) -> None:
    peer = f"{shlex.quote(sys.executable)} -m ragward.wire_reference"
    code, out, err = _conform(capsys, "--external", peer, "--select", LEAK_ID)
    assert code == 0, out + err
    assert f"external: {peer} (ci profile): 1 pass" in out
    code, out, err = _conform(capsys, "--external", "no-such-peer-xyz", "--select", LEAK_ID)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "no-such-peer-xyz" in err


# -- the pytest plugin ----------------------------------------------------------------


@pytest.mark.usefixtures("throwaway")
def test_plugin_passes_the_reference(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        "--ragward-impl=ragward.engines.reference:reference_factory",
        f"--ragward-select={LEAK_ID}",
        "-v",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"ragward::{LEAK_ID} PASSED*"])


@pytest.mark.usefixtures("throwaway")
def test_plugin_skips_not_applicable_with_the_reason(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(
        f"--ragward-impl={TOY}", f"--ragward-select={LEAK_ID},{NA_ID}", "-rs"
    )
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*not applicable: needs capability assembly*"])


@pytest.mark.usefixtures("throwaway")
def test_plugin_fails_the_leaky_adapter_readably(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(f"--ragward-impl={LEAKY}", f"--ragward-select={LEAK_ID}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*{LEAK_ID} (isolation) no hit from another tenant*",
            "*fail: hit * is not a document of acme*",
            "*- globex/d* v1 [[]internal, no barrier, tick 0[]]: *",
            f"*replay: ragward conform --impl {LEAKY} --replay *{LEAK_ID}.json*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    stored = next((pytester.path / ".pytest_cache").rglob(f"{LEAK_ID}.json"))
    assert json.loads(stored.read_text())["verdict"] == "fail"


@pytest.mark.usefixtures("throwaway")
def test_plugin_bad_impl_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--ragward-impl=no_such_module_xyz:factory")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ragward-impl: module 'no_such_module_xyz' not found*"])


@pytest.mark.slow
@pytest.mark.usefixtures("throwaway")
def test_plugin_checks_a_peer_over_the_wire(pytester: pytest.Pytester) -> None:
    peer = f"{sys.executable} -m ragward.wire_reference"
    result = pytester.runpytest(f"--ragward-external={peer}", f"--ragward-select={LEAK_ID}", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*ragward conformance: external:*", f"ragward::{LEAK_ID} PASSED*"])


@pytest.mark.usefixtures("throwaway")
def test_plugin_external_usage_errors(pytester: pytest.Pytester) -> None:
    both = pytester.runpytest("--ragward-impl=x:y", "--ragward-external=peer")
    assert both.ret == pytest.ExitCode.USAGE_ERROR
    both.stderr.fnmatch_lines(["*not both*"])
    dead = pytester.runpytest("--ragward-external=no-such-program-xyz --stdio")
    assert dead.ret == pytest.ExitCode.USAGE_ERROR
    dead.stderr.fnmatch_lines(["*--ragward-external:*"])


def test_plugin_is_inert_without_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_one():\n    assert True\n")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    assert "ragward::" not in result.stdout.str()
    assert "ragward conformance" not in result.stdout.str()
    assert pytester.runpytest("--ragward-select=X").ret == pytest.ExitCode.USAGE_ERROR


# -- the whole registry (slow) --------------------------------------------------------


@pytest.mark.slow
def test_reference_conforms_to_the_whole_kit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "reference.json"
    code, out, err = _conform(capsys, "--json", str(target))
    assert code == 0, out + err
    report = json.loads(target.read_text())
    assert report["passed"] is True
    assert report["counts"]["fail"] == report["counts"]["error"] == 0


@pytest.mark.slow
def test_whole_kit_flags_the_leaky_adapter_on_isolation(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import types

    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance import REGISTRY

    from .conform_fixtures import leaky_factory

    module = types.ModuleType("ragward_conform_leaky")
    module.factory = leaky_factory  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ragward_conform_leaky", module)
    # The two isolation invariants over one corpus (the program-driven ones shrink slowly).
    isolation = ",".join(i for i in ("ISO-001", "ISO-002") if i in REGISTRY)
    assert isolation, "the kit ships ISO-001 and ISO-002"
    target = tmp_path / "leaky.json"
    code, _, _ = _conform(
        capsys,
        "--impl",
        "ragward_conform_leaky:factory",
        "--select",
        isolation,
        "--json",
        str(target),
    )
    assert code == 1
    failing = [e for e in json.loads(target.read_text())["invariants"] if e["verdict"] == "fail"]
    assert any(entry["level"] == "isolation" for entry in failing), failing


class LexicalSharedNamespace(SharedNamespace):
    """One namespace for every tenant, in a system that declares the lexical mode only."""

    capabilities = replace(SharedNamespace.capabilities, modes=("lexical",), barriers=False)


def _policies(data: object) -> list[dict[str, object]]:
    if isinstance(data, dict):
        found = [data["policy"]] if isinstance(data.get("policy"), dict) else []
        return found + [p for value in data.values() for p in _policies(value)]
    if isinstance(data, list):
        return [p for value in data for p in _policies(value)]
    return []


def test_a_counterexample_is_the_case_the_adapter_was_sent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The drawn policy shrinks to hybrid mode; the adapter only has lexical: the report
    # must show what it was asked, and count examples apart from shrink steps.
    report = tmp_path / "report.json"
    impl = "tests.conformance.test_cli_conform:LexicalSharedNamespace"
    code, out, _ = _conform(capsys, "--impl", impl, "--select", "ISO-001", "--json", str(report))
    assert code == 1
    (entry,) = json.loads(report.read_text(encoding="utf-8"))["invariants"]
    policies = _policies(entry["counterexample"])
    assert policies, entry["counterexample"]
    assert {p["mode"] for p in policies} == {"lexical"}
    assert entry["examples"] >= 1
    assert entry["shrink_steps"] >= 1
    example = "example" if entry["examples"] == 1 else "examples"
    assert f"found after {entry['examples']} {example}, shrunk in " in out
    assert 'policy: mode="lexical"' in out


def test_the_kit_tells_its_caller_when_each_invariant_starts_and_ends() -> None:
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY
    from ragward.conformance.runner import Step, run_conformance
    from ragward.engines.reference import reference_factory

    two = sorted(i for i in REGISTRY if i.startswith("ISO-"))[:2]
    steps: list[Step] = []
    report = run_conformance(reference_factory, select=two, progress=steps.append)
    ids = [v.id for v in report.verdicts]
    assert [(s.number, s.total, s.invariant_id, s.verdict is None) for s in steps] == [
        (1, 2, ids[0], True),
        (1, 2, ids[0], False),
        (2, 2, ids[1], True),
        (2, 2, ids[1], False),
    ]
    assert tuple(s.verdict for s in steps if s.verdict is not None) == report.verdicts
    assert all(s.seconds >= 0 for s in steps)
