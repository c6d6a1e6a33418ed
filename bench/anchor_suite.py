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
import itertools
import json
import multiprocessing
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from importlib import resources
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
    HashEmbedder,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    tokenize,
)

__all__ = ["Row", "main_of", "run_anchor_suite"]

Floats = npt.NDArray[np.float32]

#: Hits per question in every BM25 and dense comparison.
TOP_K = 10
#: The grid whose reuse the suite times.
_SCIFACT_GRID = Path(str(resources.files("ragward.evals").joinpath("grids/scifact.toml")))
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
    cold = time_interleaved(calls, order, warmup=order[:_WARMUP], progress=bar)
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
        whole_ours = _best_of(
            3, lambda: retriever.retrieve_many(texts, asker, now_tick=now_tick, policy=policy)
        )
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


def _best_of(repeat: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        begin = time.perf_counter()
        work()
        best = min(best, (time.perf_counter() - begin) * 1000.0)
    return best


def _labelled(directory: Path) -> tuple[str, list[ReferenceDoc], list[str]]:
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


# -- dense, memory, scale -----------------------------------------------------------------


def _bandwidth_floor_ms(matrix: Floats) -> float:
    """The time to read ``matrix`` once at the machine's best read rate, in ms: the
    cheapest pass numpy makes over every element (a maximum, which vectorises and does no
    arithmetic a sum's rounding needs), with one block of rows per core, each in its own
    thread (numpy lets go of the GIL there), as the reference's scan and BLAS read it.
    One thread alone does not reach the bus: on a 2-core machine a single-threaded sum
    took 15 ms over 307 MB where the two-thread ``M @ q`` took 7.5 ms."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    bounds = np.linspace(0, matrix.shape[0], max(1, cores) + 1).astype(int).tolist()
    blocks = [matrix[begin:end] for begin, end in itertools.pairwise(bounds)]

    def read_once() -> None:
        workers = [
            threading.Thread(target=np.maximum.reduce, args=(block,), kwargs={"axis": None})
            for block in blocks[1:]
        ]
        for worker in workers:
            worker.start()
        np.maximum.reduce(blocks[0], axis=None)
        for worker in workers:
            worker.join()

    return _best_of(5, read_once)


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
    own = sys.getsizeof(produced)
    return {
        "corpus": corpus,
        "retriever": retriever,
        "chunks": produced,
        "queries": queries,
        "ingest_s": ingest_s,
        # The list of chunks is the bench's own (the index holds the chunks): not counted.
        "grown": None if before is None or after is None else after - before - own,
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
    policy = ReferencePolicy(
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


def _fresh(chunks: int, seed: int, dimensions: int, progress: bool) -> dict[str, Any]:
    """:func:`sized_figures` in a fresh interpreter."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        figures: dict[str, Any] = pool.apply(sized_figures, (chunks, seed, dimensions, progress))
    return figures


def sized_figures(chunks: int, seed: int, dimensions: int, progress: bool) -> dict[str, Any]:
    """One tenant of about ``chunks`` chunks: how much the process grew while building it,
    its raw size, and its median hybrid latency."""
    bar = Progress(progress, "anchors")
    built = _one_tenant(chunks, seed, dimensions, bar)
    return {
        "chunks": len(built["chunks"]),
        "dimensions": dimensions,
        "grown": built["grown"],
        "raw": raw_bytes(built["chunks"], dimensions),
        "latency_ms": _latency_at(built, bar),
    }


def _memory_row(figures: dict[str, Any], dimensions: int) -> Row:
    chunks, grown, raw = figures["chunks"], figures["grown"], figures["raw"]
    per = None if grown is None else grown / chunks
    note = (
        f"{chunks} chunks, {dimensions}-d, built in a fresh process (growth of its resident "
        f"set, less the bench's own list of the chunks); raw {raw / chunks:.0f} bytes/chunk"
    )
    return Row("index memory per chunk", per, "raw sizes", raw / chunks, "bytes", 1.5, note)


def _fits_row(figures: dict[str, Any]) -> Row:
    grown = figures["grown"]
    return Row(
        f"index memory, {figures['chunks']} chunks",
        None if grown is None else grown / 2**30,
        "2 GiB",
        2.0,
        "GiB",
        1.0,
        f"{figures['dimensions']}-d, built in a fresh process; growth of its resident set, "
        "less the bench's own list of the chunks",
    )


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
    grid: Path | None = None,
    metrics_queries: int = 10_000,
    tenant_chunks: int = 20_000,
) -> dict[str, Any]:
    """Measure every anchor, write ``out/anchors.json`` and ``.md``, return the JSON
    (``kit=False`` leaves out the kit's wall time; ``grid`` replaces
    ``evals/grids/scifact.toml``; ``metrics_queries`` and ``tenant_chunks`` size the
    metrics run and the tenant among 100: all for quick checks of the suite itself)."""
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
        asker = ReferenceAsker("all", "data", "restricted")
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
    del built
    gc.collect()
    # Memory and latency by size, each in a fresh interpreter: memory freed by an earlier
    # stage stays with this process's allocator and would hide a later index's growth.
    sized = {chunks: _fresh(chunks, seed, dimensions, progress)}
    rows.append(_memory_row(sized[chunks], dimensions))
    for scale in scales:
        sized.setdefault(scale, _fresh(scale, seed, 96, progress))
    # The raw sizes are at 96-d: memory against them at the largest such scale.
    at_96 = [figures for figures in sized.values() if figures["dimensions"] == 96]
    if at_96:
        rows.append(_memory_row(max(at_96, key=lambda figures: figures["chunks"]), 96))
    largest = max(sized)
    if largest >= 1_000_000:
        rows.append(_fits_row(sized[largest]))
    latency = {figures["chunks"]: figures["latency_ms"] for figures in sized.values()}

    rows.append(_tenants_row(tenant_chunks, seed, bar))
    rows.append(_metrics_row(bar, metrics_queries))
    rows.append(_metrics_command_row(bar, metrics_queries))
    if data is not None:
        rows.append(_grid_row(data, grid or _SCIFACT_GRID, bar))
    if kit:
        rows.append(_kit_row(bar))
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


