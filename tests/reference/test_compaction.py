"""A namespace that compacts its dead rows answers exactly as one that never had them."""

from __future__ import annotations

from ragward.reference import (
    AuthorizedRetriever,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    RetrievalResult,
)

QUERIES = ("ledger close", "variance reconciliation w7", "fx exposure hedge")


def _text(n: int, version: int) -> str:
    return f"## Part {n}\nledger close variance reconciliation w{n % 11} fx exposure v{version}"


def _answers(retriever: AuthorizedRetriever) -> list[RetrievalResult]:
    who = ReferenceAsker("u", "t", "restricted")
    return [
        retriever.retrieve(q, who, policy=ReferencePolicy(mode=mode, candidate_limit=40))
        for q in QUERIES
        for mode in ("hybrid", "lexical", "dense")
    ]


def test_compacted_namespace_matches_a_fresh_one() -> None:
    chunking = Chunking(max_tokens=200, overlap_tokens=0)
    churned = AuthorizedRetriever(chunking=chunking)
    for n in range(1500):
        churned.ingest(ReferenceDoc(f"d{n}", "t", "", _text(n, 1)))
    for n in range(1400):  # more than 1024 dead rows, and more dead than live: compaction
        churned.delete("t", f"d{n}")
    for n in range(1400, 1500):
        churned.ingest(ReferenceDoc(f"d{n}", "t", "", _text(n, 2), version=2))
    assert churned._namespaces["t"].live_rows == 100
    assert len(churned._namespaces["t"].chunks) < 1500  # the dead rows are gone

    fresh = AuthorizedRetriever(chunking=chunking)
    for n in range(1400, 1500):
        fresh.ingest(ReferenceDoc(f"d{n}", "t", "", _text(n, 2), version=2))
    assert _answers(churned) == _answers(fresh)
    # Tombstones survive compaction: a stale write is still refused.
    assert churned.version_of("t", "d3") == 1
    assert churned.version_of("t", "d1450") == 2


def test_delete_reports_whether_the_document_was_there() -> None:
    retriever = AuthorizedRetriever()
    retriever.ingest(ReferenceDoc("empty", "t", "", "   \n  "))  # no words, no chunks
    retriever.ingest(ReferenceDoc("full", "t", "", "ledger close"))
    assert retriever.delete("t", "empty") is True
    assert retriever.delete("t", "empty") is False
    assert retriever.delete("t", "full") is True
    assert retriever.delete("t", "full") is False
    assert retriever.delete("t", "never") is False
    assert retriever.delete("other-tenant", "full") is False
