"""Throughput, latency and memory of any implementation, through the adapter contract.

``ragward bench`` builds one system with the adapter's factory (the reference's by
default, ``--impl pkg.module:factory`` or ``--external "CMD"`` for another), ingests a
generated corpus of several tenants, classifications and barriers into it document by
document, then asks it questions in each retrieval mode it declares, as principals of
every clearance. It reports ingest throughput, per-query p50/p95/mean, and how much the
process grew while the index was built and first read (an external peer's memory is its
own process's, not measured here). Every figure goes through the contract's verbs alone,
so two implementations benchmarked alike are compared on the same work.

    ragward bench [--impl SPEC | --external CMD] [--chunks N] [--queries N] [--out DIR]

writes ``DIR/<name>.json`` and ``DIR/<name>.md`` (default ``reports/bench``, name
``reference`` or the adapter's). The anchor suite (``--anchors``) measures the reference
against bm25s, one matrix product and plain loops.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ragward.bench.corpus import Corpus, Query, generate_corpus, generate_queries
from ragward.bench.measure import Progress, describe_machine, load_average, summary_stats
from ragward.conformance.contract import Factory, RetrievalSystem
from ragward.conformance.loading import check_built
from ragward.conformance.records import Doc, Policy
from ragward.engines.reference_records import kit_asker, kit_doc
from ragward.outputs import write_atomic

__all__ = ["SystemBench", "render_markdown", "run_system_bench"]

#: Warm-up questions per mode, asked before its timed series (a separate sample).
_WARMUP = 10


@dataclass(frozen=True)
class SystemBench:
    """What to generate and ask: the corpus size, the questions per mode, the seed."""

    chunks: int = 20_000
    queries: int = 200
    seed: int = 0


def resident_bytes() -> int | None:
    """This process's resident set size now (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path("/proc/self/statm").read_text(encoding="ascii").split()
    except OSError:
        return None
    import os

    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE")


