"""The gate's power benchmark as ``power.json`` and ``power.md``.

Both are a function of the benchmark's arguments: rows in a fixed order, figures rounded,
no timestamps and no timings.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ragward.outputs import write_atomic

__all__ = ["FORMAT", "markdown", "report_data", "write_report"]

FORMAT = "ragward-gate-power/1"
ALPHA = 0.05


def report_data(
    measured: Mapping[str, Any], args: argparse.Namespace, command: str
) -> dict[str, Any]:
    """The report's content: per dataset its sample, grids and rows (or why it was
    skipped)."""
    datasets: list[dict[str, Any]] = []
    for name, found in measured.items():
        if isinstance(found, str):
            datasets.append({"name": name, "skipped": found})
            continue
        subject = found["subject"]
        queries = len(subject.dataset.split_queries(subject.split))
        claims = len(subject.dataset.split_claims(subject.split))
        rows: list[dict[str, Any]] = []
        tallies = found["tallies"]
        described = [("plant", *p) for p in found["plants"].items()]
        described += [("null", *n) for n in found["nulls"].items()]
        for kind, row, what in described:
            for size in args.sizes:
                if (row, size) in tallies:
                    entry = {"row": row, "kind": kind, "what": what, "size": size}
                    rows.append({**entry, "trials": args.trials, **tallies[row, size].data()})
        datasets.append(
            {
                "name": name,
                "split": subject.split,
                "documents": len(subject.dataset.docs),
                "queries": queries,
                "claims": claims,
                "sample_queries": queries // 2,
                "sample_claims": claims // 2,
                "grids": found["grids"],
                "hash_seeds": found["hash_seeds"],
                "reruns_identical": found["reruns_identical"],
                "rows": rows,
            }
        )
    return {
        "format": FORMAT,
        "command": command,
        "alpha": ALPHA,
        "trials": args.trials,
        "repeats": args.repeats,
        "sizes": list(args.sizes),
        "datasets": datasets,
    }


def write_report(out: Path, report: Mapping[str, Any]) -> str:
    """Write ``power.json`` and ``power.md`` under ``out``; the markdown is returned."""
    text = markdown(report)
    write_atomic(out / "power.json", json.dumps(report, indent=1) + "\n")
    write_atomic(out / "power.md", text)
    return text


def _percent(count: int, repeats: int) -> str:
    return f"{count / repeats:.0%} ({count}/{repeats})"


def _sizes(sizes: Sequence[int]) -> str:
    shown = [f"{size:,}" for size in sizes]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _detected(row: Mapping[str, Any]) -> str:
    """A plant's detection, and its failures on a leak where it had any."""
    shown = _percent(row["by_regression"], row["repeats"])
    return shown + (f"; leak {row['by_leak']}/{row['repeats']}" if row["by_leak"] else "")


def markdown(report: Mapping[str, Any]) -> str:
    """The report as markdown: per dataset, detection by plant and size, then the null
    rows' false failures."""
    lines = [
        "# ragward gate: power and false failures",
        "",
        f"Made by `{report['command']}`: alpha {report['alpha']:g}, "
        f"{report['trials']:,} randomization trials, {report['repeats']} repeats per row.",
        "",
        "Each regression is planted as a degraded implementation (`ragward.bench.degraded`) "
        "and evaluated by the harness like any implementation; the gate judges its results "
        "against the reference's. A repeat is a fresh draw: a random half of the split's "
        "queries and claims (the same half for both runs), a new seed for the noise plants "
        "(the other plants are one implementation each) and for the gate's randomization; "
        "on the whole split a fixed implementation would get the same verdict every time, "
        "on a half the rate says how likely a test set of that size is to catch it. "
        "**Detection** is the share of repeats in which the gate failed on a significant "
        "regression (a plant's failures on a leak are counted apart). The grids "
        "(`ragward.bench.power_grids`) make the gate compare "
        f"{_sizes(report['sizes'])} figures (settings x measures and grounding "
        "thresholds); each grid is part of the next, and one run of the largest answers all. "
        "Delta nDCG@10 is the current run's mean minus the baseline's, averaged over the "
        "grid's settings and the repeats.",
        "",
    ]
    for dataset in report["datasets"]:
        lines += [f"## {dataset['name']}", ""]
        if "skipped" in dataset:
            lines += [f"Not measured: {dataset['skipped'].removeprefix('skipped: ')}.", ""]
            continue
        lines += _dataset(dataset, report["sizes"])
    return "\n".join(lines)


def _dataset(dataset: Mapping[str, Any], sizes: Sequence[int]) -> list[str]:
    rows = dataset["rows"]
    lines = [
        f"Split `{dataset['split']}`: {dataset['documents']:,} documents, "
        f"{dataset['queries']} queries, {dataset['claims']} claims; each repeat judges "
        f"{dataset['sample_queries']} queries and {dataset['sample_claims']} claims.",
        "",
        "Detection by comparisons made:",
        "",
    ]
    plants = [r for r in rows if r["kind"] == "plant"]
    table = []
    for name in dict.fromkeys(r["row"] for r in plants):
        mine = {r["size"]: r for r in plants if r["row"] == name}
        largest = mine[max(mine)]
        table.append(
            [name, largest["what"], f"{largest['mean_ndcg10_delta']:+.4f}"]
            + [_detected(mine[s]) for s in sizes]
        )
    headers = ["plant", "what", f"delta nDCG@10 at {max(sizes)}", *map(str, sizes)]
    lines += [tabulate(table, headers=headers, tablefmt="github", disable_numparse=True), ""]
    lines += ["False failures (the gate failed although nothing changed):", ""]
    nulls = [r for r in rows if r["kind"] == "null"]
    table = []
    for name in dict.fromkeys(r["row"] for r in nulls):
        mine = {r["size"]: r for r in nulls if r["row"] == name}
        what = next(iter(mine.values()))["what"]
        table.append(
            [name, what, *(_percent(mine[s]["failed"], mine[s]["repeats"]) for s in sizes)]
        )
    headers = ["null row", "what", *map(str, sizes)]
    lines += [tabulate(table, headers=headers, tablefmt="github", disable_numparse=True), ""]
    identical = sum(dataset["reruns_identical"])
    seeds = ", ".join(map(str, dataset["hash_seeds"]))
    lines += [
        f"Re-runs identical to the baseline run in every answer and verdict: {identical} of "
        f"{len(dataset['reruns_identical'])} (PYTHONHASHSEED {seeds}). The second null row "
        f"may fail up to alpha of the time; the first must never.",
        "",
        "Every row at every size:",
        "",
    ]
    table = [
        [
            r["row"],
            r["comparisons"],
            r["trials"],
            _percent(r["by_regression"], r["repeats"]),
            r["by_leak"],
            r["mean_regressions"],
            f"{r['mean_ndcg10_delta']:+.4f}",
        ]
        for r in rows
    ]
    headers = [
        "row",
        "comparisons",
        "trials",
        "failed on a regression",
        "failed on a leak",
        "regressions found (mean)",
        "delta nDCG@10",
    ]
    lines += [tabulate(table, headers=headers, tablefmt="github", disable_numparse=True), ""]
    return lines
