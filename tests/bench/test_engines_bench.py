"""python -m ragward.bench.engines --tidewater-only: Tidewater's figures refreshed in
place, SciFact's kept, nothing written when a column has no stored row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragward.bench.engines import main

_STALE = {
    "column": "reference",
    "impl": "ragward.engines.reference:reference_factory",
    "ndcg_cut_10": 0.1234,
    "recall_100": 0.5,
    "leakage_100": 0.0,
    "tidewater_ndcg_cut_10": 0.0001,
    "tidewater_leakage_10": 0.5,
    "ingest_seconds": 1.0,
    "p50_ms": 2.0,
    "p95_ms": 3.0,
    "queries": 300,
    "wall_seconds": 9.0,
}


def _store(out: Path, rows: list[dict[str, object]]) -> Path:
    out.mkdir()
    target = out / "quality.json"
    target.write_text(json.dumps(rows), encoding="utf-8")
    return target


def test_tidewater_only_refreshes_tidewater_and_keeps_scifact(tmp_path: Path) -> None:
    stale = [{**_STALE, "mode": mode} for mode in ("hybrid", "lexical")]
    target = _store(tmp_path / "out", stale)
    assert main(["--tidewater-only", "--only", "reference", "--out", str(target.parent)]) == 0
    rows = json.loads(target.read_text(encoding="utf-8"))
    assert [r["mode"] for r in rows] == ["hybrid", "lexical"]
    for row in rows:
        assert row["tidewater_ndcg_cut_10"] > 0.5  # the reference's real figure, not 0.0001
        assert row["tidewater_leakage_10"] == 0.0
        kept = {k: v for k, v in row.items() if not k.startswith("tidewater_")}
        assert kept == {
            **{k: v for k, v in _STALE.items() if not k.startswith("tidewater_")},
            "mode": row["mode"],
        }
    assert rows[0]["tidewater_ndcg_cut_10"] != rows[1]["tidewater_ndcg_cut_10"]
    assert "| reference" in (target.parent / "quality.md").read_text(encoding="utf-8")


def test_tidewater_only_without_a_stored_row_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _store(tmp_path / "out", [{**_STALE, "column": "other", "mode": "hybrid"}])
    before = target.read_bytes()
    assert main(["--tidewater-only", "--only", "reference", "--out", str(target.parent)]) == 2
    assert "reference has no stored row" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert not (target.parent / "quality.md").exists()


def test_scifact_is_required_unless_tidewater_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--only", "reference"])
    assert stopped.value.code == 2
    assert "--data is required" in capsys.readouterr().err
