"""Query latency of the reference retriever, against anchors measured in the same run.

SPEC §6: speed is reported as ratios against anchors run on the same data in the same
process: the plain per-chunk loop (:mod:`ragward.bench.plainloop`), ``bm25s`` for BM25
(when installed) and a single pass over the tenant's vector matrix for exact dense
search. It also shows that a query's cost follows the size of the asker's tenant, not the
corpus, and what a write costs the next read.

    python -m ragward.bench.latency [--chunks N] [--queries N] [--out DIR]

writes ``DIR/latency.json`` and ``DIR/latency.md`` (default ``reports/bench``).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragward.bench.corpus import Corpus, Query, generate_corpus, generate_queries, omniscient
from ragward.bench.latency_report import SINGLE_PASSES, ratio, render_markdown
from ragward.bench.measure import (
    Progress,
    describe_machine,
    load_average,
    rounded,
    summary_stats,
    time_interleaved,
)
from ragward.bench.plainloop import PlainLoopRetriever
from ragward.exits import run_guarded
from ragward.outputs import check_directory, write_atomic
from ragward.reference import (
    MODES,
    AuthorizedRetriever,
    Chunk,
    ReferenceDoc,
    ReferencePolicy,
    RetrievalResult,
    tokenize,
)

__all__ = ["main", "parser_of", "run_latency"]

Retrieve = Callable[[Query], RetrievalResult]

#: Queries per tenant in the tenant-size table (at most the ``queries`` asked for).
_TENANT_QUERIES = 50
#: Warm-up queries (a separate sample) before each timed series.
_WARMUP = 10
#: The single passes over the vector matrix that floor exact dense search.
#: Rounds of "upsert one document, then ask one question".
_UPSERT_ROUNDS = 30


# -- measuring ---------------------------------------------------------------------------


def _retriever_call(
    retriever: AuthorizedRetriever | PlainLoopRetriever, policy: ReferencePolicy
) -> Retrieve:
    def call(query: Query) -> RetrievalResult:
        return retriever.retrieve(
            query.text, query.principal, now_tick=query.now_tick, policy=policy
        )

    return call


def _ingest_all(
    retriever: AuthorizedRetriever | PlainLoopRetriever,
    documents: Sequence[ReferenceDoc],
    progress: Progress,
) -> tuple[float, list[tuple[Chunk, ...]]]:
    chunks: list[tuple[Chunk, ...]] = []
    start = time.perf_counter()
    for i, document in enumerate(documents):
        chunks.append(retriever.ingest(document))
        progress.tick(i + 1, len(documents))
    return time.perf_counter() - start, chunks


def _same_results(a: RetrievalResult, b: RetrievalResult) -> bool:
    return (
        [s.chunk.chunk_id for s in a.chunks] == [s.chunk.chunk_id for s in b.chunks]
        and all(
            math.isclose(x.score, y.score, rel_tol=1e-9, abs_tol=1e-12)
            for x, y in zip(a.chunks, b.chunks, strict=True)
        )
        and (a.degraded, a.considered, a.excluded_by_entitlement, a.excluded_by_freshness)
        == (b.degraded, b.considered, b.excluded_by_entitlement, b.excluded_by_freshness)
    )


# -- anchors -----------------------------------------------------------------------------


def _bm25s_engine(texts: Sequence[str], k1: float, b: float) -> tuple[Any, str, float] | None:
    """A bm25s index over ``texts`` (ragward's tokenizer, Lucene IDF), its version and
    build time; None when bm25s is not installed."""
    try:
        bm25s: Any = importlib.import_module("bm25s")
    except ImportError:
        return None
    engine = bm25s.BM25(k1=k1, b=b, method="lucene")
    begin = time.perf_counter()
    engine.index([tokenize(t) for t in texts], show_progress=False)
    return engine, str(getattr(bm25s, "__version__", "unknown")), time.perf_counter() - begin


def _jaccard(ours: Sequence[RetrievalResult], theirs: Sequence[Any], ids: Sequence[str]) -> float:
    """Mean Jaccard overlap of the returned sets (bm25s scores in float32, so near ties
    may order differently)."""
    overlaps = []
    for result, found in zip(ours, theirs, strict=True):
        mine = {s.chunk.chunk_id for s in result.chunks}
        other = {
            ids[int(d)]
            for d, score in zip(found.documents[0], found.scores[0], strict=True)
            if float(score) > 0.0
        }
        if mine or other:
            overlaps.append(len(mine & other) / len(mine | other))
    return float(np.mean(overlaps)) if overlaps else 1.0


# -- the run -----------------------------------------------------------------------------


def _call(retriever: AuthorizedRetriever | PlainLoopRetriever, policy: ReferencePolicy) -> Retrieve:
    return _retriever_call(retriever, policy)


def run_latency(
    out_dir: Path,
    chunks: int = 100_000,
    queries: int = 200,
    seed: int = 0,
    progress: bool = True,
    *,
    loop_queries: int | None = None,
) -> dict[str, Any]:
    """Build the corpus, measure the reference and its anchors, write the reports.

    ``queries`` questions (to the largest tenant, askers of every clearance) are timed one
    by one with :func:`time.perf_counter` after a warm-up, the series being compared taking
    turns query by query; the plain loop, being slow, gets the first ``loop_queries`` of
    them (default ``max(1, min(20, queries // 10))``). Writes ``out_dir/latency.json`` and
    ``out_dir/latency.md`` and returns the JSON's content.
    """
    if chunks < 1 or queries < 1:
        raise ValueError(f"chunks and queries must be >= 1, got {chunks} and {queries}")
    n_loop = min(loop_queries or max(1, min(20, queries // 10)), queries)
    bar = Progress(progress)
    policy = ReferencePolicy()
    machine = describe_machine()

    bar.stage(f"generating a corpus of ~{chunks} chunks")
    begin = time.perf_counter()
    corpus = generate_corpus(chunks, seed=seed)
    generation_seconds = time.perf_counter() - begin
    big, small = corpus.tenants[0], corpus.tenants[-1]
    asked = generate_queries(corpus, queries, seed=seed, tenant=big)
    warmup = generate_queries(corpus, _WARMUP, seed=seed + 1, tenant=big)

    bar.stage("ingest: reference")
    reference = AuthorizedRetriever()
    reference_seconds, ingested = _ingest_all(reference, corpus.documents, bar)
    per_tenant: dict[str, int] = dict.fromkeys(corpus.tenants, 0)
    big_chunks: list[Chunk] = []
    for document, produced in zip(corpus.documents, ingested, strict=True):
        per_tenant[document.tenant] += len(produced)
        if document.tenant == big:
            big_chunks.extend(produced)
    del ingested

    bar.stage("ingest: plain loop")
    loop = PlainLoopRetriever()
    loop_seconds, _ = _ingest_all(loop, corpus.documents, bar)

    # The first pass after ingest pays for index state that is built lazily.
    bar.stage("reference, first pass after ingest (hybrid)")
    cold = time_interleaved({"hybrid": _call(reference, policy)}, asked, progress=bar)["hybrid"]

    bar.stage("reference, every mode, rerank on and off")
    modes = {
        (mode if rerank else f"{mode}_no_rerank"): _call(
            reference, dataclasses.replace(policy, mode=mode, enable_rerank=rerank)
        )
        for mode in MODES
        for rerank in (True, False)
    }
    results = time_interleaved(modes, asked, warmup=[*warmup, *asked], progress=bar)

    bar.stage(f"plain loop and reference, {n_loop} queries")
    subset = asked[:n_loop]
    pairs: dict[str, Callable[[Any], object]] = {}
    for mode in MODES:
        mode_policy = dataclasses.replace(policy, mode=mode)
        pairs[f"loop/{mode}"] = _call(loop, mode_policy)
        pairs[f"reference/{mode}"] = _call(reference, mode_policy)
    answers: dict[str, list[Any]] = {}
    paired = time_interleaved(pairs, subset, warmup=warmup[:1], progress=bar, outputs=answers)
    identical = all(
        _same_results(mine, theirs)
        for mode in MODES
        for mine, theirs in zip(answers[f"reference/{mode}"], answers[f"loop/{mode}"], strict=True)
    )
    del loop, answers
    gc.collect()

    # BM25 alone, asked by someone who sees the whole tenant (bm25s has no principals).
    everyone = omniscient(big)
    as_everyone = [dataclasses.replace(q, principal=everyone) for q in asked]
    warm_everyone = [dataclasses.replace(q, principal=everyone) for q in warmup]
    lexical_only = dataclasses.replace(policy, mode="lexical", enable_rerank=False)
    lexical_calls: dict[str, Callable[[Any], object]] = {
        "reference": _call(reference, lexical_only)
    }
    bar.stage("bm25s index")
    built = _bm25s_engine([c.text for c in big_chunks], reference.bm25.k1, reference.bm25.b)
    top_k = min(lexical_only.result_limit, len(big_chunks))
    if built is not None:
        engine = built[0]

        def bm25s_call(query: Query) -> Any:
            return engine.retrieve(
                [tokenize(query.text)], k=top_k, show_progress=False, n_threads=0
            )

        lexical_calls["bm25s"] = bm25s_call
    bar.stage("BM25: reference lexical (no rerank) and bm25s")
    lexical_answers: dict[str, list[Any]] = {}
    lexical = time_interleaved(
        lexical_calls, as_everyone, warmup=warm_everyone, progress=bar, outputs=lexical_answers
    )
    bm25s_anchor: dict[str, Any] = {"status": "not installed"}
    if built is not None:
        bm25s_anchor = {
            "status": "measured",
            "version": built[1],
            "index_seconds": rounded(built[2], 2),
            "top_k": top_k,
            "topk_jaccard_vs_reference": rounded(
                _jaccard(
                    lexical_answers["reference"],
                    lexical_answers["bm25s"],
                    [c.chunk_id for c in big_chunks],
                )
            ),
        }
    del lexical_answers

    # Exact dense search against one pass over the same tenant's vector matrix.
    embedder = reference.embedder
    matrix = np.ascontiguousarray(embedder.embed([c.text for c in big_chunks]), dtype=np.float64)
    vectors = embedder.embed([q.text for q in [*asked, *warmup]])
    with_vectors = [
        (q, np.ascontiguousarray(v)) for q, v in zip([*asked, *warmup], vectors, strict=True)
    ]
    dense_only = dataclasses.replace(policy, mode="dense", enable_rerank=False)
    reference_dense = _call(reference, dense_only)
    dense_calls: dict[str, Callable[[Any], object]] = {
        "einsum": lambda pair: np.einsum("ij,j->i", matrix, pair[1]),
        "matmul": lambda pair: matrix @ pair[1],
        "sum_of_products": lambda pair: np.sum(matrix * pair[1], axis=1),
        "reference": lambda pair: reference_dense(pair[0]),
    }
    bar.stage("dense: single passes and the reference (dense, no rerank)")
    dense = time_interleaved(
        dense_calls, with_vectors[:queries], warmup=with_vectors[queries:], progress=bar
    )
    dense_shape = (int(matrix.shape[0]), int(matrix.shape[1]), float(matrix.nbytes))

    # Cost follows the asker's tenant: every tenant, then the smallest one alone.
    by_tenant: dict[str, list[float]] = {}
    small_queries: list[Query] = []
    hybrid = _call(reference, policy)
    for tenant in corpus.tenants:
        bar.stage(f"tenant {tenant} (hybrid)")
        tenant_queries = generate_queries(
            corpus, min(queries, _TENANT_QUERIES), seed=seed, tenant=tenant
        )
        small_queries = tenant_queries if tenant == small else small_queries
        by_tenant[tenant] = time_interleaved(
            {"hybrid": hybrid}, tenant_queries, warmup=tenant_queries, progress=bar
        )["hybrid"]
    bar.stage(f"tenant {small}: in the full retriever and alone in a fresh one")
    alone = AuthorizedRetriever()
    for document in corpus.documents_of(small):
        alone.ingest(document)
    isolation = time_interleaved(
        {"in_corpus": hybrid, "alone": _call(alone, policy)},
        small_queries,
        warmup=small_queries,
        progress=bar,
    )
    del alone

    # A write, then a read: what one upsert costs the next query (and the one after).
    bar.stage(f"upsert one document of {big}, then the same hybrid query twice")
    rounds = min(_UPSERT_ROUNDS, len(asked))
    writes: dict[str, list[float]] = {"upsert": [], "first": [], "second": []}
    documents = corpus.documents_of(big)
    for i in range(rounds):
        document = documents[i % len(documents)]
        newer = dataclasses.replace(
            document, version=(reference.version_of(big, document.doc_id) or 0) + 1
        )
        begin = time.perf_counter()
        reference.ingest(newer)
        writes["upsert"].append((time.perf_counter() - begin) * 1000.0)
        for label in ("first", "second"):
            begin = time.perf_counter()
            hybrid(asked[i])
            writes[label].append((time.perf_counter() - begin) * 1000.0)
        bar.tick(i + 1, rounds)
    bar.done()

    report = _report(
        machine={**machine, "load_average_1min_end": load_average()},
        corpus=corpus,
        chunks=chunks,
        per_tenant=per_tenant,
        seconds={
            "corpus_generation_seconds": generation_seconds,
            "reference_seconds": reference_seconds,
            "plain_loop_seconds": loop_seconds,
        },
        queries=queries,
        n_loop=n_loop,
        cold=cold,
        results=results,
        paired=paired,
        identical=identical,
        lexical=lexical,
        bm25s_anchor=bm25s_anchor,
        dense=dense,
        dense_shape=dense_shape,
        by_tenant=by_tenant,
        isolation=isolation,
        writes=writes,
        embedder=repr(embedder),
    )
    # Each file whole or not at all; the folder holds other benches' reports too.
    write_atomic(out_dir / "latency.json", json.dumps(report, indent=2, sort_keys=True) + "\n")
    write_atomic(out_dir / "latency.md", render_markdown(report))
    return report


def _report(
    *,
    machine: dict[str, Any],
    corpus: Corpus,
    chunks: int,
    per_tenant: dict[str, int],
    seconds: dict[str, float],
    queries: int,
    n_loop: int,
    cold: list[float],
    results: dict[str, list[float]],
    paired: dict[str, list[float]],
    identical: bool,
    lexical: dict[str, list[float]],
    bm25s_anchor: dict[str, Any],
    dense: dict[str, list[float]],
    dense_shape: tuple[int, int, float],
    by_tenant: dict[str, list[float]],
    isolation: dict[str, list[float]],
    writes: dict[str, list[float]],
    embedder: str,
) -> dict[str, Any]:
    total_chunks = sum(per_tenant.values())
    big, small = corpus.tenants[0], corpus.tenants[-1]
    plain = {}
    for mode in MODES:
        theirs, mine = (
            summary_stats(paired[f"loop/{mode}"]),
            summary_stats(paired[f"reference/{mode}"]),
        )
        plain[mode] = {
            "plain_loop": theirs,
            "reference": mine,
            "speedup_median": ratio(theirs["median_ms"], mine["median_ms"]),
            "speedup_mean": ratio(theirs["mean_ms"], mine["mean_ms"]),
        }
    reference_lexical = summary_stats(lexical["reference"])
    if "bm25s" in lexical:
        theirs = summary_stats(lexical["bm25s"])
        bm25s_anchor["query"] = theirs
        bm25s_anchor["reference_lexical_no_rerank"] = reference_lexical
        bm25s_anchor["reference_over_bm25s_median"] = ratio(
            reference_lexical["median_ms"], theirs["median_ms"]
        )
        bm25s_anchor["reference_over_bm25s_mean"] = ratio(
            reference_lexical["mean_ms"], theirs["mean_ms"]
        )
    rows, dimensions, nbytes = dense_shape
    passes = {label: summary_stats(dense[label]) for label in SINGLE_PASSES}
    floor = min(passes, key=lambda label: passes[label]["median_ms"])
    floor_ms = passes[floor]["median_ms"]
    reference_dense = summary_stats(dense["reference"])
    dense_anchor = {
        "rows": rows,
        "dimensions": dimensions,
        "matrix_mb": rounded(nbytes / 1e6, 1),
        "single_passes": passes,
        "floor": floor,
        "floor_gb_per_s": ratio(nbytes / 1e6, floor_ms),
        "reference_dense_no_rerank": reference_dense,
        "reference_over_floor_median": ratio(reference_dense["median_ms"], floor_ms),
    }
    tenant_rows = []
    for tenant, timings in by_tenant.items():
        stats = summary_stats(timings)
        tenant_rows.append(
            {
                "tenant": tenant,
                "chunks": per_tenant[tenant],
                **stats,
                "us_per_1k_chunks": rounded(
                    stats["median_ms"] * 1e6 / max(1, per_tenant[tenant]), 1
                ),
            }
        )
    in_corpus, alone = summary_stats(isolation["in_corpus"]), summary_stats(isolation["alone"])
    upsert, first, second = (summary_stats(writes[k]) for k in ("upsert", "first", "second"))
    return {
        "benchmark": "latency",
        "machine": machine,
        "config": {
            "target_chunks": chunks,
            "chunks": total_chunks,
            "documents": len(corpus.documents),
            "seed": corpus.seed,
            "tenants": per_tenant,
            "queried_tenant": big,
            "queries": queries,
            "plain_loop_queries": n_loop,
            "warmup_queries": _WARMUP,
            "embedder": embedder,
            "policy": dataclasses.asdict(ReferencePolicy()),
        },
        "ingest": {
            **{key: rounded(value, 2) for key, value in seconds.items()},
            "reference_chunks_per_second": rounded(total_chunks / seconds["reference_seconds"], 0),
        },
        "reference": {label: summary_stats(timings) for label, timings in results.items()},
        "reference_first_pass_after_ingest": summary_stats(cold),
        "anchors": {
            "plain_loop": {"identical_results": identical, "modes": plain},
            "bm25s": bm25s_anchor,
            "reference_lexical_everyone_no_rerank": reference_lexical,
            "dense_single_pass": dense_anchor,
        },
        "tenants": {
            "hybrid_by_tenant": tenant_rows,
            "smallest_in_corpus": in_corpus,
            "smallest_alone": alone,
            "smallest_in_corpus_over_alone_median": ratio(
                in_corpus["median_ms"], alone["median_ms"]
            ),
            "largest_over_smallest_median": ratio(
                tenant_rows[0]["median_ms"], tenant_rows[-1]["median_ms"]
            ),
            "largest_over_smallest_chunks": ratio(per_tenant[big], per_tenant[small]),
        },
        "write_then_read": {
            "rounds": len(writes["upsert"]),
            "upsert": upsert,
            "hybrid_first_query_after": first,
            "hybrid_second_query_after": second,
            "first_over_second_median": ratio(first["median_ms"], second["median_ms"]),
        },
    }


def parser_of(prog: str = "python -m ragward.bench.latency") -> argparse.ArgumentParser:
    """The options of ``ragward bench``."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Measure the reference retriever's query latency against its anchors.",
    )
    parser.add_argument("--chunks", type=int, default=100_000, help="target corpus size")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per mode")
    parser.add_argument(
        "--loop-queries", type=int, default=None, help="queries for the (slow) plain loop"
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus and query seed")
    parser.add_argument("--out", type=Path, default=Path("reports/bench"), help="output folder")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m ragward.bench.latency") -> int:
    """``ragward bench`` / ``python -m ragward.bench.latency``; returns the exit code."""
    parser = parser_of(prog)
    args = parser.parse_args(argv)
    loop = 1 if args.loop_queries is None else args.loop_queries
    if min(args.chunks, args.queries, loop) < 1:
        parser.error("--chunks, --queries and --loop-queries must be >= 1")
    check_directory(args.out, "--out")  # before the corpus is built, not after
    report = run_latency(
        args.out,
        chunks=args.chunks,
        queries=args.queries,
        seed=args.seed,
        progress=not args.quiet,
        loop_queries=args.loop_queries,
    )
    sys.stdout.write(render_markdown(report))
    sys.stdout.write(f"\nwrote {args.out / 'latency.json'} and {args.out / 'latency.md'}\n")
    return 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench", main))
