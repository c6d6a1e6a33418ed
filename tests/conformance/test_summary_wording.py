"""The summary line of ``ragward conform`` claims only what ran: a whole run of the kit
conforms or not; a ``--select`` run says how many of the kit's invariants ran and how."""

from __future__ import annotations

import pytest

from ragward.conformance.invariant import catalogue
from ragward.conformance.report import outcome, render_table
from ragward.conformance.runner import Report, Verdict


def _report(statuses: list[str], selected: bool) -> Report:
    ids = catalogue()[: len(statuses)] if selected else catalogue()
    statuses = statuses if selected else statuses + ["pass"] * (len(ids) - len(statuses))
    verdicts = tuple(Verdict(i, "isolation", "t", s, 1) for i, s in zip(ids, statuses, strict=True))
    return Report("impl", "ci", verdicts, selection=tuple(ids) if selected else None)


@pytest.mark.parametrize(
    ("statuses", "said"),
    [
        (["fail"], "1 of {kit} invariants run; it fails"),
        (["pass"], "1 of {kit} invariants run; it holds"),
        (["error"], "1 of {kit} invariants run; it errors"),
        (["n/a"], "1 of {kit} invariants run; it does not apply"),
        (["pass", "pass", "pass"], "3 of {kit} invariants run: all hold"),
        (["pass", "n/a", "pass"], "3 of {kit} invariants run: all that apply hold"),
        (["pass", "fail", "pass"], "3 of {kit} invariants run: 1 fails, 2 hold"),
        (
            ["fail", "fail", "error", "n/a"],
            "4 of {kit} invariants run: 2 fail, 1 errors, 1 does not apply",
        ),
    ],
)
def test_a_selection_says_how_much_ran(statuses: list[str], said: str) -> None:
    report = _report(statuses, selected=True)
    expected = said.format(kit=len(catalogue()))
    assert outcome(report) == expected
    assert render_table(report).endswith(f"— {expected}")
    assert "CONFORM" not in render_table(report)


@pytest.mark.parametrize(("first", "said"), [("pass", "CONFORMS"), ("fail", "DOES NOT CONFORM")])
def test_the_whole_kit_conforms_or_not(first: str, said: str) -> None:
    assert outcome(_report([first], selected=False)) == said
    # a selection naming every invariant of the kit is a whole run too
    whole = _report([first] + ["pass"] * (len(catalogue()) - 1), selected=True)
    assert outcome(whole) == said
