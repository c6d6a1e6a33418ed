"""``ragward metrics``: score a TREC run against qrels, printed line for line as ``trec_eval``.

    ragward metrics QRELS RUN [-m MEASURE]... [-q] [-c] [--digits N]

Each line is ``measure<TAB>query<TAB>value`` with the measure padded to 22 characters
(``trec_eval``'s ``%-22s\\t%s\\t%6.4f``): with ``-q`` every scored query's lines first,
queries in sorted order, then the ``all`` lines. Rates get ``--digits`` decimals (4, as
``trec_eval``); the counts ``num_ret``, ``num_rel`` and ``num_rel_ret`` print as integers
and their ``all`` is a sum, not a mean. Measures print in ``trec_eval``'s order, whatever
the order of ``-m``.

``-m`` takes ``P_10``, ``trec_eval``'s ``P.5,10`` or a bare family (``P``: the default
cutoffs), may repeat, and also accepts ``runid`` and ``num_q`` (``all`` lines only). Without
``-m`` the measures are ``trec_eval``'s ``official`` set less the ones ragward does not
implement (``gm_map``, ``Rprec``, ``bpref``, ``iprec_at_recall``): runid, num_q, num_ret,
num_rel, num_rel_ret, map, recip_rank and P. ``-c`` scores every judged query, a missing
one as an empty ranking (``trec_eval -c``); without it, a run sharing no query with the
qrels is an error, as in ``trec_eval``.

Unlike ``trec_eval``, a repeated ``-m`` of one family adds its cutoffs (``trec_eval`` keeps
the first), and malformed files fail with file, line and field (see
:mod:`ragward.evals.trec`). Exit status 0, or 2 on a usage or input error, printed as one
line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragward.errors import InputError, InvalidArgument
from ragward.evals.measures import evaluate_scores, parse_measures
from ragward.evals.trec import read_qrels, read_run
from ragward.exits import run_guarded

__all__ = ["DEFAULT_MEASURES", "add_metrics_parser", "main", "metrics_lines", "run_metrics"]

DEFAULT_MEASURES = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "recip_rank",
    "P",
)
_SUMMARY_ONLY = ("runid", "num_q")  # trec_eval prints these on the ``all`` lines only
_MAX_DIGITS = 17
_DESCRIPTION = "Score RUN against QRELS with trec_eval's semantics and output format."


def add_metrics_parser(commands: Any) -> None:
    """Add the ``metrics`` subcommand to the ``ragward`` parser's subcommands."""
    metrics = commands.add_parser(
        "metrics",
        help="score a TREC run against qrels, printed as trec_eval prints",
        description=_DESCRIPTION,
    )
    _add_arguments(metrics)
    metrics.set_defaults(run=run_metrics)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    # not dest="run": the ragward parser keeps the subcommand's function there
    parser.add_argument("qrels_file", type=Path, metavar="QRELS", help="qid iter docno rel")
    parser.add_argument("run_file", type=Path, metavar="RUN", help="qid Q0 docno rank score tag")
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a measure (P_10, P.5,10, P, ndcg_cut_10, recip_rank, ...); repeatable",
    )
    parser.add_argument("-q", dest="per_query", action="store_true", help="print every query")
    parser.add_argument(
        "-c", dest="complete", action="store_true", help="count judged queries missing from RUN"
    )
    parser.add_argument(
        "--digits", type=int, default=4, metavar="N", help="decimals of rates (default 4)"
    )


def run_metrics(args: argparse.Namespace) -> int:
    """The ``metrics`` subcommand; a :class:`~ragward.errors.RagwardError` means exit 2."""
    lines = metrics_lines(
        args.qrels_file,
        args.run_file,
        args.measures or DEFAULT_MEASURES,
        per_query=args.per_query,
        complete=args.complete,
        digits=args.digits,
    )
    sys.stdout.write("".join(lines))
    return 0


def metrics_lines(
    qrels_path: str | Path,
    run_path: str | Path,
    names: Sequence[str],
    *,
    per_query: bool = False,
    complete: bool = False,
    digits: int = 4,
) -> list[str]:
    """The lines ``ragward metrics`` prints, each ending in a newline."""
    if not 0 <= digits <= _MAX_DIGITS:
        raise InvalidArgument(f"--digits must be between 0 and {_MAX_DIGITS}, not {digits}")
    measures = sorted(
        parse_measures(n for n in names if n not in _SUMMARY_ONLY), key=lambda m: m.order()
    )
    qrels = read_qrels(qrels_path)
    if not qrels:
        raise InputError(f"{qrels_path}: no judgements: nothing to score against")
    run = read_run(run_path)
    scores = evaluate_scores(measures, qrels, run.scores, complete=complete)
    if scores.num_q == 0:
        raise InputError(
            f"no query of {run_path} is judged in {qrels_path}: nothing to score "
            "(-c scores every judged query)"
        )

    def line(name: str, qid: str, value: float, count: bool) -> str:
        shown = str(int(value)) if count else f"{value:.{digits}f}"
        return f"{name:<22}\t{qid}\t{shown}\n"

    lines: list[str] = []
    if per_query:
        for qid, values in scores.per_query.items():
            lines.extend(line(m.name, qid, values[m.name], m.counts) for m in measures)
    if "runid" in names:
        lines.append(f"{'runid':<22}\tall\t{run.tag}\n")
    if "num_q" in names:
        lines.append(line("num_q", "all", scores.num_q, True))
    lines.extend(line(m.name, "all", scores.summary[m.name], m.counts) for m in measures)
    return lines


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The arguments of ``ragward metrics``; a usage error exits 2 (argparse's way)."""
    parser = argparse.ArgumentParser(prog="ragward metrics", description=_DESCRIPTION)
    _add_arguments(parser)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ragward metrics`` on ``argv``; exit codes as :mod:`ragward.exits` says (a
    user error prints one line and returns 2)."""
    try:
        args = parse_arguments(argv)
    except SystemExit as exit_:  # --help, or a usage error argparse already reported
        return exit_.code if isinstance(exit_.code, int) else 2
    return run_guarded("metrics", lambda: run_metrics(args))


if __name__ == "__main__":
    raise SystemExit(main())
