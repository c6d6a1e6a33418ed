"""The plain per-chunk loop is an independent oracle for the reference retriever.

:class:`ragward.bench.plainloop.PlainLoopRetriever` computes SPEC §2.3 with Python loops
and no index; on the same operations both must return the same chunks in the same order,
scores equal within 1e-9 relative, the same ``degraded`` record and the same audit counts.
Also: the benchmark's corpus generator is deterministic, and ``run_latency`` runs end to
end on a tiny corpus.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.bench.corpus import generate_corpus, generate_queries, principals_for
from ragward.bench.latency import main, run_latency
from ragward.bench.plainloop import PlainLoopRetriever
from ragward.errors import VersionConflict
from ragward.reference import (
    CLASSIFICATIONS,
    MODES,
    AuthorizedRetriever,
    Chunk,
    Chunking,
    Embedder,
    HashEmbedder,
    LexicalOverlapReranker,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    Reranker,
    RetrievalResult,
    chunk_document,
)

Retriever = AuthorizedRetriever | PlainLoopRetriever

VOCABULARY = (
    "payment", "trf-3318", "held", "wire", "ledger", "release", "control", "dual", "q3",
    "café", "the", "of", "and", "screening",
)  # fmt: skip
SEPARATORS = (" ", " ", "  ", "\n", "\n\n", "\t", ", ", ". ")
TENANTS = ("acme", "globex", "initech")
BARRIERS = ("deals", "legal")
BARRIER_SETS: tuple[tuple[str, ...], ...] = ((), ("deals",), ("deals", "legal"), ("other",))
NOW = 100


# -- comparing ---------------------------------------------------------------------------


def assert_same(
    expected: RetrievalResult, actual: RetrievalResult, context: object, rel_tol: float = 1e-9
) -> None:
    """Same chunks in the same order, scores within ``rel_tol`` relative, same record."""
    assert [s.chunk for s in actual.chunks] == [s.chunk for s in expected.chunks], context
    for mine, theirs in zip(actual.chunks, expected.chunks, strict=True):
        assert math.isclose(mine.score, theirs.score, rel_tol=rel_tol, abs_tol=0.0), context
    assert actual.degraded == expected.degraded, context
    assert (
        actual.considered,
        actual.excluded_by_entitlement,
        actual.excluded_by_freshness,
    ) == (
        expected.considered,
        expected.excluded_by_entitlement,
        expected.excluded_by_freshness,
    ), context


def ask_both(
    pair: tuple[Retriever, Retriever],
    query: str,
    principal: ReferenceAsker,
    now_tick: int,
    policy: ReferencePolicy,
    rel_tol: float = 1e-9,
) -> RetrievalResult:
    reference, loop = pair
    expected = reference.retrieve(query, principal, now_tick=now_tick, policy=policy)
    actual = loop.retrieve(query, principal, now_tick=now_tick, policy=policy)
    assert_same(expected, actual, (query, principal, now_tick, policy), rel_tol)
    return expected


def both_do(pair: tuple[Retriever, Retriever], document: ReferenceDoc) -> None:
    """Ingest into both; either both accept (same chunks) or both refuse the version."""
    reference, loop = pair
    try:
        expected: tuple[Chunk, ...] | None = reference.ingest(document)
    except VersionConflict:
        expected = None
    if expected is None:
        with pytest.raises(VersionConflict):
            loop.ingest(document)
    else:
        assert loop.ingest(document) == expected


# -- a deterministic generator of small adversarial corpora ------------------------------


def _text(rng: np.random.Generator) -> str:
    parts: list[str] = []
    for section in range(int(rng.integers(1, 4))):
        if section > 0 or rng.random() < 0.5:
            parts.append(f"## Part {int(rng.integers(1, 4))}\n")
        for _ in range(int(rng.integers(0, 25))):
            word = VOCABULARY[int(rng.integers(len(VOCABULARY)))]
            if rng.random() < 0.15:
                word = word.upper()
            parts.append(word + SEPARATORS[int(rng.integers(len(SEPARATORS)))])
        parts.append("\n")
    return "".join(parts)


def _document(rng: np.random.Generator, tenant: str, doc_id: str, text: str) -> ReferenceDoc:
    return ReferenceDoc(
        doc_id=doc_id,
        tenant=tenant,
        title="",
        text=text,
        classification=CLASSIFICATIONS[int(rng.integers(len(CLASSIFICATIONS)))],
        barrier=None if rng.random() < 0.7 else BARRIERS[int(rng.integers(len(BARRIERS)))],
        version=int(rng.integers(1, 3)),
        updated_tick=int(rng.integers(0, NOW + 1)),
    )


def build_pair(
    seed: int, embedder: Embedder | None = None, reranker: Reranker | None = None
) -> tuple[tuple[Retriever, Retriever], list[ReferenceDoc]]:
    """Both retrievers after the same ingests (copies, re-versions, a refused stale write,
    deletes) over a few tenants that reuse doc ids."""
    rng = np.random.default_rng(seed)
    chunking = (Chunking(), Chunking(8, 2), Chunking(4, 0), Chunking(12, 5))[seed % 4]
    knobs = {
        "chunking": chunking,
        "embedder": embedder or HashEmbedder(),
        "reranker": reranker or LexicalOverlapReranker(),
    }
    pair: tuple[Retriever, Retriever] = (
        AuthorizedRetriever(**knobs),  # type: ignore[arg-type]
        PlainLoopRetriever(**knobs),  # type: ignore[arg-type]
    )
    documents: list[ReferenceDoc] = []
    for tenant in TENANTS[: 1 + seed % 3]:
        for n in range(int(rng.integers(4, 14))):
            if documents and rng.random() < 0.25:  # an exact copy of an earlier text
                text = documents[int(rng.integers(len(documents)))].text
            else:
                text = _text(rng)
            documents.append(_document(rng, tenant, f"d{n}", text))
    for document in documents:
        both_do(pair, document)
    latest = {d.key: d for d in documents}
    for document in list(latest.values()):
        roll = rng.random()
        if roll < 0.2:  # a newer version, possibly reclassified
            newer = _document(rng, document.tenant, document.doc_id, _text(rng))
            newer = replace(newer, version=document.version + 1)
            both_do(pair, newer)
            latest[document.key] = newer
        elif roll < 0.3:  # an out-of-order write: refused by both
            both_do(pair, replace(document, version=1, text="stale wire"))
        elif roll < 0.4:
            reference, loop = pair
            assert reference.delete(*document.key) == loop.delete(*document.key)
            assert not reference.delete(*document.key)
            assert not loop.delete(*document.key)
            del latest[document.key]
    for key in {d.key for d in documents}:
        assert pair[0].version_of(*key) == pair[1].version_of(*key)
    return pair, list(latest.values())


def _queries(rng: np.random.Generator, documents: Sequence[ReferenceDoc]) -> list[str]:
    found = [
        " ".join(VOCABULARY[int(i)] for i in rng.integers(0, len(VOCABULARY), size=n))
        for n in rng.integers(1, 5, size=6)
    ]
    found += ["", "?!", "zzz unknown", "TRF-3318 held", "the of and"]
    if documents:
        found.append(documents[int(rng.integers(len(documents)))].text)
    return found


def _principals(rng: np.random.Generator, tenant: str) -> list[ReferenceAsker]:
    return [
        ReferenceAsker(
            "u",
            tenant,
            CLASSIFICATIONS[int(rng.integers(len(CLASSIFICATIONS)))],
            BARRIER_SETS[int(rng.integers(len(BARRIER_SETS)))],
        )
        for _ in range(3)
    ] + [ReferenceAsker("all", tenant, "restricted", BARRIERS)]


# -- the differential tests --------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_loop_matches_reference_on_generated_corpora(seed: int) -> None:
    pair, documents = build_pair(seed)
    rng = np.random.default_rng(1000 + seed)
    queries = _queries(rng, documents)
    for tenant in (*TENANTS, "nobody"):
        for principal in _principals(rng, tenant):
            for mode in MODES:
                for enable_rerank in (True, False):
                    for stale in (None, 30):
                        policy = ReferencePolicy(
                            max_stale_ticks=stale,
                            enable_rerank=enable_rerank,
                            mode=mode,
                            candidate_limit=int(rng.choice((1, 3, 12))),
                            result_limit=int(rng.choice((1, 5))),
                            rrf_k=float(rng.choice((60.0, 1.0))),
                            rerank_min_score=float(rng.choice((0.0, 0.5))),
                        )
                        query = queries[int(rng.integers(len(queries)))]
                        ask_both(
                            pair, query, principal, int(rng.integers(NOW - 50, NOW + 1)), policy
                        )


def test_loop_matches_reference_on_the_benchmark_corpus() -> None:
    corpus = generate_corpus(400, seed=5)
    pair: tuple[Retriever, Retriever] = (AuthorizedRetriever(), PlainLoopRetriever())
    for document in corpus.documents:
        both_do(pair, document)
    for tenant in corpus.tenants[:3]:
        for query in generate_queries(corpus, 6, seed=1, tenant=tenant):
            for mode in MODES:
                for enable_rerank in (True, False):
                    for stale in (None, 200):
                        policy = ReferencePolicy(
                            max_stale_ticks=stale, enable_rerank=enable_rerank, mode=mode
                        )
                        ask_both(pair, query.text, query.principal, query.now_tick, policy)


class _ScaledEmbedder:
    """Non-integer vectors (so cosines are rounded), still a pure function of the text.

    The length term differs per dimension (square roots), so two *different* texts do not
    have the same cosine in exact arithmetic, where the loop and the index could round it
    apart and cut the tie either way; identical texts still get identical vectors.
    """

    name = "scaled-hash"
    dimensions = 24

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        base = HashEmbedder(self.dimensions).embed(texts)
        lengths = np.array([[len(t) % 7] for t in texts], dtype=np.float64)
        ramp = np.sqrt(np.arange(2, self.dimensions + 2, dtype=np.float64))
        scaled: npt.NDArray[np.float64] = base * 0.37 + lengths * 0.013 * ramp
        return scaled


class _FlakyEmbedder(HashEmbedder):
    """Fails on a query containing "boom" (a dead embedding service)."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        if any("boom" in t for t in texts):
            raise RuntimeError("embedding service down")
        return super().embed(texts)


