"""The LanceDB adapter: fresh systems, upserts, deletes, the view filter and RRF mapping."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import find
from ragward.engines import lancedb as engine
from ragward.engines.common import View
from ragward.errors import MissingExtra

pytest.importorskip("lancedb")

ALICE = Asker("alice", "acme")
DEFAULT = Policy()


def _ids(system: engine.LanceSystem, query: str, policy: Policy = DEFAULT) -> list[str]:
    return [hit.chunk_id for hit in system.retrieve(query, ALICE, 0, policy).hits]


def test_configurations_name_their_factories() -> None:
    names = [c.name for c in engine.CONFIGURATIONS]
    assert names == ["prefilter", "postfilter"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "lancedb"
        assert find(configuration.impl) == configuration
        assert callable(getattr(engine, configuration.name))
    assert engine.prefilter().prefilter is True
    assert engine.postfilter().prefilter is False


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lancedb", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[lancedb\]'"):
        engine.prefilter()


def test_each_factory_call_is_a_fresh_empty_system() -> None:
    first = engine.prefilter()
    assert first.ingest(Doc("acme", "d1", "payment ledger"))
    second = engine.prefilter()
    assert _ids(first, "payment") == ["d1::1"]
    result = second.retrieve("payment", ALICE, 0, Policy())
    assert (result.hits, result.considered) == ((), 0)
    assert second.ingest(Doc("acme", "d1", "payment ledger"))  # no version carried over


def test_tenants_sharing_a_doc_id_stay_apart() -> None:
    system = engine.prefilter()
    assert system.ingest(Doc("acme", "d1", "payment ledger"))
    assert system.ingest(Doc("globex", "d1", "payment wire", version=7))
    hits = system.retrieve("payment wire", ALICE, 0, Policy(mode="lexical")).hits
    assert [(h.doc_id, h.version, h.text) for h in hits] == [("d1", 1, "payment ledger")]
    assert system.ingest(Doc("acme", "d1", "payment ledger again", version=2))


def test_upsert_replaces_and_old_versions_are_refused_even_after_delete() -> None:
    system = engine.prefilter()
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=1))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert _ids(system, "payment") == []
    hits = system.retrieve("invoice", ALICE, 0, Policy()).hits
    assert [(h.version, h.text) for h in hits] == [(3, "invoice wire")]
    system.delete("acme", "d1")
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=4))


def test_delete_removes_hits_and_counts() -> None:
    system = engine.prefilter()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
    before = system.retrieve("payment", ALICE, 0, Policy(mode="lexical"))
    assert ([h.chunk_id for h in before.hits], before.considered) == (["d1::1"], 2)
    assert before.excluded_by_entitlement == 1
    system.delete("acme", "d1")
    system.delete("acme", "d2")
    after = system.retrieve("payment", ALICE, 0, Policy(mode="lexical"))
    assert (after.hits, after.considered, after.excluded_by_entitlement) == ((), 0, 0)


def test_the_view_filter_quotes_and_bounds() -> None:
    view = View("o'brien", 1, ("hr",), 4)
    assert engine.view_filter(view) == (
        "tenant = 'o''brien' AND level <= 1 AND (barrier IS NULL OR barrier IN ('hr')) "
        "AND tick >= 4"
    )
    assert engine.view_filter(View("acme", 0, (), None)) == (
        "tenant = 'acme' AND level <= 0 AND barrier IS NULL"
    )
    system = engine.prefilter()
    system.ingest(Doc("o'brien", "d'1", "payment ledger", updated_tick=3))
    asker = Asker("pat", "o'brien")
    assert len(system.retrieve("payment", asker, 5, Policy()).hits) == 1
    stale = system.retrieve("payment", asker, 5, Policy(max_stale_ticks=1))
    assert (stale.hits, stale.excluded_by_freshness) == ((), 1)


def test_hybrid_is_lancedb_rrf_with_ranks_from_one() -> None:
    system = engine.prefilter()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    hits = system.retrieve("payment ledger", ALICE, 0, Policy(rrf_k=10)).hits
    # first in both legs: 1 / (10 + 1) twice (LanceDB keeps the fused score as float32)
    assert [h.chunk_id for h in hits] == ["d1::1"]
    assert hits[0].score == pytest.approx(1 / (10 + 1) + 1 / (10 + 1), rel=1e-6)


def _flooded(system: engine.LanceSystem) -> None:
    for n in range(4):
        system.ingest(Doc("acme", f"d{n}", f"payment note {n}"))
    for n in range(30):
        system.ingest(Doc("globex", f"f{n}", "payment payment payment"))


def test_postfilter_returns_fewer_than_the_limit_under_a_flood() -> None:
    # lancedb/lancedb#2762: the top-k is taken over every tenant, then filtered.
    policy = Policy(mode="lexical", candidate_limit=3, result_limit=3)
    before = engine.prefilter()
    _flooded(before)
    assert len(_ids(before, "payment", policy)) == 3
    after = engine.postfilter()
    _flooded(after)
    assert len(_ids(after, "payment", policy)) < 3


def test_full_text_statistics_span_the_whole_table() -> None:
    # An engine fact the kit's statistics invariants see: BM25's N and df are the table's,
    # so another tenant's documents move acme's score even with prefilter=True.
    alone = engine.prefilter()
    alone.ingest(Doc("acme", "d1", "payment ledger"))
    alone.ingest(Doc("acme", "d2", "invoice ledger"))
    shared = engine.prefilter()
    shared.ingest(Doc("acme", "d1", "payment ledger"))
    shared.ingest(Doc("acme", "d2", "invoice ledger"))
    shared.ingest(Doc("globex", "d1", "payment payment"))
    policy = Policy(mode="lexical")
    score = alone.retrieve("payment", ALICE, 0, policy).hits[0].score
    assert shared.retrieve("payment", ALICE, 0, policy).hits[0].score != score


def test_tables_go_to_the_uri_given(tmp_path: Path) -> None:
    system = engine.prefilter(uri=str(tmp_path))
    assert system.ingest(Doc("acme", "d1", "payment held"))
    hits = system.retrieve("payment", Asker("u", "acme"), 0, Policy(mode="lexical")).hits
    assert [h.chunk_id for h in hits] == ["d1::1"]
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".lance", ".lance"]


def test_bulk_ingest_is_ingest_of_each_document_in_order() -> None:
    docs = [
        Doc("acme", "d1", "payment held", version=2),
        Doc("acme", "d1", "payment older", version=1),  # refused: not newer
        Doc("acme", "d2", "ledger payment"),
        Doc("globex", "d1", "payment elsewhere"),
        Doc("acme", "d2", "ledger payment released", version=3),  # replaces d2 v1
    ]
    bulk, single = engine.prefilter(), engine.prefilter()
    # A generator, read once: it used to be walked twice, and nothing was stored.
    assert bulk.ingest_many(d for d in docs) == tuple(single.ingest(d) for d in docs)
    assert bulk.ingest_many([Doc("acme", "d1", "stale", version=2)]) == (False,)
    for policy in (Policy(mode="lexical"), Policy(mode="hybrid")):
        a = bulk.retrieve("payment", ALICE, 0, policy)
        b = single.retrieve("payment", ALICE, 0, policy)
        assert [(h.chunk_id, h.version, h.text, h.score) for h in a.hits] == [
            (h.chunk_id, h.version, h.text, h.score) for h in b.hits
        ]
        assert {h.doc_id: h.version for h in a.hits} == {"d1": 2, "d2": 3}
