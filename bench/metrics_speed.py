"""How fast ragward's trec_eval measures are, against ``pytrec_eval`` on the same run.

    python -m ragward.bench.metrics_speed [--queries N] [--docs N] [--repeat N] [--out DIR]

One synthetic qrels and scored run (seeded; 5,000 queries x 100 retrieved documents by
default, grades 0..3, scores with ties) are scored by both for ``recall_100``, ``P_10``,
``recip_rank`` and ``ndcg_cut_10``, in the same process; the per-query values are checked
to agree (1e-9) before any time is reported. Each figure is the best of ``--repeat`` runs
(``time.perf_counter``). ragward is timed from scores (its trec_eval ranking included,
like ``pytrec_eval.evaluate``) and from ranked lists (the harness's path).
Writes ``DIR/metrics.md`` (default ``reports/bench``).
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tabulate import tabulate

from ragward.evals.measures import evaluate_run, parse_measures
from ragward.evals.trec import rank_run
from ragward.outputs import write_atomic

__all__ = ["main"]

NAMES = ("recall_100", "P_10", "recip_rank", "ndcg_cut_10")


def synthetic(
    queries: int, docs: int, seed: int = 0
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels (20 judged per query, grades 0..3) and a run of ``docs`` per query."""
    rng = np.random.default_rng(seed)
    pool = np.array([f"doc{i}" for i in range(4 * docs)])
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(queries):
        judged = rng.choice(pool, size=20, replace=False)
        qrels[f"q{q}"] = {
            str(d): int(g) for d, g in zip(judged, rng.integers(0, 4, 20), strict=True)
        }
        retrieved = rng.choice(pool, size=docs, replace=False)
        scores = np.round(rng.random(docs), 2)  # two decimals: ties are common
        run[f"q{q}"] = {str(d): float(s) for d, s in zip(retrieved, scores, strict=True)}
    return qrels, run


def _best(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        begin = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - begin)
    return best, result


def measure(queries: int, docs: int, repeat: int) -> dict[str, Any]:
    """Time both evaluators on one synthetic run; the numbers behind the report."""
    qrels, run = synthetic(queries, docs)
    measures = parse_measures(NAMES)
    rankings = rank_run(run)
    rows: dict[str, float] = {}
    rows["ragward, from scores"], ours = _best(
        repeat, lambda: evaluate_run(measures, qrels, rank_run(run))
    )
    rows["ragward, from ranked lists"], _ = _best(
        repeat, lambda: evaluate_run(measures, qrels, rankings)
    )
    result: dict[str, Any] = {"rows": rows, "version": None, "agree": None}
    if importlib.util.find_spec("pytrec_eval") is not None:
        import pytrec_eval

        result["version"] = pytrec_eval.__version__
        rows["pytrec_eval, constructor"], evaluator = _best(
            repeat, lambda: pytrec_eval.RelevanceEvaluator(qrels, set(NAMES))
        )
        rows["pytrec_eval, evaluate"], theirs = _best(repeat, lambda: evaluator.evaluate(run))
        result["agree"] = all(
            abs(ours.per_query[q][n] - theirs[q][n]) <= 1e-9 for q in theirs for n in NAMES
        ) and set(theirs) == set(ours.per_query)
        if not result["agree"]:
            raise AssertionError("ragward and pytrec_eval disagree: no timing is reported")
    return result


def render(queries: int, docs: int, repeat: int, result: dict[str, Any]) -> str:
    """The markdown report."""
    rows: dict[str, float] = result["rows"]
    anchor = rows.get("pytrec_eval, evaluate")
    table = [
        [label, f"{seconds * 1000:.1f}", f"{seconds / anchor:.2f}" if anchor else "n/a"]
        for label, seconds in rows.items()
    ]
    version = result["version"] or "not installed"
    return "\n".join(
        [
            "# Ranking measures: ragward against pytrec_eval",
            "",
            f"Same synthetic qrels and run for both, in one process: {queries} queries x "
            f"{docs} retrieved documents (20 judged per query, grades 0..3, scores rounded "
            f"to 2 decimals so ties occur); measures {', '.join(NAMES)}. Best of {repeat} "
            "runs, wall clock. Per-query values agree within 1e-9: "
            f"{'yes' if result['agree'] else 'not checked'}.",
            "",
            f"Machine: {platform.processor() or platform.machine()}, {platform.platform()}, "
            f"Python {platform.python_version()}; pytrec_eval {version}.",
            "",
            "`from scores` ranks each query as trec_eval does (score, then document id "
            "descending) and then scores it, which is what `pytrec_eval.evaluate` does; "
            "`from ranked lists` is the harness's path (its rankings are already ordered). "
            "The `pytrec_eval` constructor reads the qrels once and is not part of the "
            "ratio's anchor.",
            "",
            tabulate(
                table, headers=["evaluator", "ms", "x pytrec_eval evaluate"], tablefmt="github"
            ),
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and write ``metrics.md``."""
    parser = argparse.ArgumentParser(prog="python -m ragward.bench.metrics_speed")
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("reports/bench"))
    args = parser.parse_args(argv)
    result = measure(args.queries, args.docs, args.repeat)
    text = render(args.queries, args.docs, args.repeat, result)
    args.out.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out / "metrics.md", text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
