"""The anchor suite: the reference against the best libraries, each ratio beside its target.

    ragward bench --anchors [--chunks N] [--queries N] [--scales 10000,100000] [--data DIR]

Every figure is taken in this process, in this run: a series and its anchor take turns
query by query (medians of the per-query times), so load from outside falls on both. The
anchors are what a user who cares about speed would reach for: bm25s with its numba
backend (per query and batched) on SciFact and on a generated corpus; one float32
``M @ q`` pass over the same vectors, and the memory bandwidth floor of reading them once;
``pytrec_eval`` for the metrics; the raw bytes of an index for memory. Writes
``DIR/anchors.json`` and ``DIR/anchors.md`` (default ``reports/bench``); a target that is
not met is reported as such, never left out.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tabulate import tabulate

from ragward.bench.corpus import Query, generate_corpus, generate_queries, omniscient
from ragward.bench.measure import Progress, describe_machine, load_average, time_interleaved
from ragward.bench.system import resident_bytes
from ragward.outputs import write_atomic
from ragward.reference import (
    AuthorizedRetriever,
    Chunk,
    Chunking,
    Document,
    HashEmbedder,
    Principal,
    RetrievalPolicy,
    tokenize,
)

__all__ = ["Row", "main_of", "run_anchor_suite"]

Floats = npt.NDArray[np.float32]

#: Hits per question in every BM25 and dense comparison.
TOP_K = 10
#: Warm-up questions before each timed series.
_WARMUP = 10


@dataclasses.dataclass(frozen=True)
class Row:
    """One comparison: the reference's figure, the anchor's, their ratio and the target."""

    what: str
    reference: float | None
    anchor_name: str
    anchor: float | None
    unit: str
    target: float | None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference is None or not self.anchor:
            return None
        return self.reference / self.anchor

    @property
    def met(self) -> bool | None:
        ratio = self.ratio
        return None if ratio is None or self.target is None else ratio <= self.target

    def to_data(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            **dataclasses.asdict(self),
            "ratio": None if ratio is None else round(ratio, 3),
            "met": self.met,
        }


# -- BM25 ---------------------------------------------------------------------------------


def _bm25s(texts: Sequence[str], k1: float, b: float, backend: str) -> Any:
    bm25s: Any = importlib.import_module("bm25s")
    engine = bm25s.BM25(k1=k1, b=b, method="lucene", backend=backend)
    engine.index([tokenize(t) for t in texts], show_progress=False)
    return engine


def _bm25_rows(
    label: str,
    retriever: AuthorizedRetriever,
    chunks: Sequence[Chunk],
    asker: Principal,
    texts: Sequence[str],
    now_tick: int,
    bar: Progress,
) -> list[Row]:
    """Per query and over the whole set: the reference (lexical, no rerank, asked by a
    principal who sees every chunk, so both compute BM25 over the same rows) against bm25s."""
    policy = RetrievalPolicy(
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
    bar.stage(f"BM25 per query, {label}")
    order = list(range(len(texts)))
    times = time_interleaved(calls, order, warmup=order[:_WARMUP], progress=bar)
    median = {name: float(np.median(series)) for name, series in times.items()}
    size = f"{len(chunks)} chunks, {len(texts)} queries"
    rows = [
        Row(
            f"BM25 per query, {label}",
            median["reference"],
            f"bm25s {backend}",
            median.get(backend),
            "ms",
            1.0 if backend == "numba" else None,
            missing.get(backend, size),
        )
        for backend in ("numba", "numpy")
    ]
    fastest = "numba" if "numba" in engines else "numpy" if "numpy" in engines else ""
    if fastest:
        bar.stage(f"BM25 over all {len(texts)} queries, {label}")
        whole_ours = _best_of(3, lambda: [ours(i) for i in order])
        engine = engines[fastest]
        whole_theirs = _best_of(
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
                f"{size}; the reference asks one by one",
            )
        )
    return rows


def _asking(engine: Any, tokens: Sequence[list[str]], k: int) -> Callable[[int], object]:
    def ask(i: int) -> object:
        return engine.retrieve([tokens[i]], k=k, show_progress=False, n_threads=1)

    return ask


def _params(retriever: AuthorizedRetriever) -> tuple[float, float]:
    return retriever.bm25.k1, retriever.bm25.b


def _best_of(repeat: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        begin = time.perf_counter()
        work()
        best = min(best, (time.perf_counter() - begin) * 1000.0)
    return best


def _labelled(directory: Path) -> tuple[str, list[Document], list[str]]:
    """The documents of a BEIR-layout folder (its largest tenant's latest versions, all
    made public) and the questions of its test split (or its first)."""
    from ragward.evals.datasets import load_dataset

    dataset = load_dataset(directory)
    sizes = Counter(d.tenant for d in dataset.docs)
    tenant = min(sizes, key=lambda t: (-sizes[t], t))  # the largest tenant, its last versions
    latest = {d.doc_id: d for d in dataset.docs if d.tenant == tenant}
    documents = [
        Document(d.doc_id, "data", d.title, d.text, "public", None, 1, 0) for d in latest.values()
    ]
    split = "test" if "test" in dataset.qrels else sorted(dataset.qrels)[0]
    return dataset.name, documents, [q.text for q in dataset.split_queries(split)]


# -- dense, memory, scale -----------------------------------------------------------------


def _bandwidth_floor_ms(matrix: Floats) -> float:
    """The time to read ``matrix`` once at the machine's best read rate (a sum over
    every element, the cheapest pass numpy makes over memory), in ms."""
    return _best_of(5, lambda: np.add.reduce(matrix, axis=None))


def _one_tenant(chunks: int, seed: int, dimensions: int, bar: Progress) -> dict[str, Any]:
    """A single tenant of about ``chunks`` chunks in a fresh reference."""
    corpus = generate_corpus(chunks, seed=seed, tenants=1)
    gc.collect()
    before = resident_bytes()
    retriever = AuthorizedRetriever(embedder=HashEmbedder(dimensions=dimensions))
    bar.stage(f"ingesting {len(corpus.documents)} documents (~{chunks} chunks)")
    produced: list[Chunk] = []
    begin = time.perf_counter()
    for n, document in enumerate(corpus.documents, 1):
        produced.extend(retriever.ingest(document))
        bar.tick(n, len(corpus.documents))
    ingest_s = time.perf_counter() - begin
    queries = generate_queries(corpus, 50, seed=seed, principal=omniscient(corpus.tenants[0]))
    for query in queries[:3]:  # the first reads build the index state held lazily
        retriever.retrieve(query.text, query.principal, now_tick=query.now_tick)
    gc.collect()
    after = resident_bytes()
    return {
        "corpus": corpus,
        "retriever": retriever,
        "chunks": produced,
        "queries": queries,
        "ingest_s": ingest_s,
        "grown": None if before is None or after is None else after - before,
    }


def raw_bytes(chunks: Sequence[Chunk], dimensions: int) -> int:
    """What an index must hold at least: a 4-byte row and a 4-byte frequency per posting
    (distinct term of what a chunk is indexed as), a float32 vector per chunk, and the
    chunk's UTF-8 text."""
    postings = sum(len(set(tokenize(c.search_text))) for c in chunks)
    text = sum(len(c.text.encode("utf-8")) for c in chunks)
    return postings * 8 + len(chunks) * dimensions * 4 + text


