"""Property tests of the reference retriever against SPEC sections 2.1 and 2.3.

The model used throughout is the SPEC's own definition: the eligible view ``E(P, t)`` is
the set of chunks of ``P.tenant`` whose classification is within ``P.max_classification``,
whose barrier is ``None`` or one ``P`` is inside, and which are fresh under
``policy.max_stale_ticks``. Every comparison of results is exact (``==`` on chunks and
float scores), never approximate.
"""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from ragward.errors import VersionConflict
from ragward.reference import (
    CLASSIFICATIONS,
    AuthorizedRetriever,
    Chunk,
    Chunking,
    Embedder,
    FirstStage,
    HashEmbedder,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    RetrievalResult,
    ScoredChunk,
    tokenize,
)

from .strategies import (
    DOC_IDS,
    TENANTS,
    Scenario,
    barrier_values,
    classifications,
    corpora,
    documents,
    floods,
    near_duplicates,
    now_ticks,
    policies,
    principals,
    queries,
    scenarios,
    texts,
    ticks,
)

Key = tuple[str, str]
Chunks = dict[Key, tuple[Chunk, ...]]

# -- the model ------------------------------------------------------------------------


def entitled(
    principal: ReferenceAsker, tenant: str, classification: str, barrier: str | None
) -> bool:
    """Tenant, clearance and barrier rules of ``E(P, t)`` (freshness aside)."""
    return (
        tenant == principal.tenant
        and CLASSIFICATIONS.index(classification)
        <= CLASSIFICATIONS.index(principal.max_classification)
        and (barrier is None or barrier in principal.barriers)
    )


def fresh(updated_tick: int, now_tick: int, policy: ReferencePolicy) -> bool:
    return policy.max_stale_ticks is None or now_tick - updated_tick <= policy.max_stale_ticks


def doc_in_view(
    document: ReferenceDoc, principal: ReferenceAsker, now_tick: int, policy: ReferencePolicy
) -> bool:
    return entitled(
        principal, document.tenant, document.classification, document.barrier
    ) and fresh(document.updated_tick, now_tick, policy)


def chunk_in_view(
    chunk: Chunk, principal: ReferenceAsker, now_tick: int, policy: ReferencePolicy
) -> bool:
    return entitled(principal, chunk.tenant, chunk.classification, chunk.barrier) and fresh(
        chunk.updated_tick, now_tick, policy
    )


@dataclass(frozen=True)
class Expected:
    """Brute-force audit counts and eligible matches of one request."""

    considered: int
    excluded_by_entitlement: int
    excluded_by_freshness: int
    lexical: frozenset[str]  # chunk ids of eligible chunks sharing a query term
    dense: frozenset[str]  # chunk ids of eligible chunks with a positive cosine


_HASH = HashEmbedder()


def _integer_vector(text: str) -> list[int]:
    vector = _HASH.embed([text])[0]
    integers = [int(x) for x in vector]
    assert integers == vector.tolist(), "the hashing embedder yields integer counts"
    return integers


def brute_force(
    chunks: Iterable[Chunk],
    principal: ReferenceAsker,
    query: str,
    now_tick: int,
    policy: ReferencePolicy,
) -> Expected:
    """SPEC 2.3 accounting by looping over the chunks of the principal's tenant.

    A chunk matches lexically when it shares a term of ``tokenize(query)``, densely when
    its cosine with the query is positive, i.e. when the exact integer dot product of the
    hashing embedder's raw vectors is positive. Each chunk is counted once.
    """
    terms = set(tokenize(query))
    query_vector = _integer_vector(query)
    considered = hidden = stale = 0
    lexical: set[str] = set()
    dense: set[str] = set()
    for chunk in chunks:
        if chunk.tenant != principal.tenant:
            continue
        lex = policy.mode != "dense" and bool(terms & set(tokenize(chunk.search_text)))
        vector = _integer_vector(chunk.search_text)
        den = (
            policy.mode != "lexical"
            and sum(a * b for a, b in zip(query_vector, vector, strict=True)) > 0
        )
        if not (lex or den):
            continue
        considered += 1
        if not entitled(principal, chunk.tenant, chunk.classification, chunk.barrier):
            hidden += 1
        elif not fresh(chunk.updated_tick, now_tick, policy):
            stale += 1
        else:
            if lex:
                lexical.add(chunk.chunk_id)
            if den:
                dense.add(chunk.chunk_id)
    return Expected(considered, hidden, stale, frozenset(lexical), frozenset(dense))


# -- helpers --------------------------------------------------------------------------


def build(
    documents: Iterable[ReferenceDoc],
    chunking: Chunking,
    embedder: Embedder | None = None,
) -> tuple[AuthorizedRetriever, Chunks]:
    """A retriever that ingested ``documents`` in order, and the chunks of each."""
    retriever = AuthorizedRetriever(chunking=chunking, embedder=embedder or HashEmbedder())
    chunks: Chunks = {}
    for document in documents:
        chunks[document.key] = retriever.ingest(document)
    return retriever, chunks


