"""The LangChain adapter: fresh systems, upserts, deletes, a BM25 retriever per tenant or
one post-filtered, the vector store's filter, and rank_bm25's statistics passed on."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import find
from ragward.engines import langchain as engine
from ragward.errors import MissingExtra

pytest.importorskip("langchain_classic")
pytest.importorskip("langchain_community")
pytest.importorskip("rank_bm25")

ALICE = Asker("alice", "acme")
FACTORIES = [engine.ensemble_per_tenant, engine.ensemble_postfilter]


def _ids(system: engine.ChainSystem, query: str, mode: str = "hybrid", **policy: int) -> list[str]:
    result = system.retrieve(query, ALICE, 0, Policy(mode=mode, **policy))  # type: ignore[arg-type]
    return [hit.doc_id for hit in result.hits]


def test_configurations_name_their_factories() -> None:
    names = [c.name for c in engine.CONFIGURATIONS]
    assert names == ["ensemble_per_tenant", "ensemble_postfilter"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "langchain"
        assert find(configuration.impl) == configuration
    assert engine.ensemble_per_tenant().per_tenant is True
    assert engine.ensemble_postfilter().per_tenant is False
    assert not engine.ChainSystem.capabilities.scores  # a retriever returns no score


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rank_bm25", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[langchain\]'"):
        engine.ensemble_postfilter()


@pytest.mark.parametrize("factory", FACTORIES)
def test_upsert_delete_and_stale_versions(factory: Callable[[], engine.ChainSystem]) -> None:
    system = factory()
    system.ingest(Doc("acme", "filler", "nothing alike here"))
    system.ingest(Doc("acme", "more", "other words again"))
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=1))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert _ids(system, "invoice", "lexical")[0] == "d1"
    system.delete("acme", "d1")
    assert "d1" not in _ids(system, "invoice")
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))


@pytest.mark.parametrize("factory", FACTORIES)
def test_nothing_outside_the_view_comes_back(factory: Callable[[], engine.ChainSystem]) -> None:
    system = factory()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
    system.ingest(Doc("globex", "g1", "payment ledger"))
    for mode in ("hybrid", "lexical", "dense"):
        assert _ids(system, "payment ledger", mode) == ["d1"]


def test_a_post_filter_leaves_slots_empty_that_a_per_tenant_bm25_fills() -> None:
    """The shared BM25's top-k is cut before the filter: another tenant's better matches
    take every slot, and the asker's document is dropped with them."""
    docs = [Doc("globex", f"g{i}", "payment payment ledger") for i in range(3)]
    docs.append(Doc("acme", "d1", "payment note"))
    docs.extend(Doc("acme", f"f{i}", f"filler {i}") for i in range(3))
    shared, separate = engine.ensemble_postfilter(), engine.ensemble_per_tenant()
    for system in (shared, separate):
        system.ingest_many(docs)
    assert _ids(shared, "payment", "lexical", candidate_limit=3) == []
    assert _ids(separate, "payment", "lexical", candidate_limit=3)[0] == "d1"


def test_a_term_in_half_the_corpus_scores_zero_under_bm25okapi() -> None:
    """rank_bm25's IDF, log(N - n + 0.5) - log(n + 0.5), is 0 for a term in half the
    documents: the one document holding it is not ranked above the other."""
    system = engine.ensemble_per_tenant()
    system.ingest(Doc("acme", "d1", "qxopakhb"))
    system.ingest(Doc("acme", "d2", "q"))
    assert _ids(system, "qxopakhb", "lexical") == ["d2", "d1"]
