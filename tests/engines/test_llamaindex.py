"""The LlamaIndex adapter: fresh systems, upserts, deletes, the view as metadata filters,
its RRF, and the BM25 filter leak it lets through rather than repairs."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import find
from ragward.engines import llamaindex as engine
from ragward.errors import MissingExtra

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.retrievers.bm25")

ALICE = Asker("alice", "acme")


def _hits(
    system: engine.LlamaSystem, query: str, mode: str = "hybrid", asker: Asker = ALICE
) -> list[tuple[str, str, float]]:
    result = system.retrieve(query, asker, 0, Policy(mode=mode))
    return [(h.doc_id, h.text, h.score) for h in result.hits]


def test_configurations_name_their_factories() -> None:
    assert [c.name for c in engine.CONFIGURATIONS] == ["fusion_filtered", "per_tenant"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "llamaindex"
        assert find(configuration.impl) == configuration
    assert engine.fusion_filtered().per_tenant is False
    assert engine.per_tenant().per_tenant is True


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_index.retrievers.bm25", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[llamaindex\]'"):
        engine.fusion_filtered()


@pytest.mark.parametrize("factory", [engine.fusion_filtered, engine.per_tenant])
def test_upsert_delete_and_stale_versions(factory: Callable[[], engine.LlamaSystem]) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=2))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert _hits(system, "invoice", "lexical")[0][:2] == ("d1", "invoice wire")
    system.delete("acme", "d1")
    assert _hits(system, "invoice", "lexical") == []
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert factory().retrieve("invoice", ALICE, 0, Policy()).hits == ()


def test_hybrid_is_llamaindex_rrf_with_k_60_and_ranks_from_0() -> None:
    system = engine.per_tenant()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    [(doc_id, _, score)] = _hits(system, "payment ledger")
    # First in both legs: 2 / (60 + 0), LlamaIndex's constant k with ranks from 0.
    assert doc_id == "d1"
    assert score == pytest.approx(2 / 60)


def test_the_documented_bm25_filter_lets_another_tenant_through_with_score_zero() -> None:
    """BM25Retriever(filters=) masks scores to 0 but keeps the masked nodes in its top-k
    (llama-index-retrievers-bm25 0.8.0, BM25Retriever._retrieve): the adapter passes that
    on, and the fusion ranks the other tenant's node like any other."""
    system = engine.fusion_filtered()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    system.ingest(Doc("globex", "g1", "payment secret"))
    lexical = _hits(system, "payment", "lexical")
    assert ("g1", "payment secret", 0.0) in lexical
    assert "g1" in [doc_id for doc_id, _, _ in _hits(system, "payment")]
    # Per tenant, the other tenant's nodes are in no corpus the asker is searched in.
    separate = engine.per_tenant()
    separate.ingest(Doc("acme", "d1", "payment ledger"))
    separate.ingest(Doc("globex", "g1", "payment secret"))
    assert [doc_id for doc_id, _, _ in _hits(separate, "payment")] == ["d1"]


def test_the_vector_index_filters_before_its_top_k() -> None:
    system = engine.fusion_filtered()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
    system.ingest(Doc("globex", "g1", "payment ledger"))
    assert [doc_id for doc_id, _, _ in _hits(system, "payment ledger", "dense")] == ["d1"]
