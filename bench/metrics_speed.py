"""How fast ragward's trec_eval measures are, against ``pytrec_eval`` on the same run.

    python -m ragward.bench.metrics_speed [--queries N] [--docs N] [--repeat N] [--out DIR]

One synthetic qrels and scored run (seeded; 5,000 queries x 100 retrieved documents by
default, grades 0..3, scores with ties) are scored by both for ``recall_100``, ``P_10``,
``recip_rank`` and ``ndcg_cut_10``, in the same process; the per-query values are checked
to agree (1e-9) before any time is reported. Each figure is the best of ``--repeat`` runs
(``time.perf_counter``). ragward is timed from scores (``evaluate_scores``, which places
each relevant retrieved document by trec_eval's order, as ``pytrec_eval.evaluate`` takes
scores) and from ranked lists (the harness's path); the two give the same floats.
Writes ``DIR/metrics.md`` (default ``reports/bench``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tabulate import tabulate

from ragward.evals.measures import evaluate_run, evaluate_scores, parse_measures
from ragward.evals.trec import rank_run, write_qrels, write_scored_run
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
        repeat, lambda: evaluate_scores(measures, qrels, run)
    )
    rows["ragward, from ranked lists"], listed = _best(
        repeat, lambda: evaluate_run(measures, qrels, rankings)
    )
    if listed.per_query != ours.per_query:
        raise AssertionError("ragward from scores and from ranked lists disagree")
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


# The anchor command: pytrec_eval's own file readers and evaluator, printing the means
# as ``ragward metrics`` prints them.
_PYTREC_COMMAND = """
import sys, pytrec_eval
qrels_path, run_path, *names = sys.argv[1:]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
values = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
for name in names:
    mean = sum(v[name] for v in values.values()) / len(values)
    print(f"{name:<22}\\tall\\t{mean:.4f}")
"""


# Runs one command and prints its wall time, peak memory and output as JSON. A child keeps
# the peak of the process it was forked from, so commands are started from this small
# interpreter, not from the benchmark holding the synthetic run.
_TIMER = """
import json, os, subprocess, sys, tempfile, time
argv = json.loads(sys.argv[1])
with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    begin = time.perf_counter()
    child = subprocess.Popen(argv, stdout=out, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - begin
    out.seek(0)
    err.seek(0)
    code = os.waitstatus_to_exitcode(status)
    print(json.dumps([seconds, usage.ru_maxrss * 1024, code, out.read().decode(),
                      err.read().decode(errors="replace")]))
"""


def _child(argv: Sequence[str]) -> tuple[float, int, str]:
    """Wall seconds, peak resident bytes and output of one command, run to its end."""
    timer = subprocess.run(
        [sys.executable, "-c", _TIMER, json.dumps(list(argv))],
        capture_output=True,
        check=True,
        text=True,
    )
    seconds, peak, code, out, err = json.loads(timer.stdout)
    if code:
        raise AssertionError(f"{' '.join(argv[:3])} failed: {err.strip()}")
    return float(seconds), int(peak), str(out)


def measure_commands(queries: int, docs: int, repeat: int) -> dict[str, Any]:
    """``ragward metrics`` on files against the pytrec_eval command: best wall time and
    peak memory of ``repeat`` fresh processes each, outputs checked equal first."""
    qrels, run = synthetic(queries, docs)
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = Path(folder, "qrels.txt"), Path(folder, "run.txt")
        write_qrels(qrels_path, qrels)
        write_scored_run(run_path, run)
        files = [str(qrels_path), str(run_path)]
        ours = [sys.executable, "-m", "ragward", "metrics", *files]  # what a user types
        ours += [f"-m{n}" for n in NAMES]
        commands = {"ragward metrics": ours}
        if importlib.util.find_spec("pytrec_eval") is not None:
            commands["pytrec_eval command"] = [sys.executable, "-c", _PYTREC_COMMAND, *files]
            commands["pytrec_eval command"] += list(NAMES)
        figures: dict[str, tuple[float, int]] = {}
        outputs: dict[str, set[str]] = {}
        for _ in range(repeat):
            for name, argv in commands.items():
                seconds, peak, out = _child(argv)
                best = figures.get(name, (float("inf"), 0))
                figures[name] = (min(best[0], seconds), max(best[1], peak))
                outputs[name] = set(out.splitlines())
    if len(outputs) == 2 and len({frozenset(o) for o in outputs.values()}) != 1:
        raise AssertionError(f"the two commands print different values: {outputs}")
    return {"rows": figures}


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
            "`from scores` takes each query's scores, as `pytrec_eval.evaluate` does, and "
            "places every relevant retrieved document where trec_eval's order (score, then "
            "document id descending) puts it, without sorting the others; it gives the same "
            "floats as ranking the whole run first (checked in this run); "
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