def all_chunks(chunks: Chunks) -> list[Chunk]:
    return [c for key in sorted(chunks) for c in chunks[key]]


def ask(retriever: AuthorizedRetriever, scenario: Scenario) -> RetrievalResult:
    """The scenario's request: its principal, query, time and policy."""
    return retriever.retrieve(
        scenario.query, scenario.principal, now_tick=scenario.now_tick, policy=scenario.policy
    )


def probe(
    retriever: AuthorizedRetriever,
    asked: Sequence[ReferenceAsker],
    questions: Sequence[str],
    now_tick: int,
    policy: ReferencePolicy,
) -> list[RetrievalResult]:
    """Answers to every (principal, query) pair, under ``policy`` and under a wide policy
    (no rerank, large limits) that shows everything the first stage finds."""
    wide = replace(policy, enable_rerank=False, candidate_limit=64, result_limit=64)
    return [
        retriever.retrieve(q, p, now_tick=now_tick, policy=pol)
        for p in asked
        for q in questions
        for pol in (policy, wide)
    ]


def first_stages(
    retriever: AuthorizedRetriever,
    asked: Sequence[ReferenceAsker],
    questions: Sequence[str],
    now_tick: int,
    policy: ReferencePolicy,
) -> list[FirstStage]:
    hybrid = replace(policy, mode="hybrid", candidate_limit=64)
    return [
        retriever.first_stage(q, p, now_tick=now_tick, policy=hybrid)
        for p in asked
        for q in questions
    ]


def interleave(
    data: st.DataObject, first: Sequence[ReferenceDoc], second: Sequence[ReferenceDoc]
) -> list[ReferenceDoc]:
    """Both lists merged in a drawn order, each keeping its own relative order."""
    merged: list[ReferenceDoc] = []
    i = j = 0
    while i < len(first) or j < len(second):
        if j == len(second) or (i < len(first) and data.draw(st.booleans())):
            merged.append(first[i])
            i += 1
        else:
            merged.append(second[j])
            j += 1
    return merged


def rank_key(scored: ScoredChunk) -> tuple[float, str]:
    return (-scored.score, scored.chunk.chunk_id)


def assert_ranked(ranking: Sequence[ScoredChunk]) -> None:
    """Strictly ordered by ``(-score, chunk_id)``: ties go to the smaller chunk id."""
    keys = [rank_key(s) for s in ranking]
    assert all(a < b for a, b in itertools.pairwise(keys)), keys


def assert_twins_tied(ranking: Sequence[ScoredChunk]) -> None:
    """Chunks with identical indexed text (title, heading, text) carry identical scores."""
    by_text: dict[str, float] = {}
    for scored in ranking:
        score = by_text.setdefault(scored.chunk.search_text, scored.score)
        assert scored.score == score, (scored.chunk.chunk_id, scored.score, score)


# -- 1. non-interference --------------------------------------------------------------


def _split_view(scenario: Scenario) -> tuple[list[ReferenceDoc], list[ReferenceDoc]]:
    principal, now, policy = scenario.principal, scenario.now_tick, scenario.policy
    view = [d for d in scenario.corpus if doc_in_view(d, principal, now, policy)]
    rest = [d for d in scenario.corpus if not doc_in_view(d, principal, now, policy)]
    return view, rest


@given(scenario=scenarios(), data=st.data())
def test_non_interference_of_results_and_counts(scenario: Scenario, data: st.DataObject) -> None:
    """SPEC 2.3 non-interference: the ranked result (ids, order and scores, exactly) and the
    eligible part of the counts depend on E(P, t) alone. Adding other tenants' documents
    (same doc_ids), higher classifications, barriers P is outside of, stale documents and a
    flood of restricted copies of the query changes nothing P receives."""
    view, rest = _split_view(scenario)
    noise = rest + data.draw(floods(scenario))
    alone, _ = build(view, scenario.chunking)
    crowded, _ = build(interleave(data, view, noise), scenario.chunking)

    expected, got = ask(alone, scenario), ask(crowded, scenario)
    assert got.chunks == expected.chunks
    assert got.degraded == expected.degraded
    assert (expected.excluded_by_entitlement, expected.excluded_by_freshness) == (0, 0)
    assert got.eligible_matches == expected.considered


