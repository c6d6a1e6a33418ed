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
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ragward.bench.anchor_bm25 import bm25_rows, labelled_set
from ragward.bench.anchor_dense import (
    dense_rows,
    fits_row,
    fresh_figures,
    memory_row,
    one_tenant,
    raw_bytes,
)
from ragward.bench.anchor_rows import WARMUP, Row, render_markdown
from ragward.bench.corpus import Query, generate_corpus, generate_queries, omniscient
from ragward.bench.measure import Progress, describe_machine, load_average, time_interleaved
from ragward.outputs import write_atomic
from ragward.reference import AuthorizedRetriever, Chunk, Chunking, ReferenceAsker

# The rows and their table, and the BM25 and dense rows, are modules of their own
# (anchor_rows, anchor_bm25, anchor_dense); Row and raw_bytes are imported from here too.
__all__ = ["Row", "main_of", "raw_bytes", "render_markdown", "run_anchor_suite"]

#: The grid whose reuse the suite times.
_SCIFACT_GRID = Path(str(resources.files("ragward.evals").joinpath("grids/scifact.toml")))


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
        name, documents, texts = labelled_set(data)
        # One chunk per document, as a BEIR run ranks documents.
        whole = Chunking(max_tokens=1_000_000, overlap_tokens=0)
        retriever = AuthorizedRetriever(chunking=whole)
        bar.stage(f"ingesting {name} ({len(documents)} documents)")
        labelled = [c for d in documents for c in retriever.ingest(d)]
        asker = ReferenceAsker("all", "data", "restricted")
        rows += bm25_rows(name, retriever, labelled, asker, texts, 0, bar)
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
    rows += bm25_rows(
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

    built = one_tenant(chunks, seed, dimensions, bar)
    rows += dense_rows(built, dimensions, bar)
    del built
    gc.collect()
    # Memory and latency by size, each in a fresh interpreter: memory freed by an earlier
    # stage stays with this process's allocator and would hide a later index's growth.
    sized = {chunks: fresh_figures(chunks, seed, dimensions, progress)}
    rows.append(memory_row(sized[chunks], dimensions))
    for scale in scales:
        sized.setdefault(scale, fresh_figures(scale, seed, 96, progress))
    # The raw sizes are at 96-d: memory against them at the largest such scale.
    at_96 = [figures for figures in sized.values() if figures["dimensions"] == 96]
    if at_96:
        rows.append(memory_row(max(at_96, key=lambda figures: figures["chunks"]), 96))
    largest = max(sized)
    if largest >= 1_000_000:
        rows.append(fits_row(sized[largest]))
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
        warmup=queries[:WARMUP],
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
