"""What a report says it measured: fingerprints of the data it ran on, settings named by
what really ran, and the same implementation identity in ``results.json`` and in
``ragward conform --json``."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragward import __version__
from ragward.cli import main
from ragward.conformance.invariant import REGISTRY, catalogue
from ragward.engines.reference import reference_factory
from ragward.evals.api import evaluate
from ragward.evals.datasets import load_dataset
from ragward.evals.grid import NO_RERANK
from ragward.evals.grid_file import default_grid
from tests.commands import first_invariant
from tests.evals.dataset_files import write_dataset
from tests.evals.grids import grid_toml

ONE_INDEX = grid_toml(
    depth=3,
    measures=["ndcg_cut_3", "recall_3"],
    chunking=[(96, 16)],
    mode=["lexical"],
    rrf_k=[60],
    rerank=[False],
    candidate_limit=[5],
    min_overlap=[0.6],
)
OWN = "tests.evals.own_index:factory"
TOY = "ragward.conformance.examples.toy:factory"
PEER = f"{sys.executable} -m ragward.wire_reference"


def _eval(
    tmp_path: Path, name: str, data: Path, *options: str, grid: str | None = ONE_INDEX
) -> dict[str, Any]:
    out = tmp_path / name
    argv = ["eval", "--quiet", "--dataset", str(data), "--out", str(out), *options]
    if grid is not None:
        path = tmp_path / f"{name}.toml"
        path.write_text(grid, encoding="utf-8")
        argv += ["--grid", str(path)]
    assert main(argv) == 0
    results: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return results


def _conform(tmp_path: Path, name: str, *options: str) -> dict[str, Any]:
    path = tmp_path / f"{name}.json"
    assert main(["conform", "--select", first_invariant(), "--json", str(path), *options]) == 0
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


def test_regraded_qrels_are_told_apart_by_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the case: the same query ids, labels regraded; file names are the same
    before = _eval(tmp_path, "before", write_dataset(tmp_path / "a"))
    regraded = write_dataset(tmp_path / "b", {"qrels/test.tsv": {4: "q3\td3\t1"}})
    after = _eval(tmp_path, "after", regraded)
    capsys.readouterr()
    assert before["format"] == after["format"] == "ragward-eval/2"
    assert before["dataset"]["sources"] == after["dataset"]["sources"]
    one, two = before["fingerprints"], after["fingerprints"]
    assert one["data"]["qrels"] != two["data"]["qrels"]
    assert {**one, "data": {**one["data"], "qrels": None}} == {
        **two,
        "data": {**two["data"], "qrels": None},
    }
    assert set(one) == {"data", "grid", "implementation", "models", "ragward"}
    assert set(one["data"]) == {"corpus", "queries", "qrels", "claims"}
    assert one["ragward"] == __version__


def test_the_reference_reports_the_models_it_answered_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    results = _eval(tmp_path, "ref", data)
    capsys.readouterr()
    assert results["fingerprints"]["models"] == {
        "c96o16/hash-96": "embedder hash-96: feature hashing, 96 dimensions; "
        "reranker lexical-overlap: no model"
    }
    summary = (tmp_path / "ref" / "summary.md").read_text(encoding="utf-8")
    assert "- `c96o16/hash-96`: embedder hash-96: feature hashing, 96 dimensions" in summary
    corpus = results["fingerprints"]["data"]["corpus"].removeprefix("sha256:")
    assert f"corpus `{corpus[:12]}`" in summary
    # one that takes the settings but builds something else says what it built
    coarse = _eval(tmp_path, "coarse", data, "--impl", "tests.evals.planted:coarse_factory")
    capsys.readouterr()
    (model,) = coarse["fingerprints"]["models"].values()
    assert model.startswith("embedder hash-8: feature hashing, 8 dimensions")


def test_an_adapter_without_index_settings_is_named_by_what_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the case: the default grid (c96o16/hash-96 and c48o8/hash-96) and an
    # adapter that chunks and embeds its own way
    data = write_dataset(tmp_path / "data")
    results = _eval(tmp_path, "own", data, "--impl", OWN, grid=None)
    captured = capsys.readouterr()
    settings = results["settings"]
    assert settings
    for entry in settings:
        assert entry["id"].startswith("own/"), entry["id"]
        assert (entry["max_tokens"], entry["overlap_tokens"], entry["embedder"]) == (None,) * 3
    assert not any("c96o16" in s["id"] or "hash-96" in s["id"] for s in settings)
    assert results["grid"]["index"] == {
        "chunking": [{"max_tokens": None, "overlap_tokens": None}],
        "embedder": [None],
    }
    prints = results["fingerprints"]
    assert prints["implementation"]["index_settings_passed"] is False
    assert results["index_settings_passed"] is False
    assert set(prints["models"]) == {"own"}  # the named reranker dropped: it takes none
    assert "hash-32" in prints["models"]["own"]  # what really ran
    # the terminal table, summary.md and the plots say the same
    rows = [line.split() for line in captured.out.splitlines()[2:] if line.strip()]
    rows = [row for row in rows if row[0] == "own"]
    assert len(rows) == len(settings)
    assert all(row[1] == "own" for row in rows)
    out = tmp_path / "own"
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "96/16" not in summary
    assert "hash-96" not in summary
    assert "| own        | own        |" in summary
    plot = (out / "ndcg_cut_10_vs_rrf_k.svg").read_text(encoding="utf-8")
    assert "chunks own own rerank" in plot
    assert "hash-96" not in plot
    # and said on stderr once, with the rest of what was dropped
    assert "dropped index settings c96o16/hash-96, c48o8/hash-96" in captured.err
    assert "its own index is reported as 'own'" in captured.err


def test_the_library_names_an_own_index_so_too(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))

    def own() -> Any:
        return reference_factory()

    grid = default_grid()
    grid = replace(grid, indexes=grid.indexes[:1], reranks=(NO_RERANK,))
    ids = [s.id for s in evaluate(dataset, own, grid=grid, measures=["nDCG@3"])]
    assert ids
    assert all(i.startswith("own/") for i in ids)
    passed = [s.id for s in evaluate(dataset, reference_factory, grid=grid, measures=["nDCG@3"])]
    assert not set(ids) & set(passed)  # never paired with the grid's settings


def test_conform_json_says_what_ran_and_of_what(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _conform(tmp_path, "conform")
    capsys.readouterr()
    assert report["schema"] == 2
    assert report["selection"] == [first_invariant()]
    assert report["catalogue"] == sorted(i for i in REGISTRY if not i.startswith("ZZ-"))
    assert list(catalogue()) == report["catalogue"]
    assert len(report["catalogue"]) > 40
    assert report["fingerprints"]["ragward"] == __version__
    identity = report["fingerprints"]["implementation"]
    assert identity["spec"] == "ragward.engines.reference:reference_factory"
    assert identity["index_settings_passed"] is True
    assert identity["capabilities"]["modes"] == ["hybrid", "lexical", "dense"]
    assert identity["capabilities"]["grounding"] is True


@pytest.mark.parametrize(
    "source",
    [
        [],  # the default implementation, named alike without --impl
        ["--impl", "ragward.engines.reference:reference_factory"],
        ["--impl", TOY],  # no index settings, fewer capabilities
        ["--impl", OWN],
        pytest.param(["--external", PEER], marks=pytest.mark.slow),
    ],
)
def test_eval_and_conform_name_the_same_implementation_identically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: list[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    results = _eval(tmp_path, "eval", data, *source)
    report = _conform(tmp_path, "conform", *source)
    capsys.readouterr()
    assert results["fingerprints"]["implementation"] == report["fingerprints"]["implementation"]
    assert results["fingerprints"]["ragward"] == report["fingerprints"]["ragward"]


def test_eval_and_conform_tell_two_implementations_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    results = _eval(tmp_path, "eval", data)
    report = _conform(tmp_path, "conform", "--impl", OWN)
    capsys.readouterr()
    assert results["fingerprints"]["implementation"] != report["fingerprints"]["implementation"]


def test_a_conform_report_of_the_whole_kit_has_a_null_selection() -> None:
    from ragward.conformance.report import to_json
    from ragward.conformance.runner import Report, run_conformance

    data = json.loads(to_json(Report("made by hand", "ci", ())))
    assert data["selection"] is None
    assert data["fingerprints"] == {"implementation": None, "ragward": __version__}
    assert data["catalogue"] == list(catalogue())
    chosen = first_invariant()
    selected = run_conformance(reference_factory, select=[chosen], shrink=False)
    assert selected.selection == (chosen,)