def run_system_bench(
    factory: Factory,
    name: str,
    settings: SystemBench = SystemBench(),
    *,
    in_process: bool = True,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Benchmark the system ``factory`` builds; the report as a JSON-ready mapping."""
    progress = progress or Progress(False)
    machine = describe_machine()
    progress.stage("generating the corpus")
    corpus = generate_corpus(settings.chunks, seed=settings.seed)
    docs = [kit_doc(d) for d in corpus.documents]
    gc.collect()
    before = resident_bytes() if in_process else None
    system = factory()
    capabilities = check_built(system, "the factory")
    progress.stage(f"ingesting {len(docs)} documents")
    ingest_ms = _ingest(system, docs, progress)
    text_bytes = sum(len(d.text.encode("utf-8")) + len(d.title.encode("utf-8")) for d in docs)
    modes: dict[str, Any] = {}
    for mode in capabilities.modes:
        for rerank in (True, False):
            label = mode if rerank else f"{mode}_no_rerank"
            progress.stage(f"asking in {label}")
            timings = _ask(system, corpus, settings, Policy(mode=mode, rerank=rerank), progress)
            modes[label] = summary_stats(timings)
    gc.collect()
    after = resident_bytes() if in_process else None
    progress.done()
    total_s = sum(ingest_ms) / 1000.0
    grown = None if before is None or after is None else after - before
    return {
        "name": name,
        "corpus": {
            "documents": len(docs),
            "target_chunks": corpus.target_chunks,
            "tenants": len(corpus.tenants),
            "text_bytes": text_bytes,
            "seed": settings.seed,
        },
        "ingest": {
            "seconds": round(total_s, 3),
            "documents_per_second": round(len(docs) / total_s, 1) if total_s else None,
            "text_mb_per_second": round(text_bytes / 1e6 / total_s, 2) if total_s else None,
            "per_document": summary_stats(ingest_ms),
        },
        "retrieve": modes,
        "memory": {
            "measured": grown is not None,
            "resident_growth_bytes": grown,
            "bytes_per_text_byte": None if grown is None else round(grown / text_bytes, 2),
            "bytes_per_target_chunk": None
            if grown is None
            else round(grown / corpus.target_chunks),
        },
        "machine": {**machine, "load_average_1min_end": load_average()},
    }


def _ingest(system: RetrievalSystem, docs: Sequence[Doc], progress: Progress) -> list[float]:
    timings = []
    for n, doc in enumerate(docs, 1):
        begin = time.perf_counter()
        system.ingest(doc)
        timings.append((time.perf_counter() - begin) * 1000.0)
        progress.tick(n, len(docs))
    return timings


def _ask(
    system: RetrievalSystem,
    corpus: Corpus,
    settings: SystemBench,
    policy: Policy,
    progress: Progress,
) -> list[float]:
    warmup = generate_queries(corpus, _WARMUP, seed=settings.seed + 1)
    queries = generate_queries(corpus, settings.queries, seed=settings.seed)
    ask: Callable[[Query], object] = lambda q: system.retrieve(  # noqa: E731
        q.text, kit_asker(q.principal), q.now_tick, policy
    )
    for query in warmup:
        ask(query)
    gc.collect()
    timings = []
    for n, query in enumerate(queries, 1):
        begin = time.perf_counter()
        ask(query)
        timings.append((time.perf_counter() - begin) * 1000.0)
        progress.tick(n, len(queries))
    return timings


def render_markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown page."""
    corpus, ingest, memory = report["corpus"], report["ingest"], report["memory"]
    machine = report["machine"]
    rows = [
        [label, s["queries"], s["median_ms"], s["p95_ms"], s["mean_ms"]]
        for label, s in report["retrieve"].items()
    ]
    if memory["measured"]:
        grown = memory["resident_growth_bytes"] / 1e6
        memory_line = (
            f"The process grew by {grown:.1f} MB while the index was built and first read: "
            f"{memory['bytes_per_text_byte']} bytes per byte of text, "
            f"{memory['bytes_per_target_chunk']} bytes per generated chunk (resident set "
            "size; what the allocator keeps counts too)."
        )
    else:
        memory_line = "Memory: not measured (the system runs in another process)."
    lines = [
        f"# Benchmark of `{report['name']}` through the adapter contract",
        "",
        f"Generated by `ragward bench`: {corpus['documents']} documents (about "
        f"{corpus['target_chunks']} chunks, {corpus['text_bytes'] / 1e6:.1f} MB of text) in "
        f"{corpus['tenants']} tenants, seed {corpus['seed']}, ingested one by one, then asked "
        "by principals of every clearance in each mode the adapter declares, after a warm-up.",
        "",
        f"Machine: {machine['cpu']}, {machine['cpu_count']} CPUs, Python {machine['python']}; "
        f"load average {machine['load_average_1min_start']} at the start, "
        f"{machine['load_average_1min_end']} at the end.",
        "",
        f"Ingest: {ingest['seconds']} s, {ingest['documents_per_second']} documents/s "
        f"({ingest['text_mb_per_second']} MB of text/s); per document median "
        f"{ingest['per_document']['median_ms']} ms, p95 {ingest['per_document']['p95_ms']} ms.",
        "",
        memory_line,
        "",
        tabulate(
            rows,
            headers=("mode", "queries", "median ms", "p95 ms", "mean ms"),
            tablefmt="github",
        ),
        "",
    ]
    return "\n".join(lines)


def write_report(report: dict[str, Any], out: Path) -> tuple[Path, Path]:
    """``out/<name>.json`` and ``.md``, each written whole or not at all."""
    stem = out / report["name"]
    json_path, md_path = stem.with_suffix(".json"), stem.with_suffix(".md")
    write_atomic(json_path, json.dumps(report, indent=2, sort_keys=True) + "\n")
    write_atomic(md_path, render_markdown(report))
    return json_path, md_path
