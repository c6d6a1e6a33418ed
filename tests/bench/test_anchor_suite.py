"""The anchor suite runs end to end and reports every ratio beside its target."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from ragward.bench.anchor_suite import Row, raw_bytes, run_anchor_suite
from ragward.cli import main
from ragward.reference import AuthorizedRetriever, ReferenceDoc

ROOT = Path(__file__).resolve().parents[2]
TIDEWATER = ROOT / "datasets" / "tidewater"


def _small_grid(folder: Path) -> Path:
    grid = folder / "small.toml"
    grid.write_text(
        'name = "small"\nsplit = "test"\ndepth = 10\nmeasures = ["ndcg_cut_10"]\n'
        "grounding_depth = 5\n[index]\nchunking = [{ max_tokens = 96, overlap_tokens = 16 }]\n"
        'embedder = ["hash-96"]\n[retrieval]\nmode = ["hybrid", "lexical"]\nrrf_k = [10, 60]\n'
        'rerank = ["none"]\ncandidate_limit = [30]\n[grounding]\nmin_overlap = [0.5]\n',
        encoding="utf-8",
    )
    return grid


def test_a_small_suite_reports_every_row(tmp_path: Path) -> None:
    report = run_anchor_suite(
        tmp_path,
        chunks=400,
        queries=12,
        scales=(300,),
        data=TIDEWATER,
        progress=False,
        kit=False,
        metrics_queries=200,
        tenant_chunks=300,
        grid=_small_grid(tmp_path),
    )
    stored = json.loads((tmp_path / "anchors.json").read_text(encoding="utf-8"))
    assert stored["rows"] == report["rows"]
    whats = [row["what"] for row in report["rows"]]
    assert "BM25 per query, tidewater" in whats
    assert "dense exact top-k per query" in whats
    memory = [r for r in report["rows"] if r["what"] == "index memory per chunk"]
    # at the suite's dimensions (384 by default), then at the 96-d, largest scale
    assert [r["note"].split(", ")[1] for r in memory] == ["384-d", "96-d"]
    assert "hybrid, a tenant among 100" in whats
    (command,) = [r for r in report["rows"] if r["what"] == "ragward metrics, the whole command"]
    assert command["ratio"] > 0
    assert "peak memory" in command["note"]
    (grid,) = [r for r in report["rows"] if r["anchor_name"] == "rebuilding per setting"]
    assert "answers identical" in grid["note"]
    assert grid["ratio"] < 1.0  # reuse is faster than rebuilding, even on a small set
    numpy_rows = [r for r in report["rows"] if r["anchor_name"] == "bm25s numpy"]
    assert len(numpy_rows) == 4  # first asks and warm asks, on each corpus
    assert all(r["ratio"] > 0 for r in numpy_rows)
    numba = [r for r in report["rows"] if r["anchor_name"] == "bm25s numba"]
    if importlib.util.find_spec("numba") is None:
        assert all(r["note"].startswith("not measured: ") for r in numba)
    else:
        assert all(r["ratio"] > 0 for r in numba)
        # the warm asks are held to the target; first asks are reported beside them
        assert [r["met"] is not None for r in numba] == [True, False, True, False]
    latency = report["hybrid_latency_ms_by_chunks"]  # keyed by the chunks each one holds
    assert len(latency) == 2
    assert all(ms > 0 for ms in latency.values())
    markdown = (tmp_path / "anchors.md").read_text(encoding="utf-8")
    for row in report["rows"]:
        assert row["what"] in markdown


def test_a_row_is_met_only_at_or_under_its_target() -> None:
    assert Row("x", 2.0, "a", 1.0, "ms", 2.0).met is True
    assert Row("x", 2.1, "a", 1.0, "ms", 2.0).met is False
    assert Row("x", None, "a", 1.0, "ms", 2.0).met is None
    assert Row("x", 1.0, "a", 1.0, "ms", None).met is None


def test_raw_bytes_count_postings_vectors_and_text() -> None:
    retriever = AuthorizedRetriever()
    chunks = retriever.ingest(ReferenceDoc("d", "t", "", "alpha beta alpha"))
    assert raw_bytes(chunks, 4) == 2 * 8 + 4 * 4 + len("alpha beta alpha")


def test_anchors_check_their_data_folder_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["bench", "--anchors", "--data", str(tmp_path / "none"), "--out", str(tmp_path / "o")]
    )
    assert code == 2
    assert capsys.readouterr().err.strip().endswith("not a directory")
    assert not (tmp_path / "o").exists()