def _dense_rows(built: dict[str, Any], dimensions: int, bar: Progress) -> list[Row]:
    retriever: AuthorizedRetriever = built["retriever"]
    chunks: list[Chunk] = built["chunks"]
    queries: list[Query] = built["queries"]
    embedder = retriever.embedder
    matrix = np.ascontiguousarray(embedder.embed([c.search_text for c in chunks]), dtype=np.float32)
    vectors = [
        np.ascontiguousarray(v, dtype=np.float32) for v in embedder.embed([q.text for q in queries])
    ]
    policy = RetrievalPolicy(
        mode="dense", enable_rerank=False, candidate_limit=TOP_K, result_limit=TOP_K
    )
    calls: dict[str, Callable[[Any], object]] = {
        "reference": lambda i: retriever.retrieve(
            queries[i].text, queries[i].principal, now_tick=queries[i].now_tick, policy=policy
        ),
        "matmul": lambda i: matrix @ vectors[i],
    }
    bar.stage(f"dense, {matrix.shape[0]} x {dimensions}")
    order = list(range(len(queries)))
    times = time_interleaved(calls, order, warmup=order[:_WARMUP], progress=bar)
    ours = float(np.median(times["reference"]))
    floor = _bandwidth_floor_ms(matrix)
    size = f"{matrix.shape[0]} x {dimensions} float32 ({matrix.nbytes / 1e6:.0f} MB)"
    return [
        Row(
            "dense exact top-k per query",
            ours,
            "one float32 M @ q",
            float(np.median(times["matmul"])),
            "ms",
            1.2,
            size,
        ),
        Row(
            "dense exact top-k per query",
            ours,
            "memory floor (one read of M)",
            floor,
            "ms",
            2.0,
            size,
        ),
    ]


