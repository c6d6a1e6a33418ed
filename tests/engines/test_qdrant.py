"""Unit tests of the Qdrant adapters (the kit's verdicts are the golden-matrix test's job)."""

from __future__ import annotations

import builtins
import math
from collections import Counter
from typing import Any

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines import qdrant
from ragward.errors import MissingExtra, RagwardError

pytest.importorskip("qdrant_edge")
pytest.importorskip("qdrant_client")

FACTORIES = [qdrant.edge, qdrant.edge_scoped_idf, qdrant.local]
ALICE = Asker("alice", "acme")


@pytest.fixture(params=FACTORIES, ids=lambda f: f.__name__)
def factory(request: pytest.FixtureRequest) -> Any:
    return request.param


def _ids(system: qdrant.QdrantSystem, query: str, asker: Asker = ALICE, **policy: Any) -> list[str]:
    return [h.chunk_id for h in system.retrieve(query, asker, 0, Policy(**policy)).hits]


def test_configurations_are_listed_with_their_extra() -> None:
    names = [c.name for c in qdrant.CONFIGURATIONS]
    assert names == ["edge", "edge_scoped_idf", "local", "server"]
    assert all(c.extra == "qdrant" and hasattr(qdrant, c.name) for c in qdrant.CONFIGURATIONS)
    assert [c.in_matrix for c in qdrant.CONFIGURATIONS] == [True, True, True, False]


def test_server_without_url_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGWARD_QDRANT_URL", raising=False)
    with pytest.raises(RagwardError, match="RAGWARD_QDRANT_URL") as caught:
        qdrant.server()
    assert "\n" not in str(caught.value)


def test_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("qdrant_edge"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    monkeypatch.setattr(qdrant, "_ENCODER", [])
    with pytest.raises(MissingExtra, match=r"ragward\[qdrant\]"):
        qdrant.edge()


def test_systems_are_isolated(factory: Any) -> None:
    one, two = factory(), factory()
    assert one.ingest(Doc("acme", "d1", "payment held"))
    assert _ids(one, "payment") == ["d1::1"]
    assert _ids(two, "payment") == []


def test_tenants_and_labels_are_filtered_by_the_engine(factory: Any) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "open", "payment held"))
    assert system.ingest(Doc("acme", "secret", "payment held", classification="restricted"))
    assert system.ingest(Doc("acme", "walled", "payment held", barrier="deals"))
    assert system.ingest(Doc("globex", "open", "payment held"))
    for mode in ("hybrid", "lexical", "dense"):
        assert _ids(system, "payment", mode=mode) == ["open::1"]
    inside = Asker("bob", "acme", "restricted", ("deals",))
    assert sorted(_ids(system, "payment", inside)) == ["open::1", "secret::1", "walled::1"]
    result = system.retrieve("payment", ALICE, 0, Policy())
    assert (result.considered, result.excluded_by_entitlement) == (3, 2)


def test_upsert_replaces_and_stale_writes_are_refused(factory: Any) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment held", version=2))
    assert not system.ingest(Doc("acme", "d1", "invoice", version=2))
    assert system.ingest(Doc("acme", "d1", "invoice paid", version=3))
    assert _ids(system, "payment", mode="lexical") == []
    [hit] = system.retrieve("invoice", ALICE, 0, Policy()).hits
    assert (hit.version, hit.text) == (3, "invoice paid")


def test_delete_keeps_the_version_record(factory: Any) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment held", version=4))
    assert system.ingest(Doc("globex", "d1", "payment held"))
    system.delete("acme", "d1")
    assert _ids(system, "payment") == []
    assert not system.ingest(Doc("acme", "d1", "payment again", version=4))
    assert system.ingest(Doc("acme", "d1", "payment again", version=5))
    assert _ids(system, "payment", Asker("carol", "globex")) == ["d1::1"]


def test_ids_joined_with_a_separator_are_other_documents(factory: Any) -> None:
    # Joined with "\x00", tenant "a" / doc "b\x00c" and tenant "a\x00b" / doc "c" read
    # alike: the second write took the first one's point and its version record.
    system = factory()
    victim, attacker = Asker("v", "a"), Asker("x", "a\x00b")
    assert system.ingest(Doc("a", "b\x00c", "payment held"))
    assert system.ingest(Doc("a\x00b", "c", "ledger wire", version=2))
    assert [h.text for h in system.retrieve("payment", victim, 0, Policy()).hits] == [
        "payment held"
    ]
    assert _ids(system, "ledger", attacker) == ["c::1"]
    assert _ids(system, "payment", attacker) == []
    assert system.ingest(Doc("a", "b\x00c", "payment again", version=2))
    assert not system.ingest(Doc("a\x00b", "c", "ledger older", version=1))
    assert _ids(system, "ledger", attacker) == ["c::1"]


