"""The SQLite adapter: fresh systems, versions, the view as SQL, FTS5's bm25() and the RRF
recipe, and the engine facts the kit finds (shown here, not repaired)."""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import find
from ragward.engines import sqlite as engine
from ragward.engines.common import View
from ragward.errors import InvalidArgument, MissingExtra
from tests.engines import sql_cases

pytest.importorskip("sqlite_vec")

ALICE = Asker("alice", "acme")
FACTORIES = [engine.shared, engine.per_tenant]


def _hits(
    system: engine.SqliteSystem, query: str, mode: str = "hybrid", asker: Asker = ALICE
) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in system.retrieve(query, asker, 0, Policy(mode)).hits]


def test_configurations_name_their_factories() -> None:
    assert [c.name for c in engine.CONFIGURATIONS] == ["shared", "per_tenant"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "sqlite"
        assert find(configuration.impl) == configuration
    assert engine.shared().per_tenant is False
    assert engine.per_tenant().per_tenant is True


def test_the_versions_judged() -> None:
    system = engine.shared()
    assert system.vec_version == "v0.1.9"
    if "pysqlite3" in sys.modules:  # the extra's SQLite; a fallback one has its own
        assert system.sqlite_version == "3.51.1"


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sqlite_vec", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[sqlite\]'"):
        engine.shared()


def test_without_pysqlite3_an_sqlite3_that_cannot_load_extensions_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stdlib = types.ModuleType("sqlite3")
    stdlib.Connection = type("Connection", (), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pysqlite3", None)
    monkeypatch.setitem(sys.modules, "sqlite3", stdlib)
    with pytest.raises(MissingExtra, match="loads extensions"):
        engine.per_tenant()


def test_the_view_as_sql() -> None:
    where, params = engine.view_where(View("o'brien", 1, ("hr",), 4))
    assert where == (
        "tenant = :tenant AND level <= :level AND barrier IN (:b0, :b1) AND tick >= :min_tick"
    )
    assert params == {"b0": "", "b1": "hr", "tenant": "o'brien", "level": 1, "min_tick": 4}
    assert engine.view_where(View("a", 0, (), None), tenant=False)[0] == (
        "level <= :level AND barrier IN (:b0)"
    )
    assert (engine.barrier_label(None), engine.barrier_label("hr")) == ("", "hr")
    system = engine.shared()
    system.ingest(Doc("o'brien", "d'1", "payment ledger", barrier="b,c", updated_tick=3))
    asker = Asker("pat", "o'brien", barriers=("b", "c"))
    assert _hits(system, "payment", asker=asker) == []
    inside = Asker("pat", "o'brien", barriers=("b,c",))
    assert len(system.retrieve("payment", inside, 5, Policy()).hits) == 1
    stale = system.retrieve("payment", inside, 5, Policy(max_stale_ticks=1))
    assert (stale.hits, stale.excluded_by_freshness) == ((), 1)


def test_fts5_reads_the_reference_tokens_whole() -> None:
    assert engine.fts_query(["trf-3318", "a\u19b0b", "trf-3318"]) == (
        '"trf-3318" OR "a\u19b0b" OR "trf-3318"'
    )
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "transfer TRF-3318 held"))
    system.ingest(Doc("acme", "d2", "trf 3318 a b"))
    system.ingest(Doc("acme", "d3", "a\u19b0b"))
    assert [c for c, _ in _hits(system, "TRF-3318", "lexical")] == ["d1::1"]
    # unicode61 would split at U+19B0 (its tables call it a mark) and match d2's "a b".
    assert [c for c, _ in _hits(system, "a\u19b0b", "lexical")] == ["d3::1"]


def test_a_lexical_score_is_minus_fts5_bm25() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    system.ingest(Doc("acme", "d2", "invoice ledger"))
    system.ingest(Doc("acme", "d3", "other words here"))
    [(chunk_id, score)] = _hits(system, "payment", "lexical")
    # FTS5's bm25(): k1 = 1.2, b = 0.75, IDF log((N - n + 0.5) / (n + 0.5)), table-wide.
    idf, avgdl = math.log((3 - 1 + 0.5) / (1 + 0.5)), 7 / 3
    assert chunk_id == "d1::1"
    assert score == pytest.approx(idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / avgdl)), rel=1e-12)


def test_hybrid_is_the_rrf_recipe_with_ranks_from_one() -> None:
    system = engine.per_tenant()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    hits = system.retrieve("payment ledger", ALICE, 0, Policy(rrf_k=10)).hits
    assert [(h.chunk_id, h.score) for h in hits] == [("d1::1", 1 / (10 + 1) + 1 / (10 + 1))]


def test_a_candidate_limit_vec0_refuses_is_the_askers_error() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    with pytest.raises(InvalidArgument, match="k value in knn query too large"):
        system.retrieve("payment", ALICE, 0, Policy(candidate_limit=4097))
    assert len(system.retrieve("payment", ALICE, 0, Policy("lexical", candidate_limit=4097)).hits)


def test_bm25_statistics_span_the_fts5_table() -> None:
    """FTS5's bm25() reads the whole table's statistics (tests/engines/sql_cases.py)."""
    sql_cases.bm25_statistics_span_the_table(engine.shared, engine.per_tenant)


@pytest.mark.parametrize("factory", FACTORIES)
def test_the_rrf_recipe_numbers_tied_rows_apart(
    factory: Callable[[], engine.SqliteSystem],
) -> None:
    """row_number() over each leg's order gives identical chunks distinct ranks, in the
    engines' internal orders (FTS5: rowid; vec0: the last written first within a chunk),
    so identical chunks get distinct fused scores (the kit's DET-001)."""
    system = factory()
    for doc_id in ("t0", "d1-1", "d1"):
        system.ingest(Doc("globex", doc_id, "q"))
    asker = Asker("u", "globex")
    assert len({score for _, score in _hits(system, "q", "lexical", asker)}) == 1
    assert len({score for _, score in _hits(system, "q", "dense", asker)}) == 1
    fused = _hits(system, "q", "hybrid", asker)
    assert len(fused) == 3
    assert len({score for _, score in fused}) > 1


def test_a_database_file_is_continued_and_its_layout_kept(tmp_path: Path) -> None:
    path = str(tmp_path / "rag.db")
    first = engine.per_tenant(path=path)
    assert first.ingest(Doc("acme", "d1", "payment held", version=2))
    del first
    again = engine.per_tenant(path=path)
    assert [c for c, _ in _hits(again, "payment", "lexical")] == ["d1::1"]
    assert not again.ingest(Doc("acme", "d1", "payment older", version=2))
    with pytest.raises(InvalidArgument, match="was made as per_tenant, 96-d"):
        engine.shared(path=path)


@pytest.mark.parametrize(
    "check",
    [
        sql_cases.each_factory_call_is_a_fresh_empty_system,
        sql_cases.upsert_delete_and_stale_versions,
        sql_cases.the_view_and_the_counts,
        sql_cases.bulk_ingest_is_ingest_of_each_document_in_order,
    ],
)
@pytest.mark.parametrize("factory", FACTORIES)
def test_the_sql_adapters_checks(check: Callable[[Any], None], factory: Callable[[], Any]) -> None:
    check(factory)
