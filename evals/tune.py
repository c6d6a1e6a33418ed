"""``ragward tune``: choose settings on one split, report them on another.

    ragward tune                                  # bundled set: tune on train, report on test
    ragward tune --objective recall_10 --grounding-objective f1

The retrieval setting (and so ``rrf_k``) is the one with the best mean ``--objective`` on
the tuning split; ``min_overlap`` is the threshold with the best grounding objective for
that setting's answers on the tuning split. Ties go to the earlier setting in grid order
and to the stricter (higher) threshold. Both choices are then measured on the report
split, next to the reference defaults (``rrf_k`` 60, ``min_overlap`` 0.6), which is the
only honest figure: the tuning split's numbers are optimistic by construction.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragward.errors import InputError
from ragward.evals.eval_command import add_dataset_options
from ragward.evals.measures import measure_name
from ragward.outputs import ReportKind

__all__ = ["FORMAT", "add_tune_parser", "choose", "run_tune"]

#: The format tag of ``tune.json``; 2 added ``fingerprints`` (as ``results.json``'s, of
#: the report split, with the tuning split's data beside it).
FORMAT = "ragward-tune/2"
_GROUNDING_OBJECTIVES = ("accuracy", "f1", "precision", "recall")
#: What makes a directory a tune report, which a new one replaces.
_MARKER = ReportKind("tune.json", FORMAT, "tune report")


def add_tune_parser(commands: Any) -> None:
    """Add the ``tune`` subcommand."""
    parser = commands.add_parser(
        "tune",
        help="pick rrf_k and min_overlap on one split, report them on another",
        description="Run the grid on two splits; choose the retrieval setting (rrf_k) by "
        "--objective and min_overlap by --grounding-objective on --tune-split; report the "
        "choices on --report-split.",
    )
    add_dataset_options(parser)
    parser.add_argument(
        "--tune-split",
        default="train",
        metavar="SPLIT",
        help="split the choices are made on (default train)",
    )
    parser.add_argument(
        "--report-split",
        default="test",
        metavar="SPLIT",
        help="split the choices are reported on (default test)",
    )
    parser.add_argument(
        "--objective",
        metavar="MEASURE",
        help="ranking measure to maximise (default: the grid's first measure)",
    )
    parser.add_argument(
        "--grounding-objective",
        default="accuracy",
        choices=_GROUNDING_OBJECTIVES,
        help="grounding measure to maximise (default accuracy: unlike f1, it counts every "
        "fabrication waved through)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="report directory: new, empty or an earlier tune report, which is replaced whole "
        "(default: reports/<dataset name>-tune)",
    )
    parser.set_defaults(run=run_tune)


def choose(
    tune: Sequence[Any], objective: str, grounding_objective: str
) -> tuple[Any, float | None]:
    """The best setting's scores by ``objective`` and its best threshold (or None)."""
    best = max(enumerate(tune), key=lambda item: (item[1].means[objective], -item[0]))[1]
    if not best.grounding:
        return best, None
    threshold = max(
        best.grounding, key=lambda t: (best.grounding[t].measures()[grounding_objective], t)
    )
    return best, threshold


