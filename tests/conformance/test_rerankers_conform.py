"""The reference conforms with every reranker it can be built with, the model one included."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from ragward.conformance import run_conformance
from ragward.engines.reference import reference_factory
from ragward.models import RERANKERS


@pytest.mark.slow
@pytest.mark.parametrize("reranker", [r for r in RERANKERS if r != "minilm-fp32"])
def test_the_reference_conforms_with_every_reranker(
    reranker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGWARD_CACHE", str(tmp_path / "cache"))
    factory = functools.partial(reference_factory, reranker=reranker)
    report = run_conformance(factory, name=f"reference+{reranker}")
    failed = [(v.id, v.reason) for v in report.verdicts if v.status in ("fail", "error")]
    assert failed == []
    assert sum(v.status == "pass" for v in report.verdicts) == len(report.verdicts)