class _FlakyReranker(LexicalOverlapReranker):
    """Fails on a query containing "crash"; returns too few scores for "short"."""

    def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
        if "crash" in query:
            raise RuntimeError("reranker timed out")
        scores = super().score(query, chunks)
        return scores[:-1] if "short" in query else scores


def test_loop_matches_reference_with_float_vectors() -> None:
    pair, documents = build_pair(3, embedder=_ScaledEmbedder())
    rng = np.random.default_rng(7)
    for query in _queries(rng, documents):
        for principal in _principals(rng, "acme"):
            for mode in ("dense", "hybrid"):
                # The reference sums a float32 row's dot product in float32, the loop in
                # float64 (both over the same float32 values): they agree to ~1e-7.
                ask_both(pair, query, principal, NOW, ReferencePolicy(mode=mode), 1e-6)


def test_degraded_stages_match() -> None:
    pair, _ = build_pair(2, embedder=_FlakyEmbedder(), reranker=_FlakyReranker())
    principal = ReferenceAsker("all", "acme", "restricted", BARRIERS)
    seen: set[tuple[str, ...]] = set()
    for query in ("held wire", "boom held", "crash wire", "boom crash", "short wire"):
        for mode in MODES:
            for enable_rerank in (True, False):
                policy = ReferencePolicy(mode=mode, enable_rerank=enable_rerank)
                seen.add(ask_both(pair, query, principal, NOW, policy).degraded)
    assert {(), ("dense",), ("rerank",), ("dense", "rerank")} <= seen


