"""Markdown rendering of a latency report (see :mod:`ragward.bench.latency`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tabulate import tabulate

__all__ = ["SINGLE_PASSES", "ratio", "render_markdown", "significant"]

SINGLE_PASSES = {
    "einsum": 'np.einsum("ij,j->i", matrix, q)',
    "matmul": "matrix @ q",
    "sum_of_products": "np.sum(matrix * q, axis=1)",
}


def significant(value: float, digits: int = 3) -> float:
    """``value`` rounded to ``digits`` significant digits."""
    if value == 0 or not math.isfinite(value):
        return float(value)
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def ratio(numerator: float, denominator: float) -> float | None:
    return significant(numerator / denominator) if denominator > 0 else None


def _row(name: str, stats: dict[str, Any], *extra: object) -> list[object]:
    return [name, stats["queries"], stats["median_ms"], stats["p95_ms"], stats["mean_ms"], *extra]


_HEAD = ["", "queries", "median ms", "p95 ms", "mean ms"]


def _table(rows: list[list[object]], head: Sequence[str]) -> str:
    return tabulate(rows, headers=list(head), tablefmt="github")


def render_markdown(report: dict[str, Any]) -> str:
    """The report as markdown tables (deterministic for a given report)."""
    config, machine, ingest = report["config"], report["machine"], report["ingest"]
    anchors, tenants = report["anchors"], report["tenants"]
    reference = report["reference"]
    big = config["queried_tenant"]
    policy = config["policy"]
    out: list[str] = [
        "# Latency benchmark",
        "",
        f"Corpus: {config['chunks']} chunks in {config['documents']} documents, "
        f"{len(config['tenants'])} tenants (seed {config['seed']}). Queries go to the largest "
        f"tenant `{big}` ({config['tenants'][big]} chunks), asked by principals of every "
        f"clearance, under the default policy (candidate_limit {policy['candidate_limit']}, "
        f"result_limit {policy['result_limit']}, no freshness contract); embedder "
        f"`{config['embedder']}`. Every figure is per query, wall clock "
        "(`time.perf_counter`), after a warm-up; series compared in one table take turns "
        "query by query.",
        "",
        f"Machine: {machine['cpu']}, {machine['cpu_count']} CPUs, {machine['platform']}, "
        f"Python {machine['python']}, numpy {machine['numpy']}; load average (1 min) "
        f"{machine['load_average_1min_start']} at the start, "
        f"{machine['load_average_1min_end']} at the end.",
        "",
        f"Ingest: reference {ingest['reference_seconds']} s "
        f"({ingest['reference_chunks_per_second']:.0f} chunks/s), plain loop "
        f"{ingest['plain_loop_seconds']} s; corpus generation "
        f"{ingest['corpus_generation_seconds']} s.",
        "",
        "## Reference",
        "",
    ]
    rows = [_row(label, stats) for label, stats in reference.items()]
    rows.append(
        _row("hybrid, first pass after ingest", report["reference_first_pass_after_ingest"])
    )
    out += [_table(rows, ["mode", *_HEAD[1:]]), ""]

    plain = anchors["plain_loop"]
    out += [
        "## Anchor: plain per-chunk loop",
        "",
        f"The first {config['plain_loop_queries']} queries, each asked of both; results "
        f"identical (ids, order, scores within 1e-9, counts): "
        f"{'yes' if plain['identical_results'] else 'NO'}.",
        "",
    ]
    rows = [
        [
            mode,
            entry["plain_loop"]["queries"],
            entry["plain_loop"]["median_ms"],
            entry["reference"]["median_ms"],
            entry["speedup_median"],
            entry["plain_loop"]["mean_ms"],
            entry["reference"]["mean_ms"],
            entry["speedup_mean"],
        ]
        for mode, entry in plain["modes"].items()
    ]
    head = ["mode", "queries", "loop median ms", "reference median ms", "speedup (median)",
            "loop mean ms", "reference mean ms", "speedup (mean)"]  # fmt: skip
    out += [_table(rows, head), ""]

    bm25s = anchors["bm25s"]
    out += ["## Anchor: bm25s (BM25 alone)", ""]
    if bm25s.get("status") != "measured":
        out += [f"bm25s: {bm25s.get('status', 'not measured')} (`pip install bm25s`).", ""]
    else:
        out += [
            f"bm25s {bm25s['version']} over the same {config['tenants'][big]} chunks of "
            f"`{big}`, tokenized by ragward's tokenizer, Lucene IDF, same k1 and b, top "
            f"{bm25s['top_k']}; its index took {bm25s['index_seconds']} s to build (it "
            "precomputes every term-chunk score at index time). bm25s has no per-principal "
            "statistics, so the reference is asked in lexical mode without rerank by a "
            "principal who sees the whole tenant: the eligible view is then the tenant and "
            "both compute the same BM25 (mean Jaccard overlap of the returned sets: "
            f"{bm25s['topk_jaccard_vs_reference']}). The reference still computes the "
            "eligibility mask and N, avgdl and df over it on every query.",
            "",
        ]
        rows = [
            _row("bm25s retrieve", bm25s["query"], 1.0, 1.0),
            _row(
                "reference, lexical, no rerank",
                bm25s["reference_lexical_no_rerank"],
                bm25s["reference_over_bm25s_median"],
                bm25s["reference_over_bm25s_mean"],
            ),
        ]
        out += [_table(rows, ["", *_HEAD[1:], "x bm25s (median)", "x bm25s (mean)"]), ""]

    dense = anchors["dense_single_pass"]
    out += [
        "## Anchor: one pass over the vector matrix (dense floor)",
        "",
        f"`{big}`'s matrix: {dense['rows']} x {dense['dimensions']} float64 "
        f"({dense['matrix_mb']} MB); the fastest single pass, "
        f"`{SINGLE_PASSES[dense['floor']]}`, reads it at {dense['floor_gb_per_s']} GB/s "
        "(median). `einsum` and the sum of products run on one core; `matrix @ q` calls "
        "BLAS, which may use several threads (and suffers most when the machine is busy).",
        "",
    ]
    floor_ms = dense["single_passes"][dense["floor"]]["median_ms"]
    rows = [
        _row(f"`{SINGLE_PASSES[label]}`", stats, ratio(stats["median_ms"], floor_ms))
        for label, stats in dense["single_passes"].items()
    ]
    rows.append(
        _row(
            "reference, dense, no rerank",
            dense["reference_dense_no_rerank"],
            dense["reference_over_floor_median"],
        )
    )
    out += [_table(rows, ["", *_HEAD[1:], "x fastest single pass (median)"]), ""]

    out += [
        "## Cost follows the tenant, not the corpus",
        "",
        "Hybrid, default policy, principals of every clearance.",
        "",
    ]
    rows = [
        [r["tenant"], r["chunks"], r["queries"], r["median_ms"], r["p95_ms"], r["mean_ms"],
         r["us_per_1k_chunks"]]
        for r in tenants["hybrid_by_tenant"]
    ]  # fmt: skip
    head = ["tenant", "chunks", "queries", "median ms", "p95 ms", "mean ms",
            "median µs per 1k chunks"]  # fmt: skip
    small = tenants["hybrid_by_tenant"][-1]["tenant"]
    out += [
        _table(rows, head),
        "",
        f"The largest tenant has {tenants['largest_over_smallest_chunks']}x the chunks of the "
        f"smallest and {tenants['largest_over_smallest_median']}x its median latency. The "
        f"smallest tenant `{small}`, asked the same queries in the full retriever and alone "
        "in a fresh one (taking turns):",
        "",
        _table(
            [
                _row(f"{small} in the full corpus", tenants["smallest_in_corpus"], 1.0),
                _row(
                    f"{small} alone",
                    tenants["smallest_alone"],
                    ratio(
                        tenants["smallest_alone"]["median_ms"],
                        tenants["smallest_in_corpus"]["median_ms"],
                    ),
                ),
            ],
            ["", *_HEAD[1:], "x full corpus (median)"],
        ),
        "",
    ]

    writes = report["write_then_read"]
    out += [
        "## A write, then a read",
        "",
        f"{writes['rounds']} rounds of: upsert one document of `{big}` (a newer version), "
        "then the same hybrid query twice.",
        "",
        _table(
            [
                _row("upsert (one document)", writes["upsert"]),
                _row("first query after the upsert", writes["hybrid_first_query_after"]),
                _row("second query (same)", writes["hybrid_second_query_after"]),
            ],
            _HEAD,
        ),
        "",
        f"First / second (median): {writes['first_over_second_median']}x.",
    ]
    return "\n".join(out) + "\n"


# -- command line ------------------------------------------------------------------------
