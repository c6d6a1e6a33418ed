"""Does ``ragward gate`` catch real regressions, and only them? Power, shown.

    python -m ragward.bench.gate_power [--out reports/gate] [--repeats 20] [--trials 10000]
        [--data "$RAGWARD_DATA/scifact"] [--sizes 24,88,450,1224] [--quick]

Regressions are planted as degraded implementations (:mod:`ragward.bench.degraded`: rank
noise in the top 10, a lost lexical side, a stale index, a reversed top 10 that halves
nDCG@10), evaluated by the harness on the bundled set and on SciFact (hashing embedder)
over grids on which the gate makes 24, 88, 450 and 1,224 comparisons
(:mod:`ragward.bench.power_grids`), and judged by :func:`ragward.evals.gate.compare`
against the reference. A repeat is a fresh draw: a random half of the split's queries and
claims (the same half for both runs, as a team's own test set would be), a new seed of
the noise plants and of the gate's randomization. The detection rate is the share of
repeats in which the gate fails on a significant regression. Two null rows say how often
it fails when nothing changed: the reference re-run in a child process under another
``PYTHONHASHSEED`` (target: never), and two draws of the same noisy system (at most
``alpha`` of the time). Writes ``power.json`` and ``power.md``; both are a function of the
arguments alone (no timings).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragward.bench.degraded import (
    Fault,
    LostLexical,
    RankNoise,
    ReversedTop,
    SharedIndexes,
    StaleIndex,
    degraded_factory,
)
from ragward.bench.power_grids import SHAPES
from ragward.bench.power_tally import Subject, Tally, grids_of, judge_repeat, subject_named
from ragward.engines.reference import reference_factory
from ragward.errors import InputError, RagwardError
from ragward.evals.grid import Grid
from ragward.evals.runner import GridOutcome, run_grid
from ragward.implementation import REFERENCE

__all__ = ["PLANTS", "Plant", "main"]

#: The seeds of the reference's re-runs in child processes (``PYTHONHASHSEED``).
HASH_SEEDS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Plant:
    """A planted regression: the fault of each repeat's seed; ``reseeded`` plants are a
    new draw every repeat (over indexes built once: their faults leave the index alone),
    the others one implementation judged on every half."""

    name: str
    what: str
    fault: Callable[[int], Fault]
    reseeded: bool = False
    needs_updates: bool = False  # only where some document has a second version


PLANTS = (
    Plant("noise-1", "rank noise, sd 1 rank, in the top 10", lambda s: RankNoise(1.0, s), True),
    Plant("noise-2", "rank noise, sd 2 ranks, in the top 10", lambda s: RankNoise(2.0, s), True),
    Plant("noise-4", "rank noise, sd 4 ranks, in the top 10", lambda s: RankNoise(4.0, s), True),
    Plant("lost-lexical", "hybrid answered from the dense side alone", lambda s: LostLexical()),
    Plant("stale-10", "10% of the documents missing from the index", lambda s: StaleIndex(0.1)),
    Plant("stale-30", "30% of the documents missing from the index", lambda s: StaleIndex(0.3)),
    Plant(
        "frozen-30",
        "30% of the updated documents kept at their first version",
        lambda s: StaleIndex(frozen=0.3),
        needs_updates=True,
    ),
    Plant("halved", "the top 10 in reverse order (a sort-order bug)", lambda s: ReversedTop()),
)
#: The plant whose two draws make the second null row.
NULL_NOISE = "noise-4"
#: The rows where nothing changed: the gate should not fail.
NULLS = {
    "unchanged": "the reference re-run in a child process under another PYTHONHASHSEED",
    f"{NULL_NOISE} twice": f"two draws of {NULL_NOISE} judged against each other (one system)",
}


def _run(subject: Subject, grid: Grid, factory: Callable[..., Any], name: str) -> GridOutcome:
    return run_grid(
        subject.dataset, grid, factory, splits=(subject.split,), name=name, stream=io.StringIO()
    )


def _rerun(subject: Subject, args: argparse.Namespace, seed: int) -> dict[str, Any]:
    """The reference's run of the largest grid, made in a child process under
    ``PYTHONHASHSEED=seed``, as :func:`~ragward.bench.power_grids.outcome_data`."""
    child = [sys.executable, "-m", "ragward.bench.gate_power", "--child", subject.name]
    child += ["--sizes", ",".join(map(str, args.sizes))]
    if args.data is not None:
        child += ["--data", str(args.data)]
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run(child, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"the re-run under PYTHONHASHSEED={seed} failed: {last}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _plants(subject: Subject) -> list[Plant]:
    seen: set[tuple[str, str]] = set()
    updated = False
    for doc in subject.dataset.docs:
        key = (doc.tenant, doc.doc_id)
        updated = updated or key in seen
        seen.add(key)
    return [plant for plant in PLANTS if updated or not plant.needs_updates]


def measure(
    subject: Subject, args: argparse.Namespace, say: Callable[[str], None]
) -> dict[str, Any]:
    """Every row of ``subject``: the plants and the two null rows, at every size."""
    from ragward.bench.power_grids import outcome_data, outcome_from

    grids = grids_of(subject, args.sizes)
    largest = grids[max(grids)]
    base = _run(subject, largest, reference_factory, REFERENCE)
    plants = _plants(subject)
    fixed = {
        p.name: _run(subject, largest, degraded_factory(p.fault(0), p.name), p.name)
        for p in plants
        if not p.reseeded
    }
    seeds = HASH_SEEDS[: min(args.reruns, args.repeats)]
    same = json.loads(json.dumps(outcome_data(base)))
    identical, reruns = [], []
    for seed in seeds:
        data = _rerun(subject, args, seed)
        identical.append(data == same)
        reruns.append(outcome_from(data, largest))
    tallies: dict[tuple[str, int], Tally] = {}
    shared = SharedIndexes()  # the reseeded plants' indexes: built in the first repeat
    previous: GridOutcome | None = None
    for repeat in range(args.repeats):
        say(f"{subject.name}: repeat {repeat + 1} of {args.repeats}")
        rows: list[tuple[str, GridOutcome | tuple[GridOutcome, GridOutcome]]] = []
        drawn = {
            p.name: _run(subject, largest, shared.factory(p.fault(repeat), p.name), p.name)
            for p in plants
            if p.reseeded
        }
        for plant in plants:
            rows.append((plant.name, drawn[plant.name] if plant.reseeded else fixed[plant.name]))
        unchanged, twice = NULLS
        rows.append((unchanged, reruns[repeat % len(reruns)]))
        if previous is not None:
            rows.append((twice, (previous, drawn[NULL_NOISE])))
        previous = drawn[NULL_NOISE]
        judge_repeat(subject, grids, base, rows, repeat, args.trials, tallies)
    return {
        "plants": {p.name: p.what for p in plants},
        "nulls": NULLS,
        "grids": {str(size): grid.to_data() for size, grid in grids.items()},
        "hash_seeds": list(seeds),
        "reruns_identical": identical,
        "tallies": tallies,
    }


def _sizes(text: str) -> list[int]:
    known = [shape.comparisons for shape in SHAPES]
    try:
        sizes = sorted({int(part) for part in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 24,88, got {text!r}") from None
    if not sizes or any(size not in known for size in sizes):
        raise argparse.ArgumentTypeError(f"sizes are among {','.join(map(str, known))}")
    return sizes


_FULL: dict[str, Any] = {"repeats": 20, "trials": 10_000, "sizes": [s.comparisons for s in SHAPES]}
_QUICK: dict[str, Any] = {"repeats": 3, "trials": 2_000, "sizes": [24, 88]}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ragward.bench.gate_power",
        description="Detection rate of ragward gate for planted regressions, and its "
        "false-failure rate, at 24 to 1,224 comparisons; writes power.json and power.md.",
    )
    parser.add_argument("--out", type=Path, default=Path("reports/gate"), metavar="DIR")
    parser.add_argument("--repeats", type=int, help="draws per row (default 20; quick: 3)")
    parser.add_argument(
        "--trials", type=int, help="the gate's randomization trials (default 10,000; quick: 2,000)"
    )
    parser.add_argument(
        "--data", type=Path, metavar="DIR", help="SciFact folder (default: $RAGWARD_DATA/scifact)"
    )
    parser.add_argument(
        "--sizes",
        type=_sizes,
        metavar="N,N,...",
        help="comparisons of the grids run (default 24,88,450,1224; quick: 24,88)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the bundled set only, with the quick defaults and one re-run",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    defaults = _QUICK if args.quick else _FULL
    for option, value in defaults.items():
        if getattr(args, option) is None:
            setattr(args, option, value)
    args.reruns = 1 if args.quick else len(HASH_SEEDS)
    try:
        if args.child is not None:  # a re-run: the reference's outcome on stdout
            return _child(args)
        return _main(args, _shown(argv))
    except RagwardError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2


def _child(args: argparse.Namespace) -> int:
    from ragward.bench.power_grids import outcome_data

    subject = subject_named(args.child, _scifact(args))
    grids = grids_of(subject, args.sizes)
    outcome = _run(subject, grids[max(grids)], reference_factory, REFERENCE)
    print(json.dumps(outcome_data(outcome)))
    return 0


def _scifact(args: argparse.Namespace) -> Path | None:
    """SciFact's folder, or None when the default one is absent."""
    if args.data is not None:
        if not (args.data / "beir").is_dir():
            raise InputError(f"--data {args.data}: no beir/ folder; pass SciFact's folder")
        return Path(args.data)
    data = os.environ.get("RAGWARD_DATA")
    found = Path(data) / "scifact" if data else None
    return found if found is not None and (found / "beir").is_dir() else None