@given(scenario=scenarios(), data=st.data())
def test_non_interference_of_bm25_and_cosine_scores(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.3 statistics: BM25's N, avgdl and document frequencies are taken over E(P, t),
    so every first-stage score (lexical and dense), and the result of mode="lexical" without
    rerank (whose scores are BM25 scores), are exactly those of a namespace holding E(P, t)
    only."""
    view, rest = _split_view(scenario)
    noise = rest + data.draw(floods(scenario))
    alone, _ = build(view, scenario.chunking)
    crowded, _ = build(interleave(data, view, noise), scenario.chunking)
    asked, now, policy = [scenario.principal], scenario.now_tick, scenario.policy
    questions = [scenario.query, *(d.text for d in view[:2])]
    for a, b in zip(
        first_stages(alone, asked, questions, now, policy),
        first_stages(crowded, asked, questions, now, policy),
        strict=True,
    ):
        assert b.lexical == a.lexical
        assert b.dense == a.dense
    lexical = replace(policy, mode="lexical", enable_rerank=False)
    for expected, got in zip(
        probe(alone, asked, questions, now, lexical),
        probe(crowded, asked, questions, now, lexical),
        strict=True,
    ):
        assert got.chunks == expected.chunks
        assert got.eligible_matches == expected.considered


# -- 2. accounting --------------------------------------------------------------------


@given(scenario=scenarios(), data=st.data())
def test_accounting_matches_brute_force(scenario: Scenario, data: st.DataObject) -> None:
    """SPEC 2.3 accounting: considered = distinct matching chunks of the tenant (a query term
    shared, or cosine > 0, in the indexes the mode searches), excluded_by_entitlement = those
    not visible, excluded_by_freshness = visible but stale, each chunk counted once, and
    considered = eligible matches + both exclusions. The first stage holds the best
    min(candidate_limit, eligible matches) of each index; with rerank off the result has
    as many chunks as the candidates allow."""
    corpus = [*scenario.corpus, *data.draw(floods(scenario, max_size=10))]
    retriever, chunks = build(corpus, scenario.chunking)
    principal, now, policy = scenario.principal, scenario.now_tick, scenario.policy
    result = ask(retriever, scenario)
    first = retriever.first_stage(scenario.query, principal, now_tick=now, policy=policy)
    expected = brute_force(all_chunks(chunks), principal, scenario.query, now, policy)

    counts = (result.considered, result.excluded_by_entitlement, result.excluded_by_freshness)
    assert counts == (
        expected.considered,
        expected.excluded_by_entitlement,
        expected.excluded_by_freshness,
    )
    assert (first.considered, first.excluded_by_entitlement, first.excluded_by_freshness) == counts
    eligible = expected.lexical | expected.dense
    assert result.eligible_matches == len(eligible)

    limit = policy.candidate_limit
    for ranking, matches in ((first.lexical, expected.lexical), (first.dense, expected.dense)):
        assert {s.chunk.chunk_id for s in ranking} <= matches
        assert len(ranking) == min(limit, len(matches))
        assert_ranked(ranking)
    returned = [s.chunk.chunk_id for s in result.chunks]
    assert set(returned) <= eligible
    assert_ranked(result.chunks)
    if not policy.enable_rerank:
        candidates = {s.chunk.chunk_id for s in (*first.lexical, *first.dense)}
        assert len(returned) == min(policy.result_limit, limit, len(candidates))


# -- 3. lifecycle ---------------------------------------------------------------------


def _reader_of(document: ReferenceDoc) -> ReferenceAsker:
    """A principal of the document's tenant who can see exactly that classification."""
    barriers = () if document.barrier is None else (document.barrier,)
    return ReferenceAsker("reader", document.tenant, document.classification, barriers)


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_upsert_replaces_every_chunk_of_the_previous_version(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1 upsert by (tenant, doc_id): a newer version replaces every chunk of the old
    one; no chunk of the old version is ever returned or counted afterwards, a reclassified
    document is never served under its old classification or barrier, other tenants sharing
    the doc_id are untouched, and the retriever answers exactly as one that only ever saw
    the new version."""
    corpus = list(scenario.corpus)
    index = data.draw(st.integers(min_value=0, max_value=len(corpus) - 1))
    old = corpus[index]
    new = replace(
        old,
        version=old.version + data.draw(st.integers(min_value=1, max_value=3)),
        text=data.draw(st.one_of(st.just(old.text), near_duplicates(old.text), texts())),
        classification=data.draw(classifications()),
        barrier=data.draw(barrier_values()),
        updated_tick=data.draw(ticks()),
    )
    retriever, _ = build(corpus, scenario.chunking)
    new_chunks = retriever.ingest(new)
    replaced = [*corpus[:index], new, *corpus[index + 1 :]]
    reference, _ = build(replaced, scenario.chunking)

    asked = [
        scenario.principal,
        _reader_of(old),
        *data.draw(st.lists(principals((old.tenant, *TENANTS)), max_size=2)),
    ]
    questions = [scenario.query, old.text, new.text]
    now, policy = scenario.now_tick, scenario.policy
    for principal in asked:
        got = probe(retriever, [principal], questions, now, policy)
        for scored in (s for result in got for s in result.chunks):
            chunk = scored.chunk
            assert chunk_in_view(chunk, principal, now, policy)
            if (chunk.tenant, chunk.doc_id) == new.key:
                assert chunk in new_chunks
                assert chunk.doc_version == new.version
        assert got == probe(reference, [principal], questions, now, policy)
    assert retriever.version_of(*new.key) == new.version


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_same_or_older_version_is_refused_and_changes_nothing(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1: re-ingesting the same or an older version of (tenant, doc_id) raises
    VersionConflict (an out-of-order write never overwrites newer data) and changes nothing:
    every answer is identical before and after."""
    corpus = list(scenario.corpus)
    old = data.draw(st.sampled_from(corpus))
    stale = replace(
        old,
        version=data.draw(st.integers(min_value=1, max_value=old.version)),
        text=data.draw(st.one_of(texts(), st.just(old.text))),
        classification=data.draw(classifications()),
        barrier=data.draw(barrier_values()),
        updated_tick=data.draw(ticks()),
    )
    retriever, _ = build(corpus, scenario.chunking)
    asked = [scenario.principal, _reader_of(old), _reader_of(stale)]
    questions = [scenario.query, old.text, stale.text]
    now, policy = scenario.now_tick, scenario.policy
    before = probe(retriever, asked, questions, now, policy)
    with pytest.raises(VersionConflict):
        retriever.ingest(stale)
    assert probe(retriever, asked, questions, now, policy) == before
    assert retriever.version_of(*old.key) == old.version


def _with_twin(corpus: list[ReferenceDoc], target: ReferenceDoc, tenant: str) -> list[ReferenceDoc]:
    """``corpus`` plus a copy of ``target`` in ``tenant`` under the same doc_id, if free."""
    if any(d.key == (tenant, target.doc_id) for d in corpus):
        return corpus
    return [*corpus, replace(target, tenant=tenant)]


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_delete_removes_document_from_results_counts_and_statistics(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1 delete(tenant, doc_id): afterwards none of the document's chunks is
    retrievable, counted, or present in any statistic (answers, counts and BM25/cosine
    scores equal those of a retriever that never saw it); another tenant using the same
    doc_id is unaffected; and the deleted version stays as a tombstone, so a re-ingest
    needs a newer version (the reference's documented rule)."""
    target = data.draw(st.sampled_from(scenario.corpus))
    other = data.draw(st.sampled_from([t for t in TENANTS if t != target.tenant]))
    corpus = _with_twin(list(scenario.corpus), target, other)
    retriever, chunks = build(corpus, scenario.chunking)
    remaining = [d for d in corpus if d.key != target.key]
    reference, _ = build(remaining, scenario.chunking)

    asked = [
        scenario.principal,
        _reader_of(target),
        ReferenceAsker("admin", target.tenant, "restricted", ("hr", "litigation", "ma-deal")),
    ]
    neighbours = [ReferenceAsker("n", other, "restricted", ("hr", "litigation", "ma-deal"))]
    questions = [scenario.query, target.text]
    now, policy = scenario.now_tick, scenario.policy
    neighbours_before = probe(retriever, neighbours, questions, now, policy)

    removed = retriever.delete(*target.key)
    if chunks[target.key]:
        assert removed
    assert not retriever.delete(*target.key)
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )
    assert first_stages(retriever, asked, questions, now, policy) == first_stages(
        reference, asked, questions, now, policy
    )
    assert probe(retriever, neighbours, questions, now, policy) == neighbours_before

    # Re-ingest: the tombstone refuses the deleted version and older ones.
    assert retriever.version_of(*target.key) == target.version
    with pytest.raises(VersionConflict):
        retriever.ingest(
            replace(target, version=data.draw(st.integers(min_value=1, max_value=target.version)))
        )
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )
    revived = replace(target, version=target.version + 1)
    retriever.ingest(revived)
    reference.ingest(revived)
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )


@given(scenario=scenarios(), data=st.data())
def test_compaction_after_churn_answers_as_a_fresh_retriever(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1 lifecycle through compaction: after a large document (over a thousand
    one-word chunks) is replaced by a small version or deleted, so that dead rows outnumber
    live ones and the namespace compacts, answers, counts and first-stage scores equal
    those of a retriever that only saw the surviving documents, and the old version is
    still refused."""
    chunking = Chunking(max_tokens=1, overlap_tokens=0)
    tenant = scenario.principal.tenant
    words = [d.text for d in scenario.corpus] or ["ledger wire"]
    big_text = "\n".join(f"{words[i % len(words)]} ledger wire w{i}" for i in range(350))
    big = ReferenceDoc("big", tenant, "", big_text, classification=data.draw(classifications()))
    retriever, chunks = build([*scenario.corpus, big], chunking)
    assert len(chunks[big.key]) > 1024
    delete = data.draw(st.booleans())
    if delete:
        retriever.delete(*big.key)
        survivors = list(scenario.corpus)
    else:
        small = replace(big, version=2, text=data.draw(texts()))
        retriever.ingest(small)
        survivors = [*scenario.corpus, small]
    # Tombstones survive compaction: the deleted or replaced version is still refused.
    assert retriever.version_of(*big.key) == (1 if delete else 2)
    with pytest.raises(VersionConflict):
        retriever.ingest(big)
    reference, _ = build(survivors, chunking)
    asked = [scenario.principal, _reader_of(big)]
    questions = [scenario.query, "w7 w1100", *words[:1]]
    now, policy = scenario.now_tick, scenario.policy
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )
    assert first_stages(retriever, asked, questions, now, policy) == first_stages(
        reference, asked, questions, now, policy
    )


class FaultyEmbedder:
    """The hashing embedder, except that a batch holding the word ``poison`` gets a
    malformed answer (a NaN, a missing row, a wrong width) or an exception."""

    name = "faulty-hash-96"
    dimensions = 96

    def __init__(self, fault: str) -> None:
        self._inner = HashEmbedder(self.dimensions)
        self._fault = fault

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        vectors = self._inner.embed(texts)
        if not any("poison" in tokenize(t) for t in texts):
            return vectors
        if self._fault == "raise":
            raise RuntimeError("embedder unavailable")
        if self._fault == "nan":
            vectors[-1, 0] = float("nan")
            return vectors
        if self._fault == "missing-row":
            return vectors[:-1]
        return vectors[:, :-1]  # "wrong-width"


@given(
    corpus=corpora(min_size=1, max_size=3),
    data=st.data(),
    tick=st.one_of(
        st.integers(min_value=0, max_value=200),
        st.sampled_from((2**31, 2**63 - 2, 2**63 - 1, 2**63, 2**64, 10**30)),
    ),
    fault=st.sampled_from(("none", "none", "raise", "nan", "missing-row", "wrong-width")),
    max_stale_ticks=st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
    now_tick=st.sampled_from((0, 100, 2**63 - 1, -(2**63), 2**64)),
)
def test_ingest_is_atomic_for_any_document(
    corpus: list[ReferenceDoc],
    data: st.DataObject,
    tick: int,
    fault: str,
    max_stale_ticks: int | None,
    now_tick: int,
) -> None:
    """SPEC 2.1: an upsert replaces the old version atomically. A document either fails
    validation up front (a ValueError naming the field and the bad value), or its ingest
    succeeds (and the retriever then answers exactly as one that only saw the new version),
    or the ingest fails (here: an embedder that raises or answers malformed vectors) and
    changes nothing. Extreme ticks, at ingest and at query time, never break a retrieval."""
    index = data.draw(st.integers(min_value=0, max_value=len(corpus) - 1))
    old = corpus[index]
    text = data.draw(texts()) + (" poison" if fault != "none" else "")
    try:
        new = replace(old, version=old.version + 1, updated_tick=tick, text=text)
    except ValueError as error:
        refused = str(error)
        assert "updated_tick" in refused, refused
        assert str(tick) in refused, refused
        return
    chunking = Chunking()
    embedder = FaultyEmbedder(fault)
    retriever, _ = build(corpus, chunking, embedder)
    asked = [_reader_of(old), _reader_of(new)]
    questions = [old.text, new.text]
    policy = ReferencePolicy(max_stale_ticks=max_stale_ticks)
    before = probe(retriever, asked, questions, now_tick, policy)
    try:
        retriever.ingest(new)
    except Exception:
        # A retrieval that raises is a changed answer too: report it as one.
        try:
            after: list[RetrievalResult] | str = probe(
                retriever, asked, questions, now_tick, policy
            )
        except Exception as error:
            after = f"retrieve raised {error!r}"
        assert (retriever.version_of(*old.key), after) == (old.version, before)
    else:
        assert fault == "none", "a malformed embedding was accepted"
        reference, _ = build([*corpus[:index], new, *corpus[index + 1 :]], chunking, embedder)
        assert probe(retriever, asked, questions, now_tick, policy) == probe(
            reference, asked, questions, now_tick, policy
        )


# -- 4. determinism -------------------------------------------------------------------


@given(scenario=scenarios(), data=st.data())
def test_results_independent_of_ingestion_order_and_repeatable(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.3 determinism: results (ids, order, scores exactly, counts) do not depend on
    the order documents were ingested in, and repeating a call gives the same answer."""
    corpus = [*scenario.corpus, *data.draw(floods(scenario, max_size=6))]
    shuffled = data.draw(st.permutations(corpus))
    first, _ = build(corpus, scenario.chunking)
    second, _ = build(shuffled, scenario.chunking)
    asked = [scenario.principal, *data.draw(st.lists(principals(), max_size=2))]
    questions = [scenario.query, data.draw(queries(corpus))]
    now, policy = scenario.now_tick, scenario.policy
    answers = probe(first, asked, questions, now, policy)
    assert probe(second, asked, questions, now, policy) == answers
    assert first_stages(second, asked, questions, now, policy) == first_stages(
        first, asked, questions, now, policy
    )
    assert probe(first, asked, questions, now, policy) == answers


_HASH_SEED_SCRIPT = r"""
from ragward.reference import (
    MODES, AuthorizedRetriever, Chunking, ReferenceDoc, ReferenceAsker, ReferencePolicy,
)

texts = [
    "## Hold\nPayment TRF-3318 is held\tfor  screening.\n\n## Release\nDual control release.",
    "Ledger   wire\n\nsanction review of the merger, q3 and x9",
    "## Hold\nPayment TRF-3318 is held\tfor  screening.\n\n## Release\nDual control release.",
    "payment held payment held café naïve ledger",
]
retriever = AuthorizedRetriever(chunking=Chunking(max_tokens=8, overlap_tokens=2))
levels = ("public", "internal", "confidential", "restricted")
for i, text in enumerate(texts):
    for tenant in ("acme", "globex"):
        retriever.ingest(ReferenceDoc(
            f"d{i % 3}" if tenant == "acme" else f"x{i}", tenant, "", text,
            classification=levels[i % 4], barrier=("hr" if i == 3 else None),
            version=1 + i, updated_tick=10 * i,
        ))
askers = [
    ReferenceAsker("u", "acme", "restricted", ("hr",)),
    ReferenceAsker("v", "acme", "internal"),
    ReferenceAsker("w", "globex", "confidential", ("hr", "ma-deal")),
]
out = []
for principal in askers:
    for query in ("payment held screening", "ledger wire q3", "dual control release café"):
        for mode in MODES:
            for rerank in (True, False):
                policy = ReferencePolicy(
                    mode=mode, enable_rerank=rerank, candidate_limit=6, result_limit=4,
                    max_stale_ticks=25,
                )
                out.append(retriever.retrieve(query, principal, now_tick=30, policy=policy))
print(repr(out))
"""


@pytest.mark.slow
def test_identical_output_under_different_hash_seeds() -> None:
    """SPEC 2.3 determinism: results do not depend on the process or its hash seed; three
    processes with different PYTHONHASHSEED values print byte-identical answers."""
    outputs = []
    for seed in ("0", "1", "4242"):
        completed = subprocess.run(
            [sys.executable, "-c", _HASH_SEED_SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert completed.returncode == 0, completed.stderr
        outputs.append(completed.stdout)
    assert "chunk_id=" in outputs[0]
    assert outputs[1] == outputs[0]
    assert outputs[2] == outputs[0]


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_identical_texts_get_identical_scores(scenario: Scenario, data: st.DataObject) -> None:
    """SPEC 2.3 determinism: chunks with identical text get identical scores in mode lexical,
    in mode dense and after rerank, and the smaller chunk_id comes first; a first-stage
    ranking that cuts between two identical chunks keeps the one with the smaller id."""
    corpus = list(scenario.corpus)
    copies = data.draw(
        st.lists(st.sampled_from(corpus), min_size=1, max_size=4, unique_by=lambda d: d.key)
    )
    for n, source in enumerate(copies):
        twin = replace(source, doc_id=data.draw(st.sampled_from((f"{source.doc_id}-{n}", f"z{n}"))))
        if all(d.key != twin.key for d in corpus):
            corpus.append(twin)
    retriever, chunks = build(corpus, scenario.chunking)
    principal, now = scenario.principal, scenario.now_tick
    eligible = [c for c in all_chunks(chunks) if chunk_in_view(c, principal, now, scenario.policy)]
    questions = [scenario.query, data.draw(st.sampled_from(corpus)).text]
    for mode, rerank in (("lexical", False), ("dense", False), (scenario.policy.mode, True)):
        policy = replace(scenario.policy, mode=mode, enable_rerank=rerank)
        for query in questions:
            result = retriever.retrieve(query, principal, now_tick=now, policy=policy)
            assert_ranked(result.chunks)
            assert_twins_tied(result.chunks)
            first = retriever.first_stage(query, principal, now_tick=now, policy=policy)
            for ranking in (first.lexical, first.dense):
                assert_ranked(ranking)
                assert_twins_tied(ranking)
                scores = {s.chunk.search_text: s.score for s in ranking}
                kept = {s.chunk.chunk_id for s in ranking}
                for chunk in eligible:
                    if chunk.search_text in scores and chunk.chunk_id not in kept:
                        # A left-out twin must rank after the last kept chunk.
                        assert len(ranking) == policy.candidate_limit
                        assert (-scores[chunk.search_text], chunk.chunk_id) > rank_key(ranking[-1])


class MixedHashEmbedder:
    """Hashing counts mixed through a fixed Gaussian matrix: dense float vectors (as a real
    model's are) whose dot products round, so a summation order that depends on a row's
    position would show. Each vector is built by elementwise operations only, so a text's
    vector never depends on its position in a batch."""

    name = "mixed-hash-96"
    dimensions = 96

    def __init__(self) -> None:
        self._inner = HashEmbedder(self.dimensions)
        self._mix = np.random.default_rng(7).standard_normal((self.dimensions, self.dimensions))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        counts = self._inner.embed(texts)
        out = np.zeros((len(texts), self.dimensions))
        for row in range(len(texts)):
            for bucket in np.flatnonzero(counts[row]):
                out[row] += counts[row, bucket] * self._mix[bucket]
        return out


_TWIN_TEXT = "Netting exposure, settlement netting  of W7\nhold hold"
_TWIN_QUERIES = (
    "netting exposure hold release w7",
    "settlement netting",
    "hold W7 exposure of",
    "exposure settlement hold hold",
    "netting hold",
    "w7 settlement release",
)
_ROWS = 5_203  # not a multiple of 2, 4 or 8: vectorised kernels have a tail
_TWIN_ROWS = frozenset({0, 1, 2, 3, 4095, 4096, 4097, 4100, 5000, _ROWS - 2, _ROWS - 1})


@functools.cache
def _large_namespace(embedder_name: str) -> AuthorizedRetriever:
    """One tenant with 5203 single-chunk rows; the twins sit at rows ``_TWIN_ROWS`` (both
    sides of the scoring block boundary) and every other row shares neither a term nor a
    hash bucket with the query (so with the hashing embedder only twins match). Doc ids
    run backwards, so chunk-id order != row order."""
    embedder: Embedder = MixedHashEmbedder() if embedder_name == "mixed" else HashEmbedder()
    taken = set(np.flatnonzero(HashEmbedder().embed([" ".join((*_TWIN_QUERIES, _TWIN_TEXT))])[0]))
    filler = [
        f"f{n}"
        for n in range(4000)
        if not set(np.flatnonzero(HashEmbedder().embed([f"f{n}"])[0])) & taken
    ][:60]
    retriever = AuthorizedRetriever(embedder=embedder)
    for row in range(_ROWS):
        text = (
            _TWIN_TEXT
            if row in _TWIN_ROWS
            else " ".join(filler[(row * k) % len(filler)] for k in (1, 3, 7))
        )
        retriever.ingest(ReferenceDoc(f"r{_ROWS - row:05d}", "t", "", text))
    return retriever


@pytest.mark.parametrize("embedder_name", ["hash", "mixed"])
def test_identical_chunks_score_identically_at_any_row(embedder_name: str) -> None:
    """SPEC 2.3 determinism: identical chunks produce identical scores wherever their rows
    sit in a namespace of more than 5000 rows (row position never changes a dense or a
    lexical score), and ties break by chunk_id, not by row: the twins come out adjacent,
    with one score, in chunk-id order."""
    retriever = _large_namespace(embedder_name)
    principal = ReferenceAsker("u", "t")
    for query, (mode, rerank) in itertools.product(
        _TWIN_QUERIES, (("dense", False), ("lexical", False), ("hybrid", True))
    ):
        # Limits as large as the namespace: with the mixed embedder every row has a cosine.
        policy = ReferencePolicy(
            mode=mode, enable_rerank=rerank, candidate_limit=_ROWS, result_limit=_ROWS
        )
        result = retriever.retrieve(query, principal, policy=policy)
        texts = [s.chunk.text for s in result.chunks]
        assert texts.count(_TWIN_TEXT) == len(_TWIN_ROWS), (query, mode, texts)
        start = texts.index(_TWIN_TEXT)
        twins = result.chunks[start : start + len(_TWIN_ROWS)]
        assert {s.chunk.text for s in twins} == {_TWIN_TEXT}
        assert len({s.score for s in twins}) == 1, (query, mode, [s.score for s in twins])
        ids = [s.chunk.chunk_id for s in twins]
        assert ids == sorted(ids)
        if embedder_name == "hash" or mode != "dense":
            assert len(result.chunks) == len(_TWIN_ROWS)


# -- 5. stateful ----------------------------------------------------------------------

_MACHINE_TENANTS = TENANTS[:2]
_MACHINE_KEYS = st.tuples(st.sampled_from(_MACHINE_TENANTS), st.sampled_from(DOC_IDS[:3]))
_MACHINE_CHUNKING = Chunking(max_tokens=8, overlap_tokens=2)


@settings(stateful_step_count=25)
class RetrieverLifecycle(RuleBasedStateMachine):
    """Random ingest / re-version / reclassify / refused write / delete / retrieve by many
    principals, against a dict model of the live documents (SPEC 2.1 and 2.3).

    After every retrieve: no returned chunk lies outside the asker's eligible view or
    belongs to a superseded or deleted version, the counts equal the model's brute-force
    counts, and the whole answer equals that of a retriever freshly built from the live
    documents. After every step: each key's version is the newest ever written."""

    def __init__(self) -> None:
        super().__init__()
        self.retriever = AuthorizedRetriever(chunking=_MACHINE_CHUNKING)
        self.live: dict[Key, ReferenceDoc] = {}
        self.chunks: Chunks = {}
        self.versions: dict[Key, int] = {}

    def _accept(self, document: ReferenceDoc) -> None:
        self.chunks[document.key] = self.retriever.ingest(document)
        self.live[document.key] = document
        self.versions[document.key] = document.version

    @initialize(data=st.data(), keys=st.lists(_MACHINE_KEYS, unique=True, min_size=2, max_size=5))
    def seed(self, data: st.DataObject, keys: list[Key]) -> None:
        """Start from a few documents, so that early retrieves have something to find."""
        for tenant, doc_id in keys:
            self._accept(data.draw(documents(tenant, doc_id)))

    @rule(
        key=_MACHINE_KEYS,
        text=texts(max_words=8),
        classification=classifications(),
        barrier=barrier_values(),
        tick=ticks(),
        bump=st.integers(min_value=1, max_value=2),
    )
    def ingest(
        self, key: Key, text: str, classification: str, barrier: str | None, tick: int, bump: int
    ) -> None:
        """A new document, or a new version (new text and metadata) of an existing one."""
        tenant, doc_id = key
        version = self.versions.get(key, 0) + bump
        self._accept(ReferenceDoc(doc_id, tenant, "", text, classification, barrier, version, tick))

    @precondition(lambda self: bool(self.live))
    @rule(data=st.data(), classification=classifications(), barrier=barrier_values())
    def reclassify(self, data: st.DataObject, classification: str, barrier: str | None) -> None:
        """Same text, newer version, new classification and barrier."""
        old = self.live[data.draw(st.sampled_from(sorted(self.live)))]
        version = self.versions[old.key] + 1
        self._accept(replace(old, version=version, classification=classification, barrier=barrier))

    @precondition(lambda self: bool(self.versions))
    @rule(data=st.data(), text=texts(max_words=8), classification=classifications())
    def refused_write(self, data: st.DataObject, text: str, classification: str) -> None:
        """Same or older version (of a live or a deleted document): refused."""
        tenant, doc_id = data.draw(st.sampled_from(sorted(self.versions)))
        version = data.draw(st.integers(min_value=1, max_value=self.versions[tenant, doc_id]))
        with pytest.raises(VersionConflict):
            self.retriever.ingest(
                ReferenceDoc(doc_id, tenant, "", text, classification, None, version)
            )

    @rule(key=_MACHINE_KEYS)
    def delete(self, key: Key) -> None:
        removed = self.retriever.delete(*key)
        if key not in self.live:
            assert not removed
        elif self.chunks[key]:
            assert removed
        self.live.pop(key, None)
        self.chunks.pop(key, None)

    @rule(
        principal=principals(_MACHINE_TENANTS),
        data=st.data(),
        policy=policies(),
        now=now_ticks(),
    )
    def retrieve(
        self, principal: ReferenceAsker, data: st.DataObject, policy: ReferencePolicy, now: int
    ) -> None:
        own = [d for key, d in sorted(self.live.items()) if key[0] == principal.tenant]
        query = data.draw(queries(own))
        result = self.retriever.retrieve(query, principal, now_tick=now, policy=policy)
        wide = replace(policy, enable_rerank=False, candidate_limit=64, result_limit=64)
        everything = self.retriever.retrieve(query, principal, now_tick=now, policy=wide)
        live = {
            c.chunk_id: c
            for key, cs in self.chunks.items()
            if key[0] == principal.tenant
            for c in cs
        }
        for scored in (*result.chunks, *everything.chunks):
            assert live.get(scored.chunk.chunk_id) == scored.chunk, "superseded or deleted"
            assert chunk_in_view(scored.chunk, principal, now, policy), "outside E(P, t)"
        expected = brute_force(live.values(), principal, query, now, policy)
        assert (
            result.considered,
            result.excluded_by_entitlement,
            result.excluded_by_freshness,
            result.eligible_matches,
        ) == (
            expected.considered,
            expected.excluded_by_entitlement,
            expected.excluded_by_freshness,
            len(expected.lexical | expected.dense),
        )
        fresh_retriever, _ = build(
            sorted(self.live.values(), key=lambda d: d.key), _MACHINE_CHUNKING
        )
        assert result == fresh_retriever.retrieve(query, principal, now_tick=now, policy=policy)

    @invariant()
    def versions_are_the_newest_written(self) -> None:
        for (tenant, doc_id), version in self.versions.items():
            assert self.retriever.version_of(tenant, doc_id) == version


TestRetrieverLifecycle = RetrieverLifecycle.TestCase
