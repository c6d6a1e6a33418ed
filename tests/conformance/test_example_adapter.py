"""The adapter writers' complete example (a toy in-memory retriever) passes the kit.

Run through :func:`run_conformance`, the first way in, as ``docs/adapters.md`` shows it;
the tally ``docs/conformance.md`` prints for it is this run's.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance import REGISTRY, run_conformance
from ragward.conformance.examples.toy import ToyAdapter, factory
from ragward.conformance.report import format_counterexample

pytestmark = pytest.mark.slow  # the whole kit, once

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_toy_adapter_passes_every_applicable_invariant() -> None:
    report = run_conformance(factory, profile="ci", name="toy")
    failures = [v for v in report.verdicts if v.status in ("fail", "error")]
    assert failures == [], "\n\n".join(format_counterexample(v) for v in failures)
    assert report.passed
    assert report.counts()["pass"] > 0
    # What the toy cannot be asked is n/a, naming capabilities it really lacks.
    skipped = [v for v in report.verdicts if v.status == "n/a"]
    assert all(v.reason.startswith("needs capability ") for v in skipped)
    declared = ToyAdapter.capabilities
    for verdict in skipped:
        missing = verdict.reason.removeprefix("needs capability ").split(", ")
        assert not any(declared.has(name) for name in missing), verdict
    # The console example of docs/conformance.md shows this run's tally.
    page = (DOCS / "conformance.md").read_text(encoding="utf-8")
    shown = re.search(
        r"toy:factory \(ci profile\): (\d+) pass, (\d+) fail, (\d+) error, (\d+) n/a", page
    )
    assert shown is not None, "docs/conformance.md no longer shows the toy's tally"
    counts = report.counts()
    tally = (counts["pass"], counts["fail"], counts["error"], counts["n/a"])
    assert tuple(int(n) for n in shown.groups()) == tally


def test_the_page_copy_of_the_example_runs_and_conforms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = DOCS / "adapters.md"
    blocks = page.read_text(encoding="utf-8").split("```python\n")[1:]
    (block,) = [b.split("```", 1)[0] for b in blocks if "def factory()" in b]
    module = types.ModuleType("page_toy")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look it up
    namespace: dict[str, Any] = module.__dict__
    exec(compile(block, str(page), "exec"), namespace)
    isolation = [i for i, inv in REGISTRY.items() if inv.level in ("isolation", "prefilter")]
    report = run_conformance(namespace["factory"], select=isolation, name="page toy")
    failures = [v for v in report.verdicts if v.status in ("fail", "error")]
    assert failures == [], "\n\n".join(format_counterexample(v) for v in failures)
