"""The top-level verbs: ``ragward.conform``, ``ragward.evaluate``, ``ragward.compare``.

They are what the command line runs, so a program gets the command's verdicts; ``import
ragward`` stays light (the harness and the kit load on first use).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import ragward
from ragward.api import DataChanged
from ragward.evals.grid import NO_RERANK
from tests.evals.gate_inputs import fingerprints, results, write_results

_BASE = {"ndcg_cut_10": {f"q{i}": 0.5 + i / 100 for i in range(12)}}


def test_every_public_name_resolves_and_import_ragward_loads_no_harness() -> None:
    for name in ragward.__all__:
        assert getattr(ragward, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = ragward.nothing
    code = "import sys, ragward; print(sorted(m for m in sys.modules if m.startswith('ragward')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "ragward.evals" not in loaded, loaded
    assert "ragward.conformance" not in loaded, loaded


def test_conform_checks_the_adapter_and_says_what_it_ran() -> None:
    import ragward.conformance.invariants
    from ragward.conformance.invariant import REGISTRY
    from ragward.engines.reference import reference_factory

    two = sorted(i for i in REGISTRY if i.startswith("ISO-"))[:2]
    report = ragward.conform(reference_factory, select=two, name="the reference")
    assert [v.id for v in report.verdicts] == two
    assert report.selection == tuple(two)
    assert report.identity is not None
    assert report.identity.spec == "the reference"
    assert report.passed

    def builds_nothing() -> object:
        return object()

    with pytest.raises(ragward.RagwardError):
        ragward.conform(builds_nothing, select=two)  # type: ignore[arg-type]


def test_evaluate_then_compare_an_evaluation_with_itself_and_with_a_folder(
    tmp_path: Path,
) -> None:
    dataset = ragward.load_dataset(Path(ragward.__file__).parent / "datasets" / "tidewater")
    grid = ragward.default_grid()
    grid = replace(grid, indexes=grid.indexes[:1], modes=("lexical",), reranks=(NO_RERANK,))
    grid = replace(grid, rrf_ks=grid.rrf_ks[:1], candidate_limits=grid.candidate_limits[:1])
    evaluation = ragward.evaluate(dataset, grid=grid, measures=["nDCG@10"])
    assert len(evaluation) == 1
    verdict = ragward.compare(evaluation, evaluation)
    assert verdict.passed
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(evaluation.report), encoding="utf-8")
    assert ragward.compare(folder, evaluation).passed


def test_compare_refuses_runs_of_different_data_unless_told(tmp_path: Path) -> None:
    before = write_results(tmp_path / "a", results({"s": _BASE}))
    regraded = results({"s": _BASE})
    regraded["fingerprints"] = fingerprints(qrels="sha256:r1")
    with pytest.raises(DataChanged) as refused:
        ragward.compare(before, regraded)
    assert len(refused.value.differences) == 1
    assert refused.value.differences[0].startswith("qrels: baseline sha256:r0")
    assert str(refused.value) == (
        "runs of different data are not compared: qrels: baseline sha256:r0, current sha256:r1"
    )
    assert ragward.compare(before, regraded, allow_data_change=True).passed


def test_compare_fails_a_halved_run_as_the_gate_does(tmp_path: Path) -> None:
    halved = {"ndcg_cut_10": {q: v / 2 for q, v in _BASE["ndcg_cut_10"].items()}}
    verdict = ragward.compare(results({"s": _BASE}), results({"s": halved}))
    assert not verdict.passed


def test_compare_fails_a_partial_conformance_report_unless_told(tmp_path: Path) -> None:
    from ragward.api import _kit

    first = sorted(_kit())[0]
    report = tmp_path / "conform.json"
    data = {
        "schema": 2,
        "fingerprints": {"implementation": fingerprints()["implementation"]},
        "selection": [first],
        "catalogue": sorted(_kit()),
        "invariants": [{"id": first, "verdict": "pass"}],
    }
    report.write_text(json.dumps(data), encoding="utf-8")
    run = results({"s": _BASE})
    verdict = ragward.compare(run, run, conformance=report)
    assert verdict.conformance is not None
    assert verdict.conformance.selected
    assert (verdict.partial_allowed, verdict.passed) == (False, False)
    assert ragward.compare(run, run, conformance=report, allow_partial=True).passed
