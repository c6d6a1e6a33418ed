"""``--replay`` explains (the case, the diff, whether it now holds) and ``--emit-test``
writes a pytest file that fails on the implementation and passes on the reference.

The exit codes are the point, so the commands run as subprocesses; the planted defect is
the reference with one line changed (``tests/conformance/planted.py``).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ragward.conformance import external_factory
from ragward.conformance.emit import emit_test, py_literal
from ragward.conformance.runner import Verdict
from ragward.implementation import REFERENCE

ROOT = Path(__file__).resolve().parents[2]
PLANTED = "tests.conformance.planted:planted_avgdl_over_live"

pytestmark = pytest.mark.slow


def _ragward(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ragward", "conform", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def _pytest(test: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff is not None, "ruff is not installed: pip install '.[test]'"
    return subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report whose one failure is the planted defect's STAT-001."""
    path = tmp_path_factory.mktemp("report") / "conform.json"
    result = _ragward("--impl", PLANTED, "--select", "STAT-001", "--json", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    return path


def _entry(report: Path) -> dict[str, Any]:
    (entry,) = json.loads(report.read_text(encoding="utf-8"))["invariants"]
    assert entry["verdict"] == "fail"
    assert entry["diff"]
    return dict(entry)


def test_a_replay_that_still_fails_shows_the_case_and_the_diff(report: Path) -> None:
    entry = _entry(report)
    result = _ragward("--impl", PLANTED, "--replay", str(report), "--invariant", "STAT-001")
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert out.startswith(f"STAT-001 still fails on {PLANTED}:\n")
    assert f"  fail: {entry['reason']}\n" in out
    assert "\n".join(f"    {line}" for line in entry["diff"]) in out
    assert f"  counterexample (stored in {report}):\n" in out
    assert "      docs:\n        - acme/" in out
    assert out.index("docs:") < out.index("query:")  # documents first, then the question


def test_a_replay_that_now_holds_says_so_and_what_it_was(report: Path) -> None:
    entry = _entry(report)
    result = _ragward("--replay", str(report))  # the reference, and the report's one failure
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"STAT-001 now holds on {REFERENCE}\n")
    assert f"  was: {entry['reason']}\n" in out
    assert "\n".join(f"    {line}" for line in entry["diff"]) in out
    assert "docs:" in out


def _swap(test: Path, name: str, old: str, new: str) -> Path:
    """A copy of ``test`` with one constant changed: the same test of another system."""
    text = test.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    other = test.with_name(name)
    other.write_text(text.replace(old, new), encoding="utf-8")
    return other


def test_emit_test_fails_on_the_defect_and_passes_on_the_reference(
    report: Path, tmp_path: Path
) -> None:
    test = tmp_path / "test_stat_001.py"
    args = ("--impl", PLANTED, "--replay", str(report), "--emit-test", str(test))
    result = _ragward(*args)
    assert result.returncode == 1, result.stderr
    assert f"test written to {test}" in result.stdout
    text = test.read_text(encoding="utf-8")
    assert f'IMPL = "{PLANTED}"' in text
    assert "\nCASE = {\n" in text
    imported = [re.findall(r"\w+", line) for line in text.splitlines() if " import " in line]
    assert imported
    assert [w for words in imported for w in words if w.startswith("_") and w != "__future__"] == []
    said = " ".join(text.split('"""')[1].split())  # the docstring, its lines wrapped
    for line in _entry(report)["diff"]:
        assert " ".join(line.split()) in said
    for lint in (("check", "--isolated"), ("format", "--isolated", "--check")):
        checked = _ruff(*lint, str(test))
        assert checked.returncode == 0, checked.stdout + checked.stderr
    checked = _ruff("check", "--config", str(ROOT / "pyproject.toml"), str(test))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert _ragward(*args).returncode == 1
    assert test.read_text(encoding="utf-8") == text  # the same bytes again
    failing = _pytest(test)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "Violation" in failing.stdout
    fixed = _swap(test, "test_on_reference.py", f'IMPL = "{PLANTED}"', f'IMPL = "{REFERENCE}"')
    passing = _pytest(fixed)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "1 passed" in passing.stdout