def run_tune(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        return _tune(args, stack)


def _tune(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    from tabulate import tabulate

    from ragward.evals.eval_command import (
        _progress_stream,
        check_run_size,
        check_split,
        fitted,
        prepare,
    )
    from ragward.evals.runner import run_grid
    from ragward.evals.scoring import score_outcome
    from ragward.outputs import check_directory, replaced_directory, write_atomic

    if args.tune_split == args.report_split:
        raise InputError("--tune-split and --report-split must differ")
    if args.out is not None:  # before the dataset loads, which can take minutes
        check_directory(args.out, "--out", _MARKER)
    dataset, grid, factory, name = prepare(args, stack)
    for split in (args.tune_split, args.report_split):
        check_split(dataset, split)
    objective = measure_name(args.objective) if args.objective else grid.measures[0]
    if objective not in grid.measures:
        raise InputError(
            f"--objective {objective!r} is not a measure of the grid ({', '.join(grid.measures)})"
        )
    out = args.out if args.out is not None else Path("reports") / f"{grid.name}-tune"
    check_directory(out, "--out", _MARKER)
    grid = fitted(grid, factory, name, "tune")
    check_run_size(args, grid, dataset, (args.tune_split, args.report_split))
    outcome = run_grid(
        dataset,
        grid,
        factory,
        splits=(args.tune_split, args.report_split),
        name=name,
        reuse=not args.no_reuse,
        stream=_progress_stream(args),
    )
    tune, _ = score_outcome(outcome, dataset, grid, args.tune_split)
    report, _ = score_outcome(outcome, dataset, grid, args.report_split)
    best, threshold = choose(tune, objective, args.grounding_objective)
    hybrid = [t for t in tune if t.setting.mode == "hybrid"]
    best_hybrid = choose(hybrid, objective, args.grounding_objective)[0] if hybrid else None
    default = _default_setting(tune, best_hybrid.setting) if best_hybrid else None
    held = {s.setting.id: s for s in report}
    grounding = args.grounding_objective

    def row(label: str, value: str, scores: Any, pick: Any) -> list[Any]:
        return [label, value, pick(scores), pick(held[scores.setting.id])]

    def mean(scores: Any) -> float:
        return float(scores.means[objective])

    rows = [row("best setting", best.setting.id, best, mean)]
    chosen: dict[str, Any] = {"setting": best.setting.id, "rrf_k": None, "min_overlap": threshold}
    if best_hybrid is not None:
        chosen["rrf_k"] = best_hybrid.setting.rrf_k
        chosen["rrf_k_setting"] = best_hybrid.setting.id
        rows.append(_rrf_row("rrf_k (best hybrid)", hybrid, best_hybrid, objective, row, mean))
        if default is not None:
            rows.append(row("rrf_k default", "60", default, mean))
        # With rerank on, the reranker re-sorts the fused pool and rrf_k often changes
        # nothing; the fused order is the answer only with rerank off, so tune it there too.
        fused = [t for t in hybrid if not t.setting.rerank]
        if best_hybrid.setting.rerank and fused:
            best_fused = choose(fused, objective, grounding)[0]
            chosen["rrf_k_rerank_off"] = best_fused.setting.rrf_k
            rows.append(
                _rrf_row("rrf_k (hybrid, rerank off)", fused, best_fused, objective, row, mean)
            )
            off_default = _default_setting(tune, best_fused.setting)
            if off_default is not None:
                rows.append(row("rrf_k default, rerank off", "60", off_default, mean))
    detail: list[list[Any]] = []
    if threshold is not None:
        for label, t in (("min_overlap", threshold), ("min_overlap default", 0.6)):
            if t in best.grounding:
                rows.append(
                    row(label, _show(t), best, lambda s, t=t: s.grounding[t].measures()[grounding])
                )
        # not ``name``: that is the implementation's, recorded below
        for measure in ("f1", "precision", "recall", "false_support", "coverage"):
            detail.append(
                [
                    measure,
                    best.grounding[threshold].measures()[measure],
                    held[best.setting.id].grounding[threshold].measures()[measure],
                ]
            )
    headers = ["choice", "value", f"on {args.tune_split}", f"on {args.report_split}"]
    text = tabulate(rows, headers=headers, tablefmt="github", floatfmt=".4f")
    if detail:
        text += f"\n\nGrounding of the best setting at min_overlap {threshold:g}:\n\n" + tabulate(
            detail,
            headers=["", f"on {args.tune_split}", f"on {args.report_split}"],
            tablefmt="github",
            floatfmt=".4f",
        )
    data: dict[str, Any] = {
        "format": FORMAT,
        "name": grid.name,
        "dataset": dataset.name,
        "implementation": name,
        "fingerprints": _fingerprints(dataset, grid, name, outcome, args),
        "tune_split": args.tune_split,
        "report_split": args.report_split,
        "objective": objective,
        "grounding_objective": grounding,
        "chosen": chosen,
        "rows": [dict(zip(headers, r, strict=True)) for r in rows],
        "grounding": [
            dict(zip(["measure", args.tune_split, args.report_split], r, strict=True))
            for r in detail
        ],
    }
    with replaced_directory(out, marker=_MARKER) as staging:  # the whole report, or none
        write_atomic(staging / "tune.json", json.dumps(data, indent=1) + "\n")
        write_atomic(
            staging / "tune.md",
            f"# Tuning: {grid.name}\n\nChosen on `{args.tune_split}` by `{objective}` "
            f"(retrieval) and `{grounding}` (grounding), reported on `{args.report_split}`."
            f"\n\n{text}\n",
        )
    print(text)
    print(f"\nwrote {out / 'tune.json'}, {out / 'tune.md'}")
    return 0


def _fingerprints(
    dataset: Any, grid: Any, name: str, outcome: Any, args: argparse.Namespace
) -> dict[str, Any]:
    """``results.json``'s fingerprints of the report split, with the tuning split's
    queries, judgements and claims beside them as ``queries_tune``, ``qrels_tune`` and
    ``claims_tune``."""
    from ragward.evals.fingerprints import data_fingerprints, fingerprints, identity_of

    identity = identity_of(name, outcome)
    prints = fingerprints(dataset, args.report_split, grid, identity, outcome.models)
    tuned = data_fingerprints(dataset, args.tune_split)
    prints["data"].update({f"{key}_tune": tuned[key] for key in ("queries", "qrels", "claims")})
    return prints


def _default_setting(report: Sequence[Any], chosen: Any) -> Any:
    for scores in report:
        s = scores.setting
        if (s.index, s.mode, s.reranker, s.candidate_limit, s.rrf_k) == (
            chosen.index,
            "hybrid",
            chosen.reranker,
            chosen.candidate_limit,
            60.0,
        ):
            return scores
    return None


def _rrf_row(
    label: str, hybrid: Sequence[Any], best: Any, objective: str, row: Any, mean: Any
) -> list[Any]:
    tied = _tied_rrf_ks(hybrid, best, objective)
    value = _show(best.setting.rrf_k)
    if tied:
        value += f" (tied: {', '.join(_show(k) for k in tied)})"
    return list(row(label, value, best, mean))


def _tied_rrf_ks(hybrid: Sequence[Any], best: Any, objective: str) -> list[float]:
    """Other ``rrf_k`` values that score the same with every other knob equal: with rerank
    on and a pool the reranker fully re-sorts, ``rrf_k`` often changes nothing."""
    b = best.setting
    return [
        s.setting.rrf_k
        for s in hybrid
        if s is not best
        and (s.setting.index, s.setting.reranker, s.setting.candidate_limit)
        == (b.index, b.reranker, b.candidate_limit)
        and s.means[objective] == best.means[objective]
    ]


def _show(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"
