"""A failure's whole diff travels with its verdict: in the JSON report, in the terminal's
counterexample block, never in the one-line table; bounded for a pathological answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragward.cli import main
from ragward.clipped import LIMIT, later_lines
from ragward.conformance.report import format_counterexample, render_table, to_json
from ragward.conformance.runner import DETAIL_LINES, Report, Verdict, said
from ragward.evals.conformance_input import read_conformance

PLANTED = "tests.conformance.planted:planted_avgdl_over_live"


def _verdict(detail: tuple[str, ...]) -> Verdict:
    return Verdict(
        "STAT-001",
        "statistics",
        "Invisible chunks move no score",
        "fail",
        3,
        "a score moved: d1::1 score 0.288 -> 0.338 (+1 more)",
        {"query": "q"},
        detail=detail,
    )


_DETAIL = (
    "'q' asked by u1@acme (public) at tick 0: lexical",
    "  d1::1       score 0.288 -> 0.338",
    "  considered  1 -> 2",
)


def test_the_json_keeps_the_diff_and_the_one_line_reason() -> None:
    data = json.loads(to_json(Report("x", "ci", (_verdict(_DETAIL),))))
    (entry,) = data["invariants"]
    assert entry["reason"] == "a score moved: d1::1 score 0.288 -> 0.338 (+1 more)"
    assert entry["diff"] == list(_DETAIL)
    passing = Verdict("ISO-001", "isolation", "t", "pass", 25)
    assert json.loads(to_json(Report("x", "ci", (passing,))))["invariants"][0]["diff"] == []


def test_the_terminal_prints_the_diff_under_the_reason_and_the_table_one_line() -> None:
    block = format_counterexample(_verdict(_DETAIL)).splitlines()
    at = block.index("  fail: a score moved: d1::1 score 0.288 -> 0.338 (+1 more)")
    assert block[at + 1 : at + 4] == [f"    {line}" for line in _DETAIL]
    table = render_table(Report("x", "ci", (_verdict(_DETAIL),)))
    assert "considered" not in table
    assert "asked by" not in table


def test_a_violation_splits_into_reason_and_bounded_detail() -> None:
    reason, detail = said("first: a -> b\n'q' asked\n  d1  score 1 -> 2\n\n")
    assert (reason, detail) == ("first: a -> b", ("'q' asked", "  d1  score 1 -> 2"))
    assert said("only one line") == ("only one line", ())
    # A pathological answer: thousands of lines, a line of a megabyte, control characters.
    huge = "head\n" + "\n".join(f"  c{n}  rank {n} -> none" for n in range(10_000))
    lines = later_lines(huge, DETAIL_LINES, LIMIT)
    assert len(lines) == DETAIL_LINES + 1
    assert lines[0] == "  c0  rank 0 -> none"
    assert lines[-1] == f"... ({10_000 - DETAIL_LINES:,} more lines)"
    (long,) = later_lines("head\n  " + "x" * 1_000_000 + "\x1b[31m", DETAIL_LINES, LIMIT)
    assert long.startswith("  xxx")
    assert long.endswith("... (1,000,007 characters)")
    assert len(long) < LIMIT + 40
    assert later_lines("head\n\ttab\x1b[2J") == ("tab\\x1b[2J",)


def test_a_planted_defect_s_report_carries_its_diff(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "report.json"
    code = main(["conform", "--impl", PLANTED, "--select", "STAT-001", "--json", str(target)])
    out = capsys.readouterr().out
    assert code == 1
    (entry,) = json.loads(target.read_text(encoding="utf-8"))["invariants"]
    question, *changes = entry["diff"]
    assert " asked by " in question
    assert entry["reason"].startswith("a score moved")
    assert changes
    assert all(line.startswith("  ") and " -> " in line for line in changes)
    assert "\n".join(f"    {line}" for line in entry["diff"]) in out
    row = next(line for line in out.splitlines() if line.startswith("STAT-001 "))
    assert "asked by" not in row


def test_reports_without_the_diff_still_load(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A report written before ``diff`` existed replays and gates as before."""
    target = tmp_path / "report.json"
    assert main(["conform", "--impl", PLANTED, "--select", "STAT-001", "--json", str(target)])
    data = json.loads(target.read_text(encoding="utf-8"))
    for entry in data["invariants"]:
        del entry["diff"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["conform", "--impl", PLANTED, "--replay", str(old)]) == 1
    assert " asked by " in capsys.readouterr().out  # the diff, computed again by the replay
    assert main(["conform", "--replay", str(old)]) == 0  # the reference holds
    kit = frozenset(data["catalogue"])
    for path in (target, old):
        read = read_conformance(path, data["fingerprints"]["implementation"], kit)
        assert read.failed == ("STAT-001 (fail)",)
