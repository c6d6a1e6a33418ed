"""The ``ragward`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ragward import __version__
from ragward.errors import RagwardError

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from ragward.demo import run_demo

    run_demo(sys.stdout)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from ragward.bench.latency import main as latency_main

    forwarded = ["--chunks", str(args.chunks), "--queries", str(args.queries), "--out", args.out]
    return latency_main(forwarded)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragward",
        description="Conformance and evaluation suite for authorized hybrid retrieval.",
    )
    parser.add_argument("--version", action="version", version=f"ragward {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="the worked example, told with ragward's semantics")
    demo.set_defaults(run=_demo)

    bench = commands.add_parser(
        "bench", help="query latency of the reference against its anchors, under reports/bench"
    )
    bench.add_argument("--chunks", type=int, default=100_000, help="corpus size in chunks")
    bench.add_argument("--queries", type=int, default=200, help="queries per mode")
    bench.add_argument("--out", default="reports/bench", help="output directory")
    bench.set_defaults(run=_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; a user error prints one line and returns 2."""
    args = _parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except RagwardError as error:
        print(f"ragward {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
