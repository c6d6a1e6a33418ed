"""The README's complete adapter example (a toy in-memory retriever) passes the kit.

Run through :func:`run_conformance`, the first way in, exactly as the README shows.
"""

from __future__ import annotations

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


def test_the_readme_copy_of_the_example_runs_and_conforms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readme = Path(__file__).resolve().parents[2] / "conformance" / "README.md"
    block = readme.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    module = types.ModuleType("readme_toy")
    monkeypatch.setitem(sys.modules, module.__name__, module)  # dataclasses look it up
    namespace: dict[str, Any] = module.__dict__
    exec(compile(block, str(readme), "exec"), namespace)
    isolation = [i for i, inv in REGISTRY.items() if inv.level in ("isolation", "prefilter")]
    report = run_conformance(namespace["factory"], select=isolation, name="readme toy")
    failures = [v for v in report.verdicts if v.status in ("fail", "error")]
    assert failures == [], "\n\n".join(format_counterexample(v) for v in failures)
