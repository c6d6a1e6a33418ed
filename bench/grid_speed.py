"""How much the grid's reuse saves: one index per index setting and first stages shared
across settings, against rebuilding everything per setting.

    python -m ragward.bench.grid_speed [--dataset DIR] [--grid FILE.toml] [--out DIR]

The anchor ("rebuild") is what a grid without reuse does: for every retrieval setting a
fresh system, the whole corpus ingested, every question asked with ``retrieve``. Both
ways run in the same process on the same data; the answers are checked to be identical
before any time is reported. Writes ``grid.md`` and ``grid.json`` under ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ragward.datasets import bundled
from ragward.engines.reference import reference_factory
from ragward.evals.datasets import load_dataset
from ragward.evals.grid import Grid
from ragward.evals.grid_file import default_grid, load_grid
from ragward.evals.records import Dataset
from ragward.evals.runner import GridOutcome, run_grid
from ragward.outputs import write_atomic

__all__ = ["main", "measure_grid", "measure_in_child", "phase_text"]


def _rebuild(dataset: Dataset, grid: Grid, split: str) -> GridOutcome:
    outcome = GridOutcome(settings=grid.all_settings())
    for setting in grid.all_settings():
        single = Grid(
            name=grid.name,
            split=split,
            depth=grid.depth,
            measures=grid.measures,
            grounding_depth=grid.grounding_depth,
            indexes=(setting.index,),
            modes=(setting.mode,),
            rrf_ks=(setting.rrf_k,) if setting.rrf_k is not None else grid.rrf_ks,
            reranks=(setting.reranker,),
            candidate_limits=(setting.candidate_limit,),
            min_overlaps=grid.min_overlaps,
        )
        one = run_grid(
            dataset, single, reference_factory, splits=(split,), reuse=False, stream=io.StringIO()
        )
        outcome.answers.update(one.answers)
        for phase, seconds in one.seconds.items():
            outcome.seconds[phase] = outcome.seconds.get(phase, 0.0) + seconds
        outcome.verdicts.update(one.verdicts)
        outcome.gold = one.gold
    return outcome


def measure_grid(dataset: Dataset, grid: Grid, split: str, mode: str) -> dict[str, Any]:
    """Run ``grid`` one way (``"reuse"`` or ``"rebuild"``): seconds, work and a digest of
    every answer and grounding verdict (equal digests: the two ways answered alike)."""
    started = time.perf_counter()
    if mode == "reuse":
        outcome = run_grid(dataset, grid, reference_factory, splits=(split,), stream=io.StringIO())
    else:
        outcome = _rebuild(dataset, grid, split)
    seconds = time.perf_counter() - started
    answers = {
        setting.id: (
            {k: list(a.ranking) for k, a in sorted(outcome.answers[setting.id].items())},
            {
                f"{t:g}": dict(sorted(v.items()))
                for t, v in sorted(outcome.verdicts.get(setting.id, {}).items())
            },
        )
        for setting in grid.all_settings()
    }
    digest = hashlib.sha256(json.dumps(answers, sort_keys=True).encode()).hexdigest()
    return {
        "seconds": seconds,
        "digest": digest,
        "work": outcome.work,
        "phases": outcome.seconds,
        "questions": len(next(iter(outcome.answers.values()))),
    }


def measure_in_child(
    mode: str,
    dataset: Path | None,
    grid: Path | None,
    split: str | None = None,
    claims: Sequence[str] = (),
) -> dict[str, Any]:
    """:func:`measure_grid` one way in a fresh Python process: nothing the other way
    warmed (a cache of tokens, say) is carried over. ``claims`` as ``SPLIT=FILE``."""
    child = [sys.executable, "-m", "ragward.bench.grid_speed", "--only", mode]
    for flag, value in (("--dataset", dataset), ("--grid", grid), ("--split", split)):
        if value is not None:
            child += [flag, str(value)]
    for item in claims:
        child += ["--claims", item]
    done = subprocess.run(child, capture_output=True, text=True, check=True)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def phase_text(phases: dict[str, float]) -> str:
    """A grid run's seconds by phase, the phases it spent time in, largest first."""
    spent = sorted(((s, p) for p, s in phases.items() if s >= 0.05), reverse=True)
    return ", ".join(f"{phase.replace('_', ' ')} {seconds:.1f} s" for seconds, phase in spent)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ragward.bench.grid_speed")
    parser.add_argument("--dataset", type=Path)
    parser.add_argument("--grid", type=Path)
    parser.add_argument("--split")
    parser.add_argument("--claims", metavar="SPLIT=FILE", action="append", default=[])
    parser.add_argument("--out", type=Path, default=Path("reports/bench"))
    parser.add_argument("--repeat", type=int, default=3, help="best of N, each in a fresh process")
    parser.add_argument("--only", choices=("reuse", "rebuild"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    claims = dict(item.split("=", 1) for item in args.claims)
    dataset = load_dataset(args.dataset or bundled(), claims=claims or None)
    grid = load_grid(args.grid) if args.grid else default_grid()
    split = args.split or grid.split
    if args.only:  # a child: one way, cold caches, figures on stdout
        print(json.dumps(measure_grid(dataset, grid, split, args.only)))
        return 0
    runs: dict[str, list[dict[str, Any]]] = {"reuse": [], "rebuild": []}
    for _ in range(args.repeat):
        for mode in runs:
            runs[mode].append(
                measure_in_child(mode, args.dataset, args.grid, args.split, args.claims)
            )
    digests = {run["digest"] for mode in runs for run in runs[mode]}
    if len(digests) != 1:
        print("answers differ between the two ways", file=sys.stderr)
        return 1
    reuse_s = min(run["seconds"] for run in runs["reuse"])
    rebuild_s = min(run["seconds"] for run in runs["rebuild"])
    work = runs["reuse"][0]["work"]
    figures = {
        "dataset": dataset.name,
        "split": split,
        "settings": len(grid.all_settings()),
        "indexes": len(grid.indexes),
        "questions": runs["reuse"][0]["questions"],
        "reuse_seconds": round(reuse_s, 2),
        "rebuild_seconds": round(rebuild_s, 2),
        "speedup": round(rebuild_s / reuse_s, 1),
        "work_reuse": work,
    }
    rows = [
        ["grid with reuse", figures["reuse_seconds"], 1.0],
        ["rebuild per setting (anchor)", figures["rebuild_seconds"], figures["speedup"]],
    ]
    text = (
        f"# Eval grid: reuse against rebuilding per setting\n\n"
        f"`python -m ragward.bench.grid_speed` on `{dataset.name}` split `{split}`: "
        f"{figures['settings']} retrieval settings over {figures['indexes']} indexes, "
        f"{figures['questions']} questions (queries and claim queries), "
        f"{len(dataset.split_claims(split))} claims grounded at "
        f"{len(grid.min_overlaps)} thresholds. Best of {args.repeat}, each way in a fresh "
        f"process (no warm caches carried over); the answers and grounding verdicts of both "
        f"ways were checked identical (one digest).\n\n"
        + tabulate(rows, headers=["", "seconds", "x slower than reuse"], tablefmt="github")
        + f"\n\nWork done with reuse: {json.dumps(work)}.\n\n"
        + "Seconds by phase (the best run of each way): "
        + "; ".join(
            f"{way}: {phase_text(min(runs[way], key=lambda r: r['seconds'])['phases'])}"
            for way in runs
        )
        + ".\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "grid.md", text)
    write_atomic(args.out / "grid.json", json.dumps(figures, indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