def _shown(argv: Sequence[str] | None) -> str:
    """The command as a reader would type it: no path of this machine."""
    words = ["python -m ragward.bench.gate_power"]
    given = list(sys.argv[1:] if argv is None else argv)
    pairs: Iterator[str] = iter(given)
    for word in pairs:
        option, equals, value = word.partition("=")
        if option in ("--out", "--data"):
            value = value if equals else next(pairs, "")
            shown = "DIR" if Path(value).is_absolute() else value
            words.append(f"{option} {shown}")
        else:
            words.append(word)
    return " ".join(words)


def _main(args: argparse.Namespace, command: str) -> int:
    from ragward.bench.power_report import report_data, write_report

    if args.repeats < 1 or args.trials < 1:
        raise InputError("--repeats and --trials must be >= 1")
    scifact = None if args.quick else _scifact(args)  # a wrong --data fails first
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    measured: dict[str, dict[str, Any] | str] = {}
    for name in ("tidewater", "scifact"):
        if name == "scifact" and args.quick:
            measured[name] = "skipped: --quick runs the bundled set only"
            continue
        if name == "scifact" and scifact is None:
            measured[name] = "skipped: no SciFact data (set RAGWARD_DATA or pass --data DIR)"
            continue
        subject = subject_named(name, scifact)
        measured[name] = {
            "subject": subject,
            **measure(subject, args, lambda line: print(line, file=sys.stderr, flush=True)),
        }
    report = report_data(measured, args, command)
    print(write_report(out, report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
