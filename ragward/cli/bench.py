"""``ragward bench``: any implementation through the contract, or the anchor suite.

    ragward bench                                   # the reference, through its adapter
    ragward bench --impl mypkg.adapter:factory      # your system, the same work
    ragward bench --external "./my-peer --stdio"    # a peer speaking the wire protocol
    ragward bench --anchors                         # the reference against its anchors

The first three write ``DIR/<name>.json`` and ``.md`` (:mod:`ragward.bench.system`);
``--anchors`` writes ``DIR/anchors.json`` and ``.md`` (:mod:`ragward.bench.anchor_suite`;
the latency report with its plain-loop anchor is ``python -m ragward.bench.latency``).
Exit status: 0 when the report is written, 2 for a usage or input error (one line).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from ragward.bench import system as bench
from ragward.bench.measure import Progress
from ragward.cli.options import add_implementation, open_implementation
from ragward.conformance.contract import Factory
from ragward.conformance.loading import check_system
from ragward.errors import InvalidArgument
from ragward.outputs import check_directory

__all__ = ["main", "parser_of"]

#: One-tenant corpus sizes the anchor suite measures hybrid latency at.
_SCALES = (10_000, 100_000, 1_000_000)
#: The largest corpus and query count a bench makes (ten times the anchor suite's largest).
_MOST_CHUNKS = 10_000_000
_MOST_QUERIES = 1_000_000


def _sizes(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected sizes like 10000,100000, got {text!r}"
        ) from None


def parser_of(prog: str = "ragward bench") -> argparse.ArgumentParser:
    """The options of ``ragward bench``."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Benchmark an implementation through the adapter contract (ingest "
        "throughput, query latency, memory), or, with --anchors, the reference against "
        "its anchors.",
    )
    source = add_implementation(
        parser, judged="the system to benchmark", external="a wire-protocol peer, started as CMD"
    )
    source.add_argument(
        "--anchors",
        action="store_true",
        help="the reference against bm25s (numba), one float32 matrix pass, the memory "
        "floor and pytrec_eval (anchors.json)",
    )
    parser.add_argument(
        "--name", help="report name, DIR/NAME.json (default: reference, or the adapter's)"
    )
    parser.add_argument("--chunks", type=int, default=None, help="target corpus size")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per mode")
    parser.add_argument(
        "--scales",
        type=_sizes,
        default=list(_SCALES),
        metavar="N,N,...",
        help="with --anchors: corpus sizes of one tenant for hybrid latency "
        f"(default {','.join(map(str, _SCALES))})",
    )
    parser.add_argument(
        "--data",
        type=Path,
        help="with --anchors: a BEIR-layout folder for the BM25 rows (default: "
        "$RAGWARD_DATA/scifact/beir when it exists)",
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus and query seed")
    parser.add_argument("--out", type=Path, default=Path("reports/bench"), help="output folder")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser


def _name(args: argparse.Namespace) -> str:
    if args.name is not None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.name):
            raise ValueError(
                f"--name {args.name!r}: use letters, digits, '.', '_' and '-' (a file name)"
            )
        return str(args.name)
    if args.external is not None:
        return "external"
    if args.impl is None:
        return "reference"
    module, _, attribute = args.impl.partition(":")
    return re.sub(r"[^A-Za-z0-9._-]", "-", f"{module.rsplit('.', 1)[-1]}-{attribute}")


def main(argv: Sequence[str] | None = None, prog: str = "ragward bench") -> int:
    """``ragward bench``; returns the exit code."""
    parser = parser_of(prog)
    args = parser.parse_args(argv)
    chunks = (200_000 if args.anchors else 20_000) if args.chunks is None else args.chunks
    if min(chunks, args.queries, *args.scales) < 1:
        parser.error("--chunks, --queries and --scales must be >= 1")
    if max(chunks, *args.scales) > _MOST_CHUNKS or args.queries > _MOST_QUERIES:
        # Checked before a corpus is made: a typo of three zeros would fill the memory.
        parser.error(
            f"--chunks and --scales must be at most {_MOST_CHUNKS:,}, "
            f"--queries at most {_MOST_QUERIES:,}"
        )
    if not args.anchors and (args.data is not None or args.scales != list(_SCALES)):
        parser.error("--data and --scales go with --anchors")
    if args.anchors:
        from ragward.bench import anchor_suite

        check_directory(args.out, "--out")
        if args.data is not None and not args.data.is_dir():
            raise InvalidArgument(f"--data {args.data}: not a directory")
        return anchor_suite.main_of(args)
    try:
        name = _name(args)
    except ValueError as error:
        parser.error(str(error))
    check_directory(args.out, "--out")  # before the corpus is built, not after
    with contextlib.ExitStack() as stack:
        factory, label = _factory(args, stack)
        check_system(factory, label)
        report = bench.run_system_bench(
            factory,
            name,
            bench.SystemBench(chunks=chunks, queries=args.queries, seed=args.seed),
            in_process=args.external is None,
            progress=Progress(not args.quiet, "bench"),
        )
    json_path, md_path = bench.write_report(report, args.out)
    sys.stdout.write(bench.render_markdown(report))
    sys.stdout.write(f"\nwrote {json_path} and {md_path}\n")
    return 0


def _factory(args: argparse.Namespace, stack: contextlib.ExitStack) -> tuple[Factory, str]:
    """The factory and how to name it in an error; an external peer stops with ``stack``."""
    chosen = open_implementation(args, stack)
    return chosen.factory, chosen.origin or f"--impl {chosen.spec}"
