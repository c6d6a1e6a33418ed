"""Property tests of the reference retriever against SPEC sections 2.1 and 2.3:
non-interference, accounting and determinism.

The model (:mod:`tests.reference.retrieval_model`) is the SPEC's own definition of the
eligible view ``E(P, t)``. Every comparison of results is exact (``==`` on chunks and
float scores), never approximate. The lifecycle properties are
``test_retrieval_lifecycle.py``, the stateful machine ``test_retrieval_stateful.py``.
"""

from __future__ import annotations

import functools
import itertools
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.reference import (
    AuthorizedRetriever,
    Embedder,
    HashEmbedder,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
)

from .retrieval_model import (
    all_chunks,
    ask,
    assert_ranked,
    assert_twins_tied,
    brute_force,
    build,
    chunk_in_view,
    doc_in_view,
    first_stages,
    interleave,
    probe,
    rank_key,
)
from .strategies import Scenario, floods, principals, queries, scenarios

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
