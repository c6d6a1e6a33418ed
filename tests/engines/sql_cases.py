"""Checks every SQL engine adapter (SQLite, DuckDB) must pass alike, each taking the
configuration's factory: a fresh system per call, versions and deletes, and the view with
its audit counts. The engine's own test module runs them per configuration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragward.conformance.records import Asker, Doc, Policy

ALICE = Asker("alice", "acme")


def hits(system: Any, query: str, mode: str = "hybrid", asker: Asker = ALICE) -> list[Any]:
    """``(chunk_id, score)`` of each hit of ``query`` in ``mode`` for ``asker``."""
    return [(h.chunk_id, h.score) for h in system.retrieve(query, asker, 0, Policy(mode)).hits]


def each_factory_call_is_a_fresh_empty_system(factory: Callable[[], Any]) -> None:
    first = factory()
    assert first.ingest(Doc("acme", "d1", "payment ledger"))
    second = factory()
    assert [c for c, _ in hits(first, "payment")] == ["d1::1"]
    result = second.retrieve("payment", ALICE, 0, Policy())
    assert (result.hits, result.considered) == ((), 0)
    assert second.ingest(Doc("acme", "d1", "payment ledger"))  # no version carried over


def upsert_delete_and_stale_versions(factory: Callable[[], Any]) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert system.ingest(Doc("globex", "d1", "payment wire", version=7))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=1))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert hits(system, "payment", "lexical") == []
    found = system.retrieve("invoice wire", ALICE, 0, Policy()).hits
    assert [(h.doc_id, h.version, h.text) for h in found] == [("d1", 3, "invoice wire")]
    system.delete("acme", "d1")
    assert hits(system, "invoice wire") == []
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=4))


def the_view_and_the_counts(factory: Callable[[], Any]) -> None:
    system = factory()
    system.ingest(Doc("acme", "d1", "payment ledger", updated_tick=5))
    system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
    system.ingest(Doc("acme", "d3", "payment hr", barrier="hr", updated_tick=5))
    system.ingest(Doc("acme", "d4", "payment old", updated_tick=1))
    system.ingest(Doc("globex", "d1", "payment ledger"))
    fresh = Policy(mode="lexical", max_stale_ticks=2)
    result = system.retrieve("payment", ALICE, 6, fresh)
    assert [h.chunk_id for h in result.hits] == ["d1::1"]
    assert (result.considered, result.excluded_by_entitlement) == (4, 2)
    assert result.excluded_by_freshness == 1
    inside = system.retrieve("payment", Asker("hal", "acme", barriers=("hr",)), 6, fresh)
    assert sorted(h.chunk_id for h in inside.hits) == ["d1::1", "d3::1"]
    system.delete("acme", "d2")
    after = system.retrieve("payment", ALICE, 6, fresh)
    assert (after.considered, after.excluded_by_entitlement) == (3, 1)
    dense = system.retrieve("payment", ALICE, 6, Policy(mode="dense", max_stale_ticks=2))
    assert [h.chunk_id for h in dense.hits] == ["d1::1"]


def bulk_ingest_is_ingest_of_each_document_in_order(factory: Callable[[], Any]) -> None:
    docs = [
        Doc("acme", "d1", "payment held", version=2),
        Doc("acme", "d1", "payment older", version=1),  # refused: not newer
        Doc("acme", "d2", "ledger payment"),
        Doc("globex", "d1", "payment elsewhere"),
        Doc("acme", "d2", "ledger payment released", version=3),  # replaces d2 v1
    ]
    bulk, single = factory(), factory()
    assert bulk.ingest_many(d for d in docs) == tuple(single.ingest(d) for d in docs)
    for mode in ("lexical", "dense", "hybrid"):
        assert hits(bulk, "payment", mode) == hits(single, "payment", mode)


def bm25_statistics_span_the_table(
    shared: Callable[[], Any], per_tenant: Callable[[], Any]
) -> None:
    """The engine's BM25 reads N, the average length and each document frequency over the
    whole table, whatever the WHERE admits (the kit's STAT-001, ISO-002, LIFE-004)."""

    def score(factory: Callable[[], Any], *docs: Doc) -> float:
        system = factory()
        system.ingest(Doc("acme", "d1", "payment ledger"))
        system.ingest(Doc("acme", "d2", "invoice ledger"))
        system.ingest(Doc("acme", "d3", "other words here"))
        for doc in docs:
            system.ingest(doc)
        return float(hits(system, "payment", "lexical")[0][1])

    other_tenant = Doc("globex", "g1", "payment payment payment")
    restricted = Doc("acme", "d9", "payment payment", classification="restricted")
    assert score(shared, other_tenant) != score(shared)
    # A table per tenant keeps other tenants out, not the tenant's own hidden chunks.
    assert score(per_tenant, other_tenant) == score(per_tenant)
    assert score(per_tenant, restricted) != score(per_tenant)
