"""The wire page's minimal peer is the file CI runs, and it conforms."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragward.conformance import run_conformance
from ragward.conformance.wire import external_factory

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "conformance" / "examples" / "peer.py"


def test_the_wire_page_shows_the_peer_verbatim() -> None:
    page = (ROOT / "docs" / "wire.md").read_text(encoding="utf-8")
    assert f"```python\n{PEER.read_text(encoding='utf-8')}```" in page


@pytest.mark.slow
def test_minimal_peer_conforms_over_the_wire() -> None:
    factory = external_factory([sys.executable, str(PEER)])
    try:
        report = run_conformance(factory, profile="ci")
    finally:
        factory.close()
    counts = report.counts()
    assert report.passed, [v for v in report.verdicts if v.status not in ("pass", "n/a")]
    assert counts["pass"] >= 10
