"""``ragward eval``: run a grid on a labelled set and write its report.

    ragward eval                                     # the bundled set, its default grid
    ragward eval --dataset DIR --grid grid.toml --split test --out reports/mine
    ragward eval --dataset scifact/beir --claims test=scifact/claims_dev.jsonl \\
        --grid evals/grids/scifact.toml

Exit status 0 when the report is written, 2 for a usage or input error (one line); the
other codes are :mod:`ragward.exits`'s. The output directory is checked before the run (a
folder that is not an earlier eval report is never replaced) and replaced whole at its end
(:mod:`ragward.outputs`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragward.cli.options import add_implementation, open_implementation
from ragward.errors import InputError

__all__ = ["add_dataset_options", "add_eval_parser", "prepare", "run_eval"]


def add_dataset_options(parser: argparse.ArgumentParser) -> None:
    """Options every grid-running command shares."""
    parser.add_argument(
        "--dataset", metavar="DIR", type=Path, help="BEIR-layout directory (default: bundled)"
    )
    parser.add_argument(
        "--claims",
        metavar="SPLIT=FILE",
        action="append",
        default=[],
        help="labelled claims for a split (ragward or SciFact format); repeatable",
    )
    parser.add_argument("--grid", metavar="FILE.toml", type=Path, help="the grid to sweep")
    add_implementation(
        parser,
        judged="the implementation to evaluate",
        external="evaluate a peer speaking the conformance wire protocol, started as CMD "
        "(one peer per index; a grid of one chunking and one embedder)",
    )
    parser.add_argument(
        "--no-reuse",
        action="store_true",
        help="ask retrieve for every setting instead of reusing first stages",
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="embedding cache directory for model embedders, or 'off' "
        "(default: $RAGWARD_CACHE, else ragward/embeddings in the user's cache directory)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument(
        "--max-settings",
        metavar="N",
        type=_count,
        help="refuse a grid of more settings than this, before any work (default 10000)",
    )
    parser.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="refuse a run estimated to need more memory, e.g. 512M or 16G, before any work "
        "(default: 3/4 of this machine's memory)",
    )


def _count(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12 or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text[:40]!r}")
    return int(text)


def size_limits(args: argparse.Namespace) -> Any:
    """The :class:`~ragward.evals.grid_size.SizeLimits` the options give."""
    from ragward.evals.grid_size import MAX_SETTINGS, SizeLimits, parse_size

    memory = None if args.max_memory is None else parse_size(args.max_memory)
    return SizeLimits(args.max_settings or MAX_SETTINGS, memory)


def _grid_name(args: argparse.Namespace) -> str:
    return str(args.grid) if args.grid else "the default grid"


def use_cache(option: str | None, stack: contextlib.ExitStack) -> None:
    """Make ``--cache`` the process's embedding cache while the command runs (through
    ``$RAGWARD_CACHE``, so that peers started by ``--external`` share it; the variable is
    as it was once ``stack`` closes, so a later command in the same process, or a caller
    of ``main``, does not inherit it); refuse a directory that cannot be made."""
    from ragward.models.cache import CACHE_ENV

    if option is None:
        return
    if option != "off":
        from ragward.outputs import check_directory

        check_directory(Path(option), "--cache")  # the same checks as every output folder
        try:
            Path(option).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"--cache {option}: cannot create it ({error.strerror})") from None
        if not os.access(option, os.W_OK):
            raise InputError(f"--cache {option}: not writable")
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = option
    stack.callback(_restore, CACHE_ENV, before)


def _restore(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def add_eval_parser(commands: Any) -> None:
    """Add the ``eval`` subcommand."""
    parser = commands.add_parser(
        "eval",
        help="sweep a grid of settings over a labelled set and write the report",
        description="Evaluate retrieval (recall, precision, MRR, nDCG, hit, leakage) and "
        "grounding over every setting of a grid; writes results.json, summary.md and plots.",
    )
    add_dataset_options(parser)
    parser.add_argument("--split", metavar="SPLIT", help="split to evaluate (default: the grid's)")
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help="report directory: new, empty or an earlier eval report, which is replaced whole "
        "(default: reports/<dataset name>)",
    )
    parser.add_argument(
        "--trec",
        action="store_true",
        help="also export the split's qrels and a TREC run per setting under OUT/trec/",
    )
    parser.set_defaults(run=run_eval)


def prepare(
    args: argparse.Namespace, stack: contextlib.ExitStack
) -> tuple[Any, Any, Callable[..., Any], str]:
    """The dataset, the grid, the factory the options name and its display name; peers
    started for ``--external`` are stopped when ``stack`` closes."""
    from ragward.datasets import bundled
    from ragward.evals.datasets import load_dataset
    from ragward.evals.grid_file import default_grid, load_grid
    from ragward.evals.grid_size import check_settings

    use_cache(args.cache, stack)
    grid = load_grid(args.grid) if args.grid else default_grid()
    check_settings(grid, _grid_name(args), size_limits(args))  # before the dataset loads
    claims: dict[str, Path] = {}
    for item in args.claims:
        split, equals, file = item.partition("=")
        if not equals or not split or not file:
            raise InputError(f"--claims {item!r}: expected SPLIT=FILE, e.g. test=claims.jsonl")
        claims[split] = Path(file)
    directory = args.dataset if args.dataset is not None else bundled()
    if not Path(directory).is_dir():
        raise InputError(f"{directory}: dataset directory not found")
    # A misspelt --impl is found before the dataset loads, not after; peers stop with
    # the stack.
    chosen = open_implementation(args, stack)
    dataset = load_dataset(directory, claims=claims or None)
    if args.dataset is not None:
        grid = replace(grid, name=dataset.name)  # a report is named after its dataset
    return dataset, grid, chosen.factory, chosen.spec


def check_trec_ids(dataset: Any, split: str) -> None:
    """Refuse, before the run, an id a TREC file cannot hold (``--trec`` writes them all)."""
    from ragward.evals.trec import field_problem

    for query in dataset.split_queries(split):
        problem = field_problem(query.query_id)
        if problem is not None:
            raise InputError(f"--trec: query {problem}; leave out --trec or rename the query")
    for doc in dataset.docs:
        problem = field_problem(doc.doc_id)
        if problem is not None:
            raise InputError(f"--trec: document {problem}; leave out --trec or rename it")


def run_eval(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        return _evaluate(args, stack, started)


def _evaluate(args: argparse.Namespace, stack: contextlib.ExitStack, started: float) -> int:
    from ragward.evals.api import check_split, evaluate
    from ragward.evals.report import REPORT_MARKER, table, trec_files, write_report
    from ragward.outputs import check_directory

    if args.out is not None:  # before the dataset loads, which can take minutes
        check_directory(args.out, "--out", REPORT_MARKER)
    dataset, grid, factory, name = prepare(args, stack)
    split = args.split or grid.split
    check_split(dataset, split)
    out = args.out if args.out is not None else Path("reports") / grid.name
    check_directory(out, "--out", REPORT_MARKER)
    if args.trec:
        check_trec_ids(dataset, split)
    evaluation = evaluate(
        dataset,
        factory,
        grid=grid,
        split=split,
        progress=_progress_stream(args),
        name=name,
        reuse=not args.no_reuse,
        limits=size_limits(args),
        grid_name=_grid_name(args),
        on_fit=said_fitted(name, "eval"),
    )
    results = evaluation.report
    extra = trec_files(dataset, split, evaluation.outcome) if args.trec else None
    written = write_report(out, results, extra)
    print(table(results))
    print()
    shown = [p for p in written if p.parent == out]
    others = len(written) - len(shown)
    more = f" and {others} TREC files under {out / 'trec'}" if others else ""
    print(f"wrote {', '.join(str(p) for p in shown)}{more}")
    elapsed = time.perf_counter() - started
    print(
        f"{len(evaluation)} settings, {len(evaluation.grid.indexes)} indexes, {elapsed:.1f} s",
        file=sys.stderr,
    )
    print_encoding(sys.stderr)
    return 0


def said_fitted(name: str, command: str) -> Callable[[tuple[str, ...]], None]:
    """What prints, on one line, what fitting the grid to ``name`` dropped."""

    def say(dropped: tuple[str, ...]) -> None:
        if dropped:
            print(
                f"ragward {command}: grid fitted to {name}: dropped {'; '.join(dropped)}",
                file=sys.stderr,
            )

    return say


def print_encoding(stream: Any) -> None:
    """One line on what model embedders cost, when any ran: cache hits, texts encoded."""
    from ragward.models.registry import encoding_stats

    stats = encoding_stats()
    if stats.hits or stats.misses:
        corrupt = f", {stats.corrupt} corrupt entries recomputed" if stats.corrupt else ""
        print(
            f"embeddings: {stats.hits} from the cache, {stats.misses} encoded "
            f"in {stats.encode_seconds:.1f} s{corrupt}",
            file=stream,
        )


def _progress_stream(args: argparse.Namespace) -> Any:
    import io

    return io.StringIO() if args.quiet else sys.stderr
