"""Per-view caches of the reference: a view is what an asker may read between two writes.

Statistics cached for a view (N, avgdl, each term's df and share of the score) must be
exactly what a fresh computation gives, and a write must make them go.
"""

from __future__ import annotations

import numpy as np

from ragward.reference import AuthorizedRetriever, ReferenceAsker, ReferenceDoc, ReferencePolicy

LEXICAL = ReferencePolicy(mode="lexical", candidate_limit=50, result_limit=50)


def _scores(
    retriever: AuthorizedRetriever, query: str, principal: ReferenceAsker
) -> dict[str, float]:
    found = retriever.retrieve(query, principal, policy=LEXICAL).chunks
    return {s.chunk.chunk_id: s.score for s in found}


def _retriever(docs: int) -> AuthorizedRetriever:
    retriever = AuthorizedRetriever()
    for i in range(docs):
        words = " ".join(["ledger"] * (1 + i % 3) + ["wire"] * (i % 2) + [f"w{i}"])
        retriever.ingest(ReferenceDoc(f"d{i}", "t", "", words))
    return retriever


def test_cached_scores_equal_a_fresh_computation() -> None:
    principal = ReferenceAsker("u", "t")
    warm = _retriever(40)
    first = _scores(warm, "ledger wire", principal)
    again = _scores(warm, "ledger wire", principal)  # from the view's cache
    assert first == again
    assert first == _scores(_retriever(40), "ledger wire", principal)


def test_a_delete_drops_the_cached_statistics() -> None:
    principal = ReferenceAsker("u", "t")
    retriever = _retriever(40)
    before = _scores(retriever, "ledger wire", principal)
    for i in range(0, 40, 2):
        assert retriever.delete("t", f"d{i}")
    after = _scores(retriever, "ledger wire", principal)
    fresh = _retriever(40)
    for i in range(0, 40, 2):
        fresh.delete("t", f"d{i}")
    assert after == _scores(fresh, "ledger wire", principal)
    assert after != {k: v for k, v in before.items() if k in after}


def test_an_upsert_drops_the_cached_statistics() -> None:
    principal = ReferenceAsker("u", "t")
    retriever = _retriever(10)
    _scores(retriever, "ledger", principal)
    retriever.ingest(ReferenceDoc("extra", "t", "", "ledger " * 30))
    fresh = _retriever(10)
    fresh.ingest(ReferenceDoc("extra", "t", "", "ledger " * 30))
    assert _scores(retriever, "ledger", principal) == _scores(fresh, "ledger", principal)


def test_views_of_different_askers_are_kept_apart() -> None:
    retriever = AuthorizedRetriever()
    retriever.ingest(ReferenceDoc("open", "t", "", "ledger wire ledger"))
    retriever.ingest(ReferenceDoc("secret", "t", "", "ledger", "restricted"))
    low, high = ReferenceAsker("low", "t"), ReferenceAsker("high", "t", "restricted")
    assert set(_scores(retriever, "ledger", low)) == {"open::1"}
    assert set(_scores(retriever, "ledger", high)) == {"open::1", "secret::1"}
    # The low asker's statistics were not changed by the high asker's view (N = 1).
    assert _scores(retriever, "ledger", low) == _scores(_only_open(), "ledger", low)


def _only_open() -> AuthorizedRetriever:
    retriever = AuthorizedRetriever()
    retriever.ingest(ReferenceDoc("open", "t", "", "ledger wire ledger"))
    return retriever


def test_cached_views_stay_within_their_budget() -> None:
    retriever = _retriever(300)
    namespace = retriever._namespaces["t"]
    lexical = namespace.lexical
    for clearance in ("public", "internal", "confidential", "restricted"):
        for i in range(300):
            _scores(retriever, f"ledger w{i}", ReferenceAsker("u", "t", clearance))
    assert 0 < lexical.cached_bytes <= lexical.budget
    cached = sum(len(view.memo["terms"]) for view in namespace._views.values())
    assert cached < 4 * 302  # the budget was reached: some terms are scored afresh
    retriever.delete("t", "d0")
    assert lexical.cached_bytes == 0
    assert np.count_nonzero(namespace.live()) == 299