def _tenants_row(chunks: int, seed: int, bar: Progress) -> Row:
    """Hybrid latency of one tenant of about ``chunks`` chunks, among 99 others holding as
    many chunks again, against the same tenant alone in a fresh retriever."""
    corpus = generate_corpus(chunks, seed=seed, tenants=1)
    tenant = corpus.tenants[0]
    # The 99 others: a second corpus, its documents dealt round-robin to 99 tenants.
    crowd = generate_corpus(chunks, seed=seed + 1)
    others = [
        dataclasses.replace(document, tenant=f"other-{n % 99:02d}")
        for n, document in enumerate(crowd.documents)
    ]
    crowded, alone = AuthorizedRetriever(), AuthorizedRetriever()
    bar.stage(f"ingesting {len(corpus.documents) + len(others)} documents of 100 tenants")
    held = sum(len(alone.ingest(document)) for document in corpus.documents)
    for document in [*others[: len(others) // 2], *corpus.documents, *others[len(others) // 2 :]]:
        crowded.ingest(document)
    queries = generate_queries(corpus, 200, seed=seed, tenant=tenant)
    bar.stage(f"hybrid, tenant {tenant} among 100 and alone")
    times = time_interleaved(
        {"among": _asker_of(crowded), "alone": _asker_of(alone)},
        queries,
        warmup=queries[:_WARMUP],
        progress=bar,
    )
    median = {name: float(np.median(series)) for name, series in times.items()}
    return Row(
        "hybrid, a tenant among 100",
        median["among"],
        "the tenant alone",
        median["alone"],
        "ms",
        1.1,
        f"tenant {tenant}: {held} of {corpus_chunks(crowded)} chunks; "
        "target: flat in the number of tenants (within 10%)",
    )


def _asker_of(retriever: AuthorizedRetriever) -> Callable[[Query], object]:
    def ask(query: Query) -> object:
        return retriever.retrieve(query.text, query.principal, now_tick=query.now_tick)

    return ask


def corpus_chunks(retriever: AuthorizedRetriever) -> int:
    """Live chunks over every tenant of ``retriever``."""
    return sum(namespace.live_rows for namespace in retriever._namespaces.values())


def _grid_row(directory: Path, grid_file: Path, bar: Progress) -> Row:
    """The grid of ``grid_file`` on ``directory``, with reuse against rebuilding
    everything per setting, each way once in a fresh process (neither finds caches the
    other warmed), answers checked identical."""
    from ragward.bench.grid_speed import measure_in_child, phase_text
    from ragward.evals.datasets import load_dataset
    from ragward.evals.grid_file import load_grid

    claims = directory.parent / "claims_dev.jsonl"
    dataset = load_dataset(directory, claims={"test": claims} if claims.is_file() else None)
    grid = load_grid(grid_file)
    split = grid.split if grid.split in dataset.qrels else sorted(dataset.qrels)[0]
    figures: dict[str, dict[str, Any]] = {}
    for way in ("reuse", "rebuild"):
        bar.stage(f"{dataset.name} grid, {way} ({len(grid.all_settings())} settings)")
        figures[way] = measure_in_child(
            way,
            directory,
            grid_file,
            split,
            [f"test={claims}"] if claims.is_file() else [],
        )
    same = figures["reuse"]["digest"] == figures["rebuild"]["digest"]
    return Row(
        f"{dataset.name} grid ({grid_file.name}), with reuse",
        figures["reuse"]["seconds"],
        "rebuilding per setting",
        figures["rebuild"]["seconds"],
        "s",
        0.1,
        f"{len(grid.all_settings())} settings, split {split}; "
        + ("answers identical" if same else "ANSWERS DIFFER between the two ways")
        + "; target: at least 10x faster; "
        + "; ".join(f"{way}: {phase_text(figures[way]['phases'])}" for way in figures),
    )


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


def _metrics_command_row(bar: Progress, queries: int) -> Row:
    from ragward.bench import metrics_speed

    bar.stage("ragward metrics as a command vs a pytrec_eval command")
    figures = metrics_speed.measure_commands(queries, 100, 3)["rows"]
    ours = figures["ragward metrics"]
    theirs = figures.get("pytrec_eval command")
    if theirs is None:
        note = "not measured: pytrec_eval is not installed"
    else:
        note = (
            f"files of {queries} queries x 100; peak memory {ours[1] / 2**20:.0f} MiB "
            f"vs {theirs[1] / 2**20:.0f} MiB"
        )
    return Row(
        "ragward metrics, the whole command",
        ours[0],
        "pytrec_eval's readers and evaluate",
        None if theirs is None else theirs[0],
        "s",
        1.0,
        note,
    )


def _kit_row(bar: Progress) -> Row:
    from ragward.conformance import run_conformance
    from ragward.engines.reference import reference_factory

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
    """``ragward bench --anchors`` with the parsed options of :mod:`ragward.cli.bench`."""
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
