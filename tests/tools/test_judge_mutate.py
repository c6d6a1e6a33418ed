"""``tools/judge_mutate.py``: its scope, its test selection, its report, one real mutant."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parent.parent.parent


judge = load_tool("judge_mutate")
mutate = load_tool("mutate")
report = load_tool("judge_report")

VALIDATED = """def f(a: int) -> int:
    if a < 1:
        raise InvalidArgument(f"a must be >= 1, got {a}")
    return a + 1
"""


def test_the_scope_is_the_verdict_path_and_every_mutant_parses() -> None:
    assert {
        "evals/gate.py",
        "evals/significance.py",
        "ragward/exits.py",
        "ragward/outputs.py",
    } <= set(judge.SCOPE)
    westfall_young = (ROOT / "evals" / "westfall_young.py").exists()
    assert ("evals/westfall_young.py" in judge.SCOPE) == westfall_young
    mutants = judge.all_mutants()
    assert len({m.id for m in mutants}) == len(mutants)
    sources = {p: (ROOT / p).read_text(encoding="utf-8") for p in judge.SCOPE}
    for mutant in mutants:
        only = judge.PARTS[mutant.path]
        if only is not None:  # a file in part: only the functions named
            assert mutant.function.split(".")[0] in only, mutant.id
        ast.parse(mutant.apply(sources[mutant.path]))
    assert {m.path for m in mutants} == set(judge.SCOPE)
    assert any(m.function == "build_results" or m.function == "write_report" for m in mutants)
    assert not any(m.function in ("table", "_summary", "_plots") for m in mutants)


def test_argument_validation_is_mutated_here_but_not_in_the_kit_run() -> None:
    mine = {(m.line, m.operator) for m in judge.plant(VALIDATED, "m.py", judge.PLANT_RULES)}
    kit = {(m.line, m.operator) for m in mutate.plant(VALIDATED, "m.py")}
    assert (2, "cmp") in mine
    assert (2, "cmp") not in kit
    assert not any(line == 3 for line, _ in mine)  # the raise (its message) never


def _runner(lines: dict[str, list[str]], kills: dict[str, int] | None = None) -> Any:
    base = {
        "times": {"t::slow": 2.0, "t::fast": 0.1, "t::other": 0.5},
        "lines": {"m.py": lines},
    }
    runner = judge.Runner(base, 1, cache={})
    runner.kills.update(kills or {})
    return runner


def test_a_mutant_runs_only_the_tests_reaching_its_lines_likeliest_killer_first() -> None:
    mutants = judge.plant("def f():\n    x = 1\n    y = [\n        2,\n    ]\n", "m.py")
    two = next(m for m in mutants if m.original == "2")  # line 4, in a statement of 3-5
    drop = next(m for m in mutants if m.original.startswith("y ="))
    runner = _runner({"4": ["t::slow"], "5": ["t::fast", "t::gone"]})
    assert runner.reaching(two) == ["t::slow"]
    assert runner.reaching(drop) == ["t::fast", "t::slow"]  # faster first; t::gone not a test
    runner = _runner({"4": ["t::slow"], "5": ["t::fast"]}, kills={"t::slow": 3})
    assert runner.reaching(drop) == ["t::slow", "t::fast"]  # killed most so far
    one = next(m for m in mutants if m.original == "1")
    runner = _runner({"2": ["import"]})
    assert sorted(runner.reaching(one)) == ["t::fast", "t::other", "t::slow"]
    assert _runner({}).reaching(one) == []


def test_a_cached_outcome_depends_on_the_test_files_the_mutant_runs_only() -> None:
    mutant = next(m for m in judge.all_mutants() if m.path == "evals/gate.py")
    base = {
        "times": {"tests/evals/test_gate.py::t": 0.1, "tests/test_cli.py::t": 0.1},
        "lines": {mutant.path: {str(mutant.line): ["tests/evals/test_gate.py::t"]}},
    }
    runner = judge.Runner(base, 1, cache={})
    before = runner.fingerprint(mutant)
    runner.files["tests/test_cli.py"] = "edited"  # a file the mutant does not run
    assert runner.fingerprint(mutant) == before
    runner.files["tests/evals/test_gate.py"] = "edited"
    assert runner.fingerprint(mutant) != before


def test_the_first_failure_of_pytest_output_names_the_killer() -> None:
    out = "F\n=== short test summary info ===\nFAILED tests/a.py::t[x] - assert 1 == 2\n1 failed"
    assert judge._first_failure(out) == ("tests/a.py::t[x]", "assert 1 == 2")
    out = "ERROR tests/b.py - ImportError: boom\nInterrupted: 1 error during collection"
    assert judge._first_failure(out) == ("tests/b.py", "ImportError: boom")
    out = "OSError: [Errno 24] Too many open files: '/tmp/pytest-of-x/pytest-6'\n"
    assert judge._first_failure(out) == ("", "OSError: [Errno 24] Too many open files: 'pytest-6'")


def test_the_report_counts_and_rates_over_mutants_not_shown_equivalent() -> None:
    source = "def f(a, b):\n    return a + b * 2 - 1\n"
    mutants = judge.plant(source, "m.py", judge.PLANT_RULES)[:5]
    assert len(mutants) == 5
    statuses = ["killed", "timeout", "survived", "survived", "not-reached"]
    pairs = zip(mutants, statuses, strict=True)
    outcomes = {m.id: mutate.Outcome(m.id, s, "t.py::k") for m, s in pairs}
    explanations = {mutants[2].id: {"kind": "equivalent", "why": "the same sum"}}
    text, data = report.render(
        mutants, outcomes, explanations, {"m.py": source}, {"planted": len(mutants)}, list
    )
    assert (data["run"], data["killed"], data["timeout"]) == (5, 2, 1)
    assert (data["survived"], data["not_reached"], data["explained"]) == (2, 1, 1)
    assert data["unexplained"] == 2
    assert data["kill_rate_of_non_equivalent"] == 0.5  # 2 killed of 5 run less 1 explained
    assert data["files"]["m.py"]["unexplained"] == 2
    assert "**Kill rate: 2/4 = 50.0%**" in text
    unexplained = text.index("**UNEXPLAINED**")
    assert unexplained < text.index("**equivalent**: the same sum")  # unexplained first
    before, after = mutants[3].diff(source)
    assert f"- {before}\n+ {after}" in text


@pytest.mark.slow
def test_a_planted_mutant_is_what_the_tests_import() -> None:
    """The copy goes first on the path: the tests see the mutant (and, unmutated, pass)."""
    mutant = next(
        m
        for m in judge.all_mutants()
        if m.path == "ragward/exits.py"
        and m.operator == "const"
        and "BAD_INPUT = 2" in m.diff((ROOT / m.path).read_text(encoding="utf-8"))[0]
    )
    test = ["tests/test_exit_codes.py::test_a_bad_input_is_one_line_and_exit_2[gate]"]
    code, out, _ = judge._launch(mutant, test, 120.0)
    assert code == 1, out
    assert judge._first_failure(out)[0] == test[0]
    code, out, _ = judge._launch(replace(mutant, replacement=mutant.original), test, 120.0)
    assert code == 0, out
