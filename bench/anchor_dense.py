"""The anchor suite's dense, memory and scale rows: the reference's exact scan against one
``M @ q`` and the memory floor, its index against the raw sizes, its latency by size."""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ragward.bench.anchor_rows import TOP_K, WARMUP, Row, best_of
from ragward.bench.corpus import Query, generate_corpus, generate_queries, omniscient
from ragward.bench.measure import Progress, time_interleaved
from ragward.bench.system import resident_bytes
from ragward.reference import AuthorizedRetriever, Chunk, HashEmbedder, ReferencePolicy, tokenize

__all__ = [
    "dense_rows",
    "fits_row",
    "fresh_figures",
    "memory_row",
    "one_tenant",
    "raw_bytes",
    "sized_figures",
]

Floats = npt.NDArray[np.float32]


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

    return best_of(5, read_once)


def one_tenant(chunks: int, seed: int, dimensions: int, bar: Progress) -> dict[str, Any]:
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


def dense_rows(built: dict[str, Any], dimensions: int, bar: Progress) -> list[Row]:
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
    times = time_interleaved(calls, order, warmup=order[:WARMUP], progress=bar)
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


def fresh_figures(chunks: int, seed: int, dimensions: int, progress: bool) -> dict[str, Any]:
    """:func:`sized_figures` in a fresh interpreter."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        figures: dict[str, Any] = pool.apply(sized_figures, (chunks, seed, dimensions, progress))
    return figures


def sized_figures(chunks: int, seed: int, dimensions: int, progress: bool) -> dict[str, Any]:
    """One tenant of about ``chunks`` chunks: how much the process grew while building it,
    its raw size, and its median hybrid latency."""
    bar = Progress(progress, "anchors")
    built = one_tenant(chunks, seed, dimensions, bar)
    return {
        "chunks": len(built["chunks"]),
        "dimensions": dimensions,
        "grown": built["grown"],
        "raw": raw_bytes(built["chunks"], dimensions),
        "latency_ms": _latency_at(built, bar),
    }


def memory_row(figures: dict[str, Any], dimensions: int) -> Row:
    chunks, grown, raw = figures["chunks"], figures["grown"], figures["raw"]
    per = None if grown is None else grown / chunks
    note = (
        f"{chunks} chunks, {dimensions}-d, built in a fresh process (growth of its resident "
        f"set, less the bench's own list of the chunks); raw {raw / chunks:.0f} bytes/chunk"
    )
    return Row("index memory per chunk", per, "raw sizes", raw / chunks, "bytes", 1.5, note)


def fits_row(figures: dict[str, Any]) -> Row:
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
        warmup=queries[:WARMUP],
        progress=bar,
    )
    return float(np.median(times["hybrid"]))