_WORDS = st.sampled_from(VOCABULARY)


@st.composite
def _scenario(
    draw: st.DrawFn,
) -> tuple[list[ReferenceDoc], ReferenceAsker, str, ReferencePolicy, int]:
    documents: list[ReferenceDoc] = []
    keys = draw(
        st.lists(st.tuples(st.sampled_from(TENANTS[:2]), st.sampled_from(("a", "b", "c"))),
                 unique=True, max_size=6)
    )  # fmt: skip
    for tenant, doc_id in keys:
        words = draw(st.lists(_WORDS, max_size=14))
        separators = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words),
                                   max_size=len(words)))  # fmt: skip
        text = "".join(w + s for w, s in zip(words, separators, strict=True))
        if draw(st.booleans()):
            text = "## Head\n" + text
        documents.append(
            ReferenceDoc(
                doc_id,
                tenant,
                "",
                text,
                classification=draw(st.sampled_from(CLASSIFICATIONS)),
                barrier=draw(st.sampled_from((None, None, *BARRIERS))),
                updated_tick=draw(st.integers(0, NOW)),
            )
        )
    principal = ReferenceAsker(
        "u",
        draw(st.sampled_from(TENANTS[:2])),
        draw(st.sampled_from(CLASSIFICATIONS)),
        draw(st.sampled_from(BARRIER_SETS)),
    )
    query = " ".join(draw(st.lists(_WORDS, max_size=4)))
    policy = ReferencePolicy(
        max_stale_ticks=draw(st.one_of(st.none(), st.integers(0, 60))),
        enable_rerank=draw(st.booleans()),
        candidate_limit=draw(st.integers(1, 6)),
        result_limit=draw(st.integers(1, 4)),
        mode=draw(st.sampled_from(MODES)),
    )
    return documents, principal, query, policy, draw(st.integers(0, NOW + 20))


