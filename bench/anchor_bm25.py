"""The anchor suite's BM25 rows: the reference against bm25s, per query and batched."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragward.bench.anchor_rows import TOP_K, WARMUP, Row, best_of
from ragward.bench.measure import Progress, time_interleaved
from ragward.reference import (
    AuthorizedRetriever,
    Chunk,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    tokenize,
)

__all__ = ["bm25_rows", "labelled_set"]


def _bm25s(texts: Sequence[str], k1: float, b: float, backend: str) -> Any:
    bm25s: Any = importlib.import_module("bm25s")
    engine = bm25s.BM25(k1=k1, b=b, method="lucene", backend=backend)
    engine.index([tokenize(t) for t in texts], show_progress=False)
    return engine


def bm25_rows(
    label: str,
    retriever: AuthorizedRetriever,
    chunks: Sequence[Chunk],
    asker: ReferenceAsker,
    texts: Sequence[str],
    now_tick: int,
    bar: Progress,
) -> list[Row]:
    """Per query and over the whole set: the reference (lexical, no rerank, asked by a
    principal who sees every chunk, so both compute BM25 over the same rows) against bm25s."""
    policy = ReferencePolicy(
        mode="lexical", enable_rerank=False, candidate_limit=TOP_K, result_limit=TOP_K
    )
    engines: dict[str, Any] = {}
    missing: dict[str, str] = {}
    for backend in ("numba", "numpy"):
        try:
            if backend == "numba":
                importlib.import_module("numba")
            engines[backend] = _bm25s([c.search_text for c in chunks], *_params(retriever), backend)
        except ImportError as error:
            missing[backend] = f"not measured: {error} (pip install '.[bench]')"
    tokens = [tokenize(t) for t in texts]
    k = min(TOP_K, len(chunks))

    def ours(i: int) -> object:
        return retriever.retrieve(texts[i], asker, now_tick=now_tick, policy=policy)

    calls: dict[str, Callable[[Any], object]] = {"reference": ours}
    for backend, engine in engines.items():
        calls[backend] = _asking(engine, tokens, k)
    order = list(range(len(texts)))
    size = f"{len(chunks)} chunks, {len(texts)} queries"
    # First each query's first ask, when the view's cache does not hold its terms yet (bm25s
    # computed every term's scores at indexing); then again, every query asked once before.
    bar.stage(f"BM25 per query, {label}, first asks")
    cold = time_interleaved(calls, order, warmup=order[:WARMUP], progress=bar)
    bar.stage(f"BM25 per query, {label}")
    warm = time_interleaved(calls, order, progress=bar)
    rows = []
    for times, what, note in (
        (warm, f"BM25 per query, {label}", size),
        (cold, f"BM25 per query, {label}, first ask", f"{size}; the view's term cache cold"),
    ):
        median = {name: float(np.median(series)) for name, series in times.items()}
        rows += [
            Row(
                what,
                median["reference"],
                f"bm25s {backend}",
                median.get(backend),
                "ms",
                1.0 if backend == "numba" and times is warm else None,
                missing.get(backend, note),
            )
            for backend in ("numba", "numpy")
        ]
    fastest = "numba" if "numba" in engines else "numpy" if "numpy" in engines else ""
    if fastest:
        bar.stage(f"BM25 over all {len(texts)} queries, {label}")
        whole_ours = best_of(
            3, lambda: retriever.retrieve_many(texts, asker, now_tick=now_tick, policy=policy)
        )
        engine = engines[fastest]
        whole_theirs = best_of(
            3, lambda: engine.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        )
        rows.append(
            Row(
                f"BM25 over all queries, {label}",
                whole_ours,
                f"bm25s {fastest}, batched",
                whole_theirs,
                "ms",
                2.0,
                f"{size}; the reference's retrieve_many",
            )
        )
    return rows


def _asking(engine: Any, tokens: Sequence[list[str]], k: int) -> Callable[[int], object]:
    def ask(i: int) -> object:
        return engine.retrieve([tokens[i]], k=k, show_progress=False, n_threads=1)

    return ask


def _params(retriever: AuthorizedRetriever) -> tuple[float, float]:
    return retriever.bm25.k1, retriever.bm25.b


def labelled_set(directory: Path) -> tuple[str, list[ReferenceDoc], list[str]]:
    """The documents of a BEIR-layout folder (its largest tenant's latest versions, all
    made public) and the questions of its test split (or its first)."""
    from ragward.evals.datasets import load_dataset

    dataset = load_dataset(directory)
    sizes = Counter(d.tenant for d in dataset.docs)
    tenant = min(sizes, key=lambda t: (-sizes[t], t))  # the largest tenant, its last versions
    latest = {d.doc_id: d for d in dataset.docs if d.tenant == tenant}
    documents = [
        ReferenceDoc(d.doc_id, "data", d.title, d.text, "public", None, 1, 0)
        for d in latest.values()
    ]
    split = "test" if "test" in dataset.qrels else sorted(dataset.qrels)[0]
    return dataset.name, documents, [q.text for q in dataset.split_queries(split)]
