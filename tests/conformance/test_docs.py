"""The kit's pages: ``docs/invariants.md`` documents every invariant, generated from the
registry; ``docs/conformance.md`` shows a real report, as the kit writes it today."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ragward
import ragward.conformance.invariants  # registers the invariants
from ragward.conformance import REGISTRY, Violation, replay
from ragward.conformance.records import from_data, to_data
from ragward.conformance.report import format_counterexample, to_json
from ragward.conformance.runner import Verdict
from ragward.engines.reference import reference_factory
from tests.conformance.broken import SharedNamespace
from tests.doc_checks import assert_generated_up_to_date

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "docs" / "invariants.md"
PAGE = ROOT / "docs" / "conformance.md"
#: How the page's example report was made: the shared-namespace double, ISO-001 only.
EXAMPLE_NAME = "mypkg.adapter:factory"
EXAMPLE_HINT = (
    f"ragward conform --impl {EXAMPLE_NAME} --replay reports/conform.json --invariant {{id}}"
)


def test_every_invariant_has_a_section_in_the_catalogue() -> None:
    text = CATALOGUE.read_text(encoding="utf-8")
    section = text.split("<!-- invariants:start -->", 1)[1].split("<!-- invariants:end -->")[0]
    missing = [i for i in REGISTRY if f"### {i}\n" not in section]
    assert missing == [], "run: python tools/gen_invariant_docs.py"
    for invariant in REGISTRY.values():
        assert f"**{invariant.title}**" in section, invariant.id


def test_the_generated_section_is_up_to_date() -> None:
    assert_generated_up_to_date("gen_invariant_docs.py")


def _page_block() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split("## The report", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]


def _page_report() -> dict[str, Any]:
    report: dict[str, Any] = json.loads(_page_block())
    return report


def test_the_page_report_is_what_the_kit_writes_today() -> None:
    """Byte for byte: a new invariant (the catalogue), a new field or another shrink
    changes the page, never silently."""
    report = ragward.conform(
        SharedNamespace, select=["ISO-001"], name=EXAMPLE_NAME, replay_hint=EXAMPLE_HINT
    )
    assert to_json(report) == _page_block()


def test_the_page_report_is_a_real_replayable_report(tmp_path: Path) -> None:
    report = _page_report()
    (entry,) = report["invariants"]
    # What the page shows fails again on the implementation it came from ...
    with pytest.raises(Violation):
        replay(SharedNamespace, entry["id"], entry["counterexample"])
    # ... holds on the reference, and replays from the file the way the page says.
    replay(reference_factory, entry["id"], entry["counterexample"])
    stored = tmp_path / "conform.json"
    stored.write_text(json.dumps(report), encoding="utf-8")
    command = [sys.executable, "-m", "ragward", "conform", "--replay", str(stored)]
    result = subprocess.run(
        [*command, "--invariant", entry["id"]], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_page_terminal_counterexample_matches_the_report() -> None:
    report = _page_report()
    (entry,) = report["invariants"]
    text = PAGE.read_text(encoding="utf-8")
    shown = text.split("```text\nISO-001", 1)[1].split("```", 1)[0]
    rendered = format_counterexample(Verdict(**_verdict_fields(entry)))

    def body(lines: str) -> list[str]:
        return [line for line in lines.splitlines()[1:] if not line.startswith("  replay:")]

    assert body(rendered) == body(shown.strip())


def _verdict_fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": entry["id"],
        "level": entry["level"],
        "title": entry["title"],
        "status": entry["verdict"],
        "examples": entry["examples"],
        "reason": entry["reason"],
        # in the case record's field order, as the terminal shows it (JSON sorts keys)
        "counterexample": to_data(
            from_data(REGISTRY[entry["id"]].case_type, entry["counterexample"])
        ),
        "shrink_steps": entry["shrink_steps"],
        "minimised": None
        if entry["minimised"] is None
        else (entry["minimised"]["steps"], entry["minimised"]["complete"]),
    }
