"""The tantivy adapter: fresh systems, upserts, deletes, the view as query clauses, the
reference's tokens read as they are, and the index-wide BM25 statistics it lets through
rather than repairs."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import find
from ragward.engines import tantivy as engine
from ragward.errors import MissingExtra

pytest.importorskip("tantivy")

ROOT = Path(__file__).resolve().parents[2]
ALICE = Asker("alice", "acme")
LEXICAL = Policy(mode="lexical")
FACTORIES = [engine.shared, engine.per_tenant]


def _hits(
    system: engine.TantivySystem, query: str, asker: Asker = ALICE, policy: Policy = LEXICAL
) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in system.retrieve(query, asker, 0, policy).hits]


def test_configurations_name_their_factories() -> None:
    assert [c.name for c in engine.CONFIGURATIONS] == ["shared", "per_tenant"]
    for configuration in engine.CONFIGURATIONS:
        assert configuration.extra == "tantivy"
        assert find(configuration.impl) == configuration
    assert engine.shared().per_tenant is False
    assert engine.per_tenant().per_tenant is True
    assert engine.shared().capabilities.modes == ("lexical",)


def test_the_extra_pins_the_version_judged() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = extras["optional-dependencies"]["tantivy"]
    assert pinned == [f"tantivy=={metadata.version('tantivy')}"] == ["tantivy==0.27.0"]


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tantivy", None)
    with pytest.raises(MissingExtra, match=r"pip install 'ragward\[tantivy\]'"):
        engine.shared()


@pytest.mark.parametrize("factory", FACTORIES)
def test_upsert_delete_and_stale_versions(factory: Callable[[], engine.TantivySystem]) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment ledger", version=2))
    assert not system.ingest(Doc("acme", "d1", "payment wire", version=2))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert _hits(system, "payment") == []
    assert [c for c, _ in _hits(system, "invoice")] == ["d1::1"]
    system.delete("acme", "d1")
    assert _hits(system, "invoice") == []
    assert not system.ingest(Doc("acme", "d1", "invoice wire", version=3))
    assert system.ingest(Doc("acme", "d1", "invoice wire", version=4))
    assert [c for c, _ in _hits(system, "invoice")] == ["d1::1"]
    result = factory().retrieve("invoice", ALICE, 0, LEXICAL)
    assert (result.hits, result.considered) == ((), 0)


@pytest.mark.parametrize("factory", FACTORIES)
def test_a_read_sees_every_write_before_it(factory: Callable[[], engine.TantivySystem]) -> None:
    system = factory()
    system.ingest(Doc("acme", "d1", "payment ledger"))
    assert [c for c, _ in _hits(system, "payment")] == ["d1::1"]
    system.ingest(Doc("acme", "d2", "payment wire"))
    system.delete("acme", "d1")
    assert [c for c, _ in _hits(system, "payment")] == ["d2::1"]
    # Deleted and written again before the next read: the new version is what is read.
    system.delete("acme", "d2")
    system.ingest(Doc("acme", "d2", "payment held", version=2))
    assert [h.text for h in system.retrieve("payment", ALICE, 0, LEXICAL).hits] == ["payment held"]


@pytest.mark.parametrize("factory", FACTORIES)
def test_tenants_are_raw_terms(factory: Callable[[], engine.TantivySystem]) -> None:
    # The default tokenizer would split "a b" and lower-case "A"; raw keeps each whole.
    system = factory()
    for n, tenant in enumerate(["a", "A", "a b", " a", "a\x00b"]):
        system.ingest(Doc(tenant, "d1", f"payment note{n}"))
    for n, tenant in enumerate(["a", "A", "a b", " a", "a\x00b"]):
        hits = system.retrieve("payment", Asker("u", tenant), 0, LEXICAL).hits
        assert [h.text for h in hits] == [f"payment note{n}"]
    assert _hits(system, "payment", Asker("u", "b")) == []


def test_the_view_is_filtered_and_counted_by_the_engine() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger", updated_tick=5))
    system.ingest(Doc("acme", "d2", "payment secret", classification="restricted"))
    system.ingest(Doc("acme", "d3", "payment deal", barrier="deal-x", updated_tick=5))
    system.ingest(Doc("acme", "d4", "payment old", updated_tick=1))
    system.ingest(Doc("globex", "g1", "payment ledger"))
    policy = Policy(mode="lexical", max_stale_ticks=2)
    result = system.retrieve("payment", ALICE, 6, policy)
    assert [h.chunk_id for h in result.hits] == ["d1::1"]
    assert (result.considered, result.excluded_by_entitlement, result.excluded_by_freshness) == (
        4,
        2,
        1,
    )
    inside = Asker("bo", "acme", max_classification="restricted", barriers=("deal-x",))
    hits = system.retrieve("payment", inside, 6, Policy(mode="lexical")).hits
    assert sorted(h.chunk_id for h in hits) == ["d1::1", "d2::1", "d3::1", "d4::1"]
    # A query of no term is no search.
    empty = system.retrieve("...", ALICE, 6, LEXICAL)
    assert (empty.hits, empty.considered) == ((), 0)


def test_the_view_scores_nothing_and_limits_are_the_engines() -> None:
    system = engine.shared()
    for n in range(4):
        system.ingest(Doc("acme", f"d{n}", "payment " + "word " * n))
    scores = _hits(system, "payment")
    index = system._indexes[None]
    searcher = index.searcher()
    alone = searcher.search(engine._text_query(index.schema, ["payment"]), 10).hits
    # The view's clause adds 0 to each score: the scores are the text query's own.
    assert sorted(s for _, s in scores) == sorted(float(s) for s, _ in alone)
    tight = Policy(mode="lexical", candidate_limit=2, result_limit=1)
    assert _hits(system, "payment", policy=tight) == scores[:1]


def test_the_text_query_is_what_the_query_parser_makes_of_it() -> None:
    system = engine.shared()
    system.ingest(Doc("acme", "d1", "payment ledger payment"))
    system.ingest(Doc("acme", "d2", "payment wire"))
    system.ingest(Doc("acme", "d3", "ledger wire"))
    index = system._indexes[None]
    searcher = index.searcher()
    for text in (["payment"], ["payment", "ledger", "payment"], ["wire", "ledger"]):
        ours = searcher.search(engine._text_query(index.schema, text), 10).hits
        parsed = searcher.search(index.index.parse_query(" ".join(text), ["terms"]), 10).hits
        assert [s for s, _ in ours] == [s for s, _ in parsed]


def test_the_reference_tokens_are_read_as_they_are() -> None:
    # tantivy's default tokenizer splits "trf-3318" and drops tokens over 40 bytes.
    system = engine.shared()
    long = "x" * 60
    system.ingest(Doc("acme", "d1", f"transfer TRF-3318 {long}"))
    system.ingest(Doc("acme", "d2", "trf 3318"))
    assert [c for c, _ in _hits(system, "trf-3318")] == ["d1::1"]
    assert [c for c, _ in _hits(system, long)] == ["d1::1"]


def _scores(
    factory: Callable[[], engine.TantivySystem], docs: list[Doc], deleted: tuple[str, ...] = ()
) -> list[tuple[str, float]]:
    """Scores of ``payment`` for acme after ``docs`` (read once, so they are committed)
    and then the deletes of ``deleted``."""
    system = factory()
    for doc in docs:
        system.ingest(doc)
    _hits(system, "payment")
    for doc_id in deleted:
        system.delete("acme", doc_id)
    return _hits(system, "payment")


ACME = [Doc("acme", "d1", "payment ledger"), Doc("acme", "d2", "invoice ledger")]


def test_another_tenants_documents_move_the_shared_indexs_scores() -> None:
    """tantivy's BM25 takes N, the average length and df from the whole index it searches
    (``Bm25Weight::for_terms`` over the ``Searcher``): a MUST clause narrows the hits, not
    the statistics. The kit's ISO-002/STAT-001; per tenant, another tenant moves nothing."""
    other = [Doc("globex", "g1", "payment payment"), Doc("globex", "g2", "payment wire")]
    assert _scores(engine.shared, ACME) != _scores(engine.shared, ACME + other)
    assert _scores(engine.per_tenant, ACME) == _scores(engine.per_tenant, ACME + other)
    # Per tenant, the tenant's own restricted documents still count.
    secret = [Doc("acme", "s1", "payment secret", classification="restricted")]
    assert _scores(engine.per_tenant, ACME) != _scores(engine.per_tenant, ACME + secret)


@pytest.mark.parametrize("factory", FACTORIES)
def test_a_deleted_document_stays_in_the_statistics(
    factory: Callable[[], engine.TantivySystem],
) -> None:
    """A delete marks the document deleted; ``max_doc`` (N), the field's token total and
    the term's df keep counting it until a merge rewrites its segment. The kit's
    STAT-002: the survivors score as if the deleted document were there."""
    gone = Doc("acme", "d3", "payment payment wire")
    fresh = _scores(factory, ACME)
    after = _scores(factory, [*ACME, gone], deleted=("d3",))
    assert [c for c, _ in after] == [c for c, _ in fresh] == ["d1::1"]
    assert after != fresh


def test_no_vector_is_made_whatever_embedder_the_harness_names() -> None:
    # A lexical-only engine stores no vector: no model is loaded for "minilm", and the
    # eval report says so rather than naming a model the answers never used.
    system = engine.shared(embedder="minilm")
    assert system.model_identity == "embedder none: BM25 only, no vectors"
    assert system.settings.rows(Doc("acme", "d1", "payment ledger"))[0].vector is None
    system.ingest(Doc("acme", "d1", "payment ledger"))
    assert [c for c, _ in _hits(system, "payment")] == ["d1::1"]