def _memory_row(built: dict[str, Any], dimensions: int) -> Row:
    chunks: list[Chunk] = built["chunks"]
    grown = built["grown"]
    raw = raw_bytes(chunks, dimensions)
    per = None if grown is None else grown / len(chunks)
    note = f"{len(chunks)} chunks, {dimensions}-d; raw {raw / len(chunks):.0f} bytes/chunk"
    return Row("index memory per chunk", per, "raw sizes", raw / len(chunks), "bytes", 1.5, note)


def _latency_at(built: dict[str, Any], bar: Progress) -> float:
    retriever: AuthorizedRetriever = built["retriever"]
    queries: list[Query] = built["queries"]
    bar.stage(f"hybrid latency at {len(built['chunks'])} chunks")
    times = time_interleaved(
        {"hybrid": lambda q: retriever.retrieve(q.text, q.principal, now_tick=q.now_tick)},
        queries,
        warmup=queries[:_WARMUP],
        progress=bar,
    )
    return float(np.median(times["hybrid"]))


# -- the suite ----------------------------------------------------------------------------


def run_anchor_suite(
    out: Path,
    *,
    chunks: int = 200_000,
    queries: int = 200,
    scales: Sequence[int] = (10_000, 100_000),
    data: Path | None = None,
    seed: int = 0,
    dimensions: int = 384,
    progress: bool = True,
    kit: bool = True,
    metrics_queries: int = 10_000,
) -> dict[str, Any]:
    """Measure every anchor, write ``out/anchors.json`` and ``.md``, return the JSON
    (``kit=False`` leaves out the kit's wall time, ``metrics_queries`` sizes the metrics
    run: both for quick checks of the suite itself)."""
    bar = Progress(progress, "anchors")
    machine = describe_machine()
    rows: list[Row] = []
    started = time.perf_counter()

    if data is None:
        rows.append(
            Row(
                "BM25 per query, SciFact",
                None,
                "bm25s numba",
                None,
                "ms",
                1.0,
                "not measured: no labelled set (--data DIR or $RAGWARD_DATA/scifact/beir)",
            )
        )
    else:
        name, documents, texts = _labelled(data)
        # One chunk per document, as a BEIR run ranks documents.
        whole = Chunking(max_tokens=1_000_000, overlap_tokens=0)
        retriever = AuthorizedRetriever(chunking=whole)
        bar.stage(f"ingesting {name} ({len(documents)} documents)")
        labelled = [c for d in documents for c in retriever.ingest(d)]
        asker = Principal("all", "data", "restricted")
        rows += _bm25_rows(name, retriever, labelled, asker, texts, 0, bar)
        del retriever, labelled
        gc.collect()

    bar.stage(f"generating ~{chunks} chunks in 8 tenants")
    corpus = generate_corpus(chunks, seed=seed)
    retriever = AuthorizedRetriever()
    big = corpus.tenants[0]
    big_chunks: list[Chunk] = []
    for document in corpus.documents:
        made = retriever.ingest(document)
        if document.tenant == big:
            big_chunks.extend(made)
    asked = generate_queries(corpus, queries, seed=seed, tenant=big)
    rows += _bm25_rows(
        f"generated, tenant {big} of {chunks} chunks",
        retriever,
        big_chunks,
        omniscient(big),
        [q.text for q in asked],
        corpus.now_tick,
        bar,
    )
    del retriever, big_chunks, corpus
    gc.collect()

    built = _one_tenant(chunks, seed, dimensions, bar)
    rows += _dense_rows(built, dimensions, bar)
    rows.append(_memory_row(built, dimensions))
    latency = {len(built["chunks"]): _latency_at(built, bar)}
    del built
    gc.collect()
    for scale in scales:
        if scale == chunks:
            continue
        at = _one_tenant(scale, seed, 96, bar)
        latency[len(at["chunks"])] = _latency_at(at, bar)
        del at
        gc.collect()

    rows.append(_metrics_row(bar, metrics_queries))
    if kit:
        rows.append(_kit_row(bar))
    rows += [
        Row(what, None, anchor, None, "", None, f"not in this suite yet: {where}")
        for what, anchor, where in (
            ("SciFact grid, reuse", "rebuilding per setting", "python -m ragward.bench.grid_speed"),
            ("hybrid, a tenant among 100", "the tenant alone", "python -m ragward.bench.latency"),
        )
    ]
    bar.done()
    report = {
        "rows": [r.to_data() for r in rows],
        "hybrid_latency_ms_by_chunks": {str(k): round(v, 3) for k, v in sorted(latency.items())},
        "seconds": round(time.perf_counter() - started, 1),
        "machine": {**machine, "load_average_1min_end": load_average()},
    }
    write_atomic(out / "anchors.json", json.dumps(report, indent=2) + "\n")
    write_atomic(out / "anchors.md", render_markdown(report))
    return report


