"""``ragward tune``: choose settings on one split, report them on another.

    ragward tune                                  # bundled set: tune on train, report on test
    ragward tune --objective recall_10 --grounding-objective accuracy

The retrieval setting (and so ``rrf_k``) is the one with the best mean ``--objective`` on
the tuning split; ``min_overlap`` is the threshold with the best grounding objective for
that setting's answers on the tuning split. Ties go to the earlier setting in grid order
and to the stricter (higher) threshold. Both choices are then measured on the report
split, next to the reference defaults (``rrf_k`` 60, ``min_overlap`` 0.6), which is the
only honest figure: the tuning split's numbers are optimistic by construction.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragward.errors import InputError
from ragward.evals.eval_command import add_dataset_options

__all__ = ["add_tune_parser", "choose", "run_tune"]

_GROUNDING_OBJECTIVES = ("f1", "accuracy", "precision", "recall")


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
    parser.add_argument("--tune-split", default="train", metavar="SPLIT")
    parser.add_argument("--report-split", default="test", metavar="SPLIT")
    parser.add_argument(
        "--objective", help="ranking measure to maximise (default: the grid's first measure)"
    )
    parser.add_argument("--grounding-objective", default="f1", choices=_GROUNDING_OBJECTIVES)
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="report directory (default: reports/<name>-tune)"
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
    from tabulate import tabulate

    from ragward.evals.eval_command import _progress_stream, check_split, prepare
    from ragward.evals.report import write_text
    from ragward.evals.runner import run_grid
    from ragward.evals.scoring import score_outcome

    dataset, grid, factory = prepare(args)
    if args.tune_split == args.report_split:
        raise InputError("--tune-split and --report-split must differ")
    for split in (args.tune_split, args.report_split):
        check_split(dataset, split)
    objective = args.objective or grid.measures[0]
    if objective not in grid.measures:
        raise InputError(
            f"--objective {objective!r} is not a measure of the grid ({', '.join(grid.measures)})"
        )
    outcome = run_grid(
        dataset,
        grid,
        factory,
        splits=(args.tune_split, args.report_split),
        name=args.impl,
        reuse=not args.no_reuse,
        stream=_progress_stream(args),
    )
    tune, _ = score_outcome(outcome, dataset, grid, args.tune_split)
    report, _ = score_outcome(outcome, dataset, grid, args.report_split)
    best, threshold = choose(tune, objective, args.grounding_objective)
    held_out = {s.setting.id: s for s in report}[best.setting.id]
    default = _default_setting(report, best.setting)
    data: dict[str, Any] = {
        "format": "ragward-tune/1",
        "name": grid.name,
        "dataset": dataset.name,
        "implementation": args.impl,
        "tune_split": args.tune_split,
        "report_split": args.report_split,
        "objective": objective,
        "grounding_objective": args.grounding_objective,
        "chosen": {
            "setting": best.setting.id,
            "rrf_k": best.setting.rrf_k,
            "min_overlap": threshold,
        },
        "tune": _figures(best, threshold, objective, args.grounding_objective),
        "report": _figures(held_out, threshold, objective, args.grounding_objective),
        "report_default": None
        if default is None
        else {
            "setting": default.setting.id,
            **_figures(
                default,
                0.6 if 0.6 in default.grounding else None,
                objective,
                args.grounding_objective,
            ),
        },
    }
    rows = [
        ["setting", best.setting.id, "", "", default.setting.id if default else "n/a"],
        ["rrf_k", _show(best.setting.rrf_k), "", "", "60" if default else "n/a"],
        [
            objective,
            "",
            data["tune"][objective],
            data["report"][objective],
            data["report_default"][objective] if default else "n/a",
        ],
        ["min_overlap", _show(threshold), "", "", "0.6"],
    ]
    if threshold is not None:
        for name in ("f1", "precision", "recall", "false_support"):
            rows.append(
                [
                    f"grounding {name}",
                    "",
                    data["tune"]["grounding"][name],
                    data["report"]["grounding"][name],
                    (data["report_default"] or {}).get("grounding", {}).get(name, "n/a"),
                ]
            )
    headers = [
        "",
        "chosen",
        f"on {args.tune_split}",
        f"on {args.report_split}",
        f"default on {args.report_split}",
    ]
    text = tabulate(rows, headers=headers, tablefmt="github", floatfmt=".4f")
    out = args.out if args.out is not None else Path("reports") / f"{grid.name}-tune"
    write_text(out / "tune.json", json.dumps(data, indent=1) + "\n")
    write_text(
        out / "tune.md",
        f"# Tuning: {grid.name}\n\nObjective `{objective}`, grounding "
        f"objective `{args.grounding_objective}`.\n\n{text}\n",
    )
    print(text)
    print(f"\nwrote {out / 'tune.json'}, {out / 'tune.md'}")
    return 0


def _default_setting(report: Sequence[Any], chosen: Any) -> Any:
    for scores in report:
        s = scores.setting
        if (s.index, s.mode, s.rerank, s.candidate_limit, s.rrf_k) == (
            chosen.index,
            "hybrid",
            chosen.rerank,
            chosen.candidate_limit,
            60.0,
        ):
            return scores
    return None


def _figures(
    scores: Any, threshold: float | None, objective: str, grounding_objective: str
) -> dict[str, Any]:
    out: dict[str, Any] = {objective: scores.means[objective], "means": dict(scores.means)}
    if threshold is not None and threshold in scores.grounding:
        out["grounding"] = scores.grounding[threshold].measures()
    return out


def _show(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"
