"""The model the reference's property tests compare against, and their helpers.

The eligible view ``E(P, t)`` is the SPEC's own definition: the chunks of ``P.tenant`` whose
classification is within ``P.max_classification``, whose barrier is ``None`` or one ``P`` is
inside, and which are fresh under ``policy.max_stale_ticks``; :func:`brute_force` counts a
request's matches by looping over every chunk.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st

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

from .strategies import Scenario

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
