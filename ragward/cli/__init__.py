"""The ``ragward`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from ragward import __version__
from ragward.exits import end_keeping_the_code, run_guarded
from ragward.interrupts import exit_at_once_on_interrupt
from ragward.streams import guarded_streams

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from ragward.demo import run_demo

    run_demo(sys.stdout)
    return 0


def _bench(args: argparse.Namespace) -> int:
    from ragward.cli.bench import main as bench_main

    return bench_main(args.options, prog="ragward bench")  # its own parser reads them


def _parser() -> argparse.ArgumentParser:
    # Imported here: a command that does not need them (metrics) does not load them.
    from ragward.cli.conform import add_conform_parser
    from ragward.cli.engines import add_engines_parser
    from ragward.cli.evaluate import add_eval_parser
    from ragward.cli.gate import add_gate_parser
    from ragward.cli.metrics import add_metrics_parser
    from ragward.cli.tune import add_tune_parser

    parser = argparse.ArgumentParser(
        prog="ragward",
        description="Conformance and evaluation suite for authorized hybrid retrieval.",
    )
    parser.add_argument("--version", action="version", version=f"ragward {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser("demo", help="the worked example, told with ragward's semantics")
    demo.set_defaults(run=_demo)

    bench = commands.add_parser(
        "bench",
        add_help=False,
        help="throughput, latency and memory of an implementation through the contract, "
        "or of the reference against its anchors (ragward bench --help)",
    )
    bench.set_defaults(run=_bench)

    add_eval_parser(commands)
    add_tune_parser(commands)
    add_gate_parser(commands)
    add_metrics_parser(commands)
    add_conform_parser(commands)
    add_engines_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand and return its exit code (the table in :mod:`ragward.exits`): a
    user error prints one line and returns 2, Ctrl-C returns 130, a crash returns 3."""
    if argv is None:  # the process's own command: what follows it is the interpreter's exit
        exit_at_once_on_interrupt()
    with guarded_streams():  # a usage error to a closed stderr is still 2, not a traceback
        code = _main(sys.argv[1:] if argv is None else list(argv))
    if argv is None and _calls_left_running():
        end_keeping_the_code(code)
    return code


def _calls_left_running() -> bool:
    """Whether the kit gave up on a call that still runs (never, if it called none)."""
    guard = sys.modules.get("ragward.conformance.guard")
    return guard is not None and bool(guard.left_running())


def _main(argv: list[str]) -> int:
    if argv[:1] == ["metrics"]:
        # trec_eval's job, often run in loops: its own parser (the same arguments and
        # messages), without importing the rest of ragward.
        from ragward.cli.metrics import parse_arguments, run_metrics

        metrics = parse_arguments(argv[1:])
        return run_guarded("metrics", lambda: run_metrics(metrics))
    parser = _parser()
    args, options = parser.parse_known_args(argv)
    if options and args.command != "bench":
        parser.error(f"unrecognized arguments: {' '.join(options)}")
    args.options = options
    run: Callable[[argparse.Namespace], int] = args.run
    return run_guarded(args.command, lambda: run(args))