@given(_scenario())
def test_loop_matches_reference_property(
    scenario: tuple[list[ReferenceDoc], ReferenceAsker, str, ReferencePolicy, int],
) -> None:
    documents, principal, query, policy, now_tick = scenario
    pair: tuple[Retriever, Retriever] = (
        AuthorizedRetriever(chunking=Chunking(6, 2)),
        PlainLoopRetriever(chunking=Chunking(6, 2)),
    )
    for document in documents:
        both_do(pair, document)
    ask_both(pair, query, principal, now_tick, policy)


# -- the benchmark's own parts ---------------------------------------------------------


def test_corpus_is_deterministic_and_sized() -> None:
    first, second = generate_corpus(2000, seed=3), generate_corpus(2000, seed=3)
    assert first == second
    assert generate_corpus(2000, seed=4) != first
    assert generate_queries(first, 20, seed=1) == generate_queries(second, 20, seed=1)
    documents = first.documents
    total = sum(len(chunk_document(d)) for d in documents)
    assert 0.85 * 2000 <= total <= 1.15 * 2000
    assert {d.classification for d in documents} == set(CLASSIFICATIONS)
    assert any(d.barrier for d in documents)
    sizes = [sum(len(chunk_document(d)) for d in first.documents_of(t)) for t in first.tenants]
    assert sizes[0] == max(sizes)
    assert sizes[0] > 5 * sizes[-1]
    queries = generate_queries(first, 50, seed=2)
    assert all(2 <= len(q.text.split()) <= 8 for q in queries)
    assert any("-" in q.text for q in queries)  # identifiers
    assert len({q.principal.max_classification for q in queries}) >= 3
    assert {p.tenant for p in principals_for("t1")} == {"t1"}


def test_run_latency_smoke(tmp_path: Path) -> None:
    report = run_latency(tmp_path / "bench", chunks=300, queries=5, progress=False)
    data = json.loads((tmp_path / "bench" / "latency.json").read_text(encoding="utf-8"))
    markdown = (tmp_path / "bench" / "latency.md").read_text(encoding="utf-8")
    assert data == json.loads(json.dumps(report))
    assert set(data) == {
        "anchors",
        "benchmark",
        "config",
        "ingest",
        "machine",
        "reference",
        "reference_first_pass_after_ingest",
        "tenants",
        "write_then_read",
    }
    assert {"cpu_count", "python", "numpy"} <= set(data["machine"])
    for label in ("lexical", "dense", "hybrid"):
        stats = data["reference"][label]
        assert stats["queries"] == 5
        assert stats["median_ms"] > 0
        assert stats["p95_ms"] >= stats["median_ms"]
    plain = data["anchors"]["plain_loop"]
    assert plain["identical_results"] is True
    assert set(plain["modes"]) == set(MODES)
    assert data["anchors"]["bm25s"]["status"] in {"measured", "not installed"}
    dense = data["anchors"]["dense_single_pass"]
    assert set(dense["single_passes"]) == {"einsum", "matmul", "sum_of_products"}
    assert dense["single_passes"][dense["floor"]]["median_ms"] > 0
    assert len(data["tenants"]["hybrid_by_tenant"]) == len(data["config"]["tenants"])
    assert data["config"]["chunks"] == sum(data["config"]["tenants"].values())
    for heading in ("## Reference", "plain per-chunk loop", "bm25s", "vector matrix"):
        assert heading in markdown
    assert list(data) == sorted(data)


def test_cli_rejects_bad_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--chunks", "0"])
    assert exit_info.value.code == 2
    assert "--chunks" in capsys.readouterr().err