def test_a_run_with_one_selected_failure_emits_its_test(tmp_path: Path) -> None:
    # A path longer than a docstring line stays whole (it broke mid-word under xdist).
    folder = tmp_path / ("a-long-folder-name-" * 6)
    folder.mkdir()
    test = folder / "test_from_run.py"
    result = _ragward("--impl", PLANTED, "--select", "STAT-001", "--emit-test", str(test))
    assert result.returncode == 1, result.stderr
    said = " ".join(test.read_text(encoding="utf-8").split('"""')[1].split())
    assert f"--select STAT-001 --emit-test {test}`." in said
    assert _pytest(test).returncode == 1
    held = tmp_path / "test_holds.py"
    result = _ragward("--select", "STAT-001", "--emit-test", str(held))
    assert result.returncode == 0, result.stderr
    assert f"no test written to {held}: STAT-001: it holds" in result.stdout
    assert not held.exists()


def test_emit_test_for_an_external_peer_starts_the_peer(report: Path, tmp_path: Path) -> None:
    """An --external peer's test starts the peer (``PEER``, from pytest's working folder)
    through the public ``external_factory``."""
    serve = "from ragward.conformance import serve; from {} import {} as f; serve(f)"
    broken = shlex.join([sys.executable, "-c", serve.format(*PLANTED.split(":"))])
    test = tmp_path / "test_peer.py"
    result = _ragward("--external", broken, "--replay", str(report), "--emit-test", str(test))
    assert result.returncode == 1, result.stdout + result.stderr
    text = test.read_text(encoding="utf-8")
    assert "with external_factory(PEER) as factory:" in text
    assert _pytest(test).returncode == 1
    # The same check, on a peer serving the reference, holds.
    namespace: dict[str, Any] = {}
    exec(compile(text, str(test), "exec"), namespace)
    good = [sys.executable, "-c", serve.format(*REFERENCE.split(":"))]
    with external_factory(good) as factory:
        namespace["check"](factory)


@pytest.mark.parametrize(
    "args",
    [
        ("--emit-test", "{dir}/t.py"),  # which invariant?
        ("--select", "STAT-001,ISO-001", "--emit-test", "{dir}/t.py"),
        ("--select", "STAT-001", "--emit-test", "{dir}/no/such/folder/t.py"),
        ("--select", "STAT-001", "--emit-test", "{dir}"),  # a directory
    ],
)
def test_ambiguous_or_unwritable_emit_test_is_one_line_and_exit_2(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    result = _ragward(*(a.format(dir=tmp_path) for a in args))
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "--emit-test" in result.stderr
    assert result.stdout == ""  # refused before anything ran
    assert list(tmp_path.iterdir()) == []


_HOSTILE: dict[str, Any] = {
    "quotes": "it's \"quoted\" and '''triple''' \"\"\"",
    "backslash": "C:\\path\\n not a newline \\u0041",
    "controls": "line\nbreak\ttab\rret\x00nul\x1b[31mred\x7f",
    "unicode": "na\xefve \u65e5\u672c \uff50ayment \u202eevil\u2028sep \U0001f600 \ud800",
    "long": "word " * 120,
    "numbers": [0, -1, 2**70, 1e-06, 0.1, -0.0, float("inf"), True, None],
    "nested": {"empty": [], "nothing": {}, "list": [[], [1]]},
}


def test_the_case_literal_is_the_case_and_ruff_clean(tmp_path: Path) -> None:
    assert eval(py_literal(_HOSTILE)) == _HOSTILE
    verdict = Verdict(
        "ASM-002",
        "assembly",
        "the question is kept whole",
        "fail",
        1,
        'question """line""" came out as \\x00 na\xefve',
        _HOSTILE,
        detail=("'q' asked by u@t: \u202e", "  a::1  rank 1 -> 2"),
    )
    text = emit_test(verdict, impl=PLANTED, made_by="ragward conform --emit-test t.py")
    assert text.isascii()
    namespace: dict[str, Any] = {}
    exec(compile(text, "emitted.py", "exec"), namespace)
    assert namespace["CASE"] == _HOSTILE
    assert namespace["INVARIANT"] == "ASM-002"
    assert "na\xefve" not in namespace["__doc__"]  # escaped: nothing confusable in the source
    assert "came out as \\x00 na\\xefve" in namespace["__doc__"]
    target = tmp_path / "test_hostile.py"
    target.write_text(text, encoding="utf-8")
    for lint in (("check", "--isolated"), ("format", "--isolated", "--check")):
        checked = _ruff(*lint, str(target))
        assert checked.returncode == 0, checked.stdout + checked.stderr
    # ragward's own rules too (its longer lines would let ruff format join a split string).
    checked = _ruff("check", "--config", str(ROOT / "pyproject.toml"), str(target))
    assert checked.returncode == 0, checked.stdout + checked.stderr
