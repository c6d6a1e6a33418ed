"""Tuning: choose settings on one split, report them on another.

The retrieval setting (and so ``rrf_k``) is the one with the best mean objective on the
tuning split; ``min_overlap`` is the threshold with the best grounding objective for that
setting's answers on the tuning split. Ties go to the earlier setting in grid order and to
the stricter (higher) threshold. Both choices are then measured on the report split, next
to the reference defaults (``rrf_k`` 60, ``min_overlap`` 0.6), which is the only honest
figure: the tuning split's numbers are optimistic by construction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragward.outputs import ReportKind

__all__ = ["FORMAT", "GROUNDING_OBJECTIVES", "TUNE_REPORT", "Tuning", "choose", "tune_outcome"]

#: The format tag of ``tune.json``; 2 added ``fingerprints`` (as ``results.json``'s, of
#: the report split, with the tuning split's data beside it).
FORMAT = "ragward-tune/2"
GROUNDING_OBJECTIVES = ("accuracy", "f1", "precision", "recall")
#: What makes a directory a tune report, which a new one replaces.
TUNE_REPORT = ReportKind("tune.json", FORMAT, "tune report")


@dataclass(frozen=True)
class Tuning:
    """The choices and their figures: ``text`` the tables, ``data`` the ``tune.json``."""

    text: str
    data: dict[str, Any]

    def write(self, out: Path) -> None:
        """Replace the report folder ``out`` whole with ``tune.json`` and ``tune.md``."""
        from ragward.outputs import replaced_directory, write_atomic

        d = self.data
        with replaced_directory(out, marker=TUNE_REPORT) as staging:  # the whole report, or none
            write_atomic(staging / "tune.json", json.dumps(d, indent=1) + "\n")
            write_atomic(
                staging / "tune.md",
                f"# Tuning: {d['name']}\n\nChosen on `{d['tune_split']}` by `{d['objective']}` "
                f"(retrieval) and `{d['grounding_objective']}` (grounding), reported on "
                f"`{d['report_split']}`.\n\n{self.text}\n",
            )


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


def tune_outcome(
    outcome: Any,
    dataset: Any,
    grid: Any,
    name: str,
    *,
    tune_split: str,
    report_split: str,
    objective: str,
    grounding_objective: str,
) -> Tuning:
    """The choices made on ``tune_split`` of a grid's ``outcome`` (run on both splits),
    reported on ``report_split``."""
    from tabulate import tabulate

    from ragward.evals.scoring import score_outcome

    tune, _ = score_outcome(outcome, dataset, grid, tune_split)
    report, _ = score_outcome(outcome, dataset, grid, report_split)
    best, threshold = choose(tune, objective, grounding_objective)
    hybrid = [t for t in tune if t.setting.mode == "hybrid"]
    best_hybrid = choose(hybrid, objective, grounding_objective)[0] if hybrid else None
    default = _default_setting(tune, best_hybrid.setting) if best_hybrid else None
    held = {s.setting.id: s for s in report}
    grounding = grounding_objective

    def row(label: str, value: str, scores: Any, pick: Any) -> list[Any]:
        return [label, value, pick(scores), pick(held[scores.setting.id])]

    def mean(scores: Any) -> float:
        return float(scores.means[objective])

    rows = [row("best setting", best.setting.id, best, mean)]
    chosen: dict[str, Any] = {"setting": best.setting.id, "rrf_k": None, "min_overlap": threshold}
    if best_hybrid is not None:
        chosen["rrf_k"] = best_hybrid.setting.rrf_k
        chosen["rrf_k_setting"] = best_hybrid.setting.id
        chosen["fusion"] = best_hybrid.setting.fusion
        chosen["dense_weight"] = best_hybrid.setting.dense_weight
        rows.append(_rrf_row("rrf_k (best hybrid)", hybrid, best_hybrid, objective, row, mean))
        if {(t.setting.fusion, t.setting.dense_weight) for t in hybrid} != {("rrf", 0.5)}:
            picked = best_hybrid.setting
            shown = f"{picked.fusion}, dense_weight {picked.dense_weight:g}"
            rows.append(row("fusion (best hybrid)", shown, best_hybrid, mean))
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
    headers = ["choice", "value", f"on {tune_split}", f"on {report_split}"]
    text = tabulate(rows, headers=headers, tablefmt="github", floatfmt=".4f")
    if detail:
        text += f"\n\nGrounding of the best setting at min_overlap {threshold:g}:\n\n" + tabulate(
            detail,
            headers=["", f"on {tune_split}", f"on {report_split}"],
            tablefmt="github",
            floatfmt=".4f",
        )
    data: dict[str, Any] = {
        "format": FORMAT,
        "name": grid.name,
        "dataset": dataset.name,
        "implementation": name,
        "fingerprints": _fingerprints(dataset, grid, name, outcome, tune_split, report_split),
        "tune_split": tune_split,
        "report_split": report_split,
        "objective": objective,
        "grounding_objective": grounding,
        "chosen": chosen,
        "rows": [dict(zip(headers, r, strict=True)) for r in rows],
        "grounding": [
            dict(zip(["measure", tune_split, report_split], r, strict=True)) for r in detail
        ],
    }
    return Tuning(text, data)


def _fingerprints(
    dataset: Any, grid: Any, name: str, outcome: Any, tune_split: str, report_split: str
) -> dict[str, Any]:
    """``results.json``'s fingerprints of the report split, with the tuning split's
    queries, judgements and claims beside them as ``queries_tune``, ``qrels_tune`` and
    ``claims_tune``."""
    from ragward.evals.fingerprints import data_fingerprints, fingerprints, identity_of

    identity = identity_of(name, outcome)
    prints = fingerprints(dataset, report_split, grid, identity, outcome.models)
    tuned = data_fingerprints(dataset, tune_split)
    prints["data"].update({f"{key}_tune": tuned[key] for key in ("queries", "qrels", "claims")})
    return prints


def _default_setting(report: Sequence[Any], chosen: Any) -> Any:
    for scores in report:
        s = scores.setting
        if (s.index, s.mode, s.reranker, s.candidate_limit, s.rrf_k, s.fusion, s.dense_weight) == (
            chosen.index,
            "hybrid",
            chosen.reranker,
            chosen.candidate_limit,
            60.0,
            "rrf",
            0.5,
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
        and s.setting.rrf_k is not None
        and (s.setting.index, s.setting.reranker, s.setting.candidate_limit)
        == (b.index, b.reranker, b.candidate_limit)
        and (s.setting.fusion, s.setting.dense_weight) == (b.fusion, b.dense_weight)
        and s.means[objective] == best.means[objective]
    ]


def _show(value: float | None) -> str:
    return "n/a" if value is None else f"{value:g}"