def test_hybrid_is_rrf_with_ragwards_k(factory: Any) -> None:
    system = factory()
    assert system.ingest(Doc("acme", "d1", "payment held"))
    for rrf_k in (60.0, 0.5):  # the engine's fusion, and the adapter's for a fractional k
        [hit] = system.retrieve("payment", ALICE, 0, Policy(rrf_k=rrf_k)).hits
        assert math.isclose(hit.score, 2 / (rrf_k + 1), rel_tol=1e-6)


def test_collection_wide_idf_sees_other_tenants() -> None:
    """The edge engine's default IDF counts every tenant; scoped IDF counts the view."""
    scores = {}
    for factory in (qdrant.edge, qdrant.edge_scoped_idf):
        alone, crowded = factory(), factory()
        for system in (alone, crowded):
            assert system.ingest(Doc("acme", "d1", "payment held"))
            assert system.ingest(Doc("acme", "d2", "other words"))
        assert crowded.ingest(Doc("globex", "d1", "payment payment"))
        scores[factory.__name__] = [
            s.retrieve("payment", ALICE, 0, Policy(mode="lexical")).hits[0].score
            for s in (alone, crowded)
        ]
    assert scores["edge"][0] != scores["edge"][1]
    assert scores["edge_scoped_idf"][0] == scores["edge_scoped_idf"][1]


def test_term_weights_are_qdrants_bm25() -> None:
    """Hand-worked BM25 term part with Qdrant's defaults (k=1.2, b=0.75, avg_len=256)."""
    terms = ["payment", "ref-604", "held", "payment"]
    encoded = qdrant.Encoder().document(terms)
    assert encoded is not None
    length = len(terms)
    want = sorted(
        tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / 256)) for tf in Counter(terms).values()
    )
    assert sorted(encoded[1]) == pytest.approx(want, rel=1e-6)


# A case of DET-003's: written as one batch per document, these chunks scored differently
# in the last place from one collection to the next (Qdrant applies a batch in the order
# of a randomly seeded hash map, and the order decides the float32 BM25 sums).
_V2 = (
    "## Hold\r\nqxyrvwvw and  x9  (wire)\n\nqxyrvwvw WIRE  of,\nrelease  qxyrvwvw control\n"
    "release,  \n## Release\nqxyrvwvw merger,\r\n(release)    (東京)  qxyrvwvw the\tPAYMENT"
    "\n\nwire, qxyrvwvw held    \n## Intro\n  qxyrvwvw straße. control.\t(dual)\n\nnaïve    "
    "qxyrvwvw x9\t(held) and\r\nref-604\tqxyrvwvw wire,\n\n"
)
_D1 = (
    "\n## Hold\r\n## Release\n  qxuwicnh control \t x9,\ncafé, the wire\n\n## Release\r\n"
    "qxuwicnh control\n\nRELEASE \t (café)\nqxuwicnh straße\nQ3\tcontrol\n\nqxuwicnh release "
    "ledger\n\nledger,\nqxuwicnh Held PAYMENT 東京\n\n"
)


@pytest.mark.parametrize("make", [qdrant.edge, qdrant.edge_scoped_idf], ids=lambda f: f.__name__)
def test_edge_collections_built_alike_score_bit_for_bit_alike(make: Any) -> None:
    answers: Counter[tuple[tuple[str, str], ...]] = Counter()
    for _ in range(12):
        system = make()
        system.ingest(Doc("globex", "d1", _D1, "", "confidential", None, 4, 100))
        system.ingest(Doc("globex", "v2", _V2, "Q3 ledger", "internal", None, 4, 73))
        result = system.retrieve(_V2, Asker("u1", "globex", "confidential"), 110, Policy("lexical"))
        answers[tuple((h.chunk_id, h.score.hex()) for h in result.hits)] += 1
    assert len(answers) == 1, answers