def _metrics_row(bar: Progress, queries: int) -> Row:
    from ragward.bench import metrics_speed

    bar.stage("metrics from scores vs pytrec_eval")
    result = metrics_speed.measure(queries, 100, 3)
    rows = result["rows"]
    ours, theirs = rows["ragward, from scores"], rows.get("pytrec_eval, evaluate")
    note = "" if theirs is not None else "not measured: pytrec_eval is not installed"
    return Row(
        f"metrics from scores, {queries} queries x 100",
        ours,
        "pytrec_eval evaluate",
        theirs,
        "s",
        1.0,
        note,
    )


def _kit_row(bar: Progress) -> Row:
    from ragward.adapters import reference_factory
    from ragward.conformance import run_conformance

    bar.stage("the kit's ci profile on the reference")
    begin = time.perf_counter()
    report = run_conformance(reference_factory, profile="ci")
    seconds = time.perf_counter() - begin
    note = "" if report.passed else "the reference failed an invariant"
    return Row(
        "kit, ci profile on the reference", seconds, "the 3-minute budget", 180.0, "s", 1.0, note
    )


def render_markdown(report: dict[str, Any]) -> str:
    machine = report["machine"]
    table = [
        [
            r["what"],
            _figure(r["reference"], r["unit"]),
            r["anchor_name"],
            _figure(r["anchor"], r["unit"]),
            "—" if r["ratio"] is None else f"{r['ratio']:.2f}x",
            "—" if r["target"] is None else f"≤ {r['target']}x",
            {True: "yes", False: "**no**", None: "—"}[r["met"]],
            r["note"],
        ]
        for r in report["rows"]
    ]
    latency = ", ".join(
        f"{int(n):,} chunks {ms} ms" for n, ms in report["hybrid_latency_ms_by_chunks"].items()
    )
    return "\n".join(
        [
            "# Anchor suite: the reference against the best libraries",
            "",
            "Generated by `ragward bench --anchors`; every series and its anchor measured in "
            "the same run, taking turns query by query; medians of per-query times.",
            "",
            f"Machine: {machine['cpu']}, {machine['cpu_count']} CPUs, Python "
            f"{machine['python']}, numpy {machine['numpy']}; load average "
            f"{machine['load_average_1min_start']} at the start, "
            f"{machine['load_average_1min_end']} at the end; {report['seconds']} s in all.",
            "",
            tabulate(
                table,
                headers=(
                    "what",
                    "reference",
                    "anchor",
                    "anchor figure",
                    "ratio",
                    "target",
                    "met",
                    "on",
                ),
                tablefmt="github",
            ),
            "",
            f"Hybrid latency in one tenant: {latency}.",
            "",
        ]
    )


def _figure(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{value:.3g} {unit}" if unit != "bytes" else f"{value:,.0f} bytes"


def main_of(args: Any) -> int:
    """``ragward bench --anchors`` with the parsed options of :mod:`ragward.bench.command`."""
    data = args.data
    shared = Path(os.environ.get("RAGWARD_DATA", "")) / "scifact" / "beir"
    if data is None and "RAGWARD_DATA" in os.environ and shared.is_dir():
        data = shared
    report = run_anchor_suite(
        args.out,
        chunks=200_000 if args.chunks is None else args.chunks,
        queries=args.queries,
        scales=args.scales,
        data=data,
        seed=args.seed,
        progress=not args.quiet,
    )
    sys.stdout.write(render_markdown(report))
    sys.stdout.write(f"\nwrote {args.out / 'anchors.json'} and {args.out / 'anchors.md'}\n")
    return 0
