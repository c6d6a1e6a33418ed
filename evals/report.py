"""Reports of an eval run: ``results.json``, ``summary.md`` and SVG plots.

Everything written is a pure function of the inputs: settings and figures in grid order,
floats in their shortest round-trip form, no timestamps, no timings. Running the same grid
on the same data twice gives the same bytes, so a report can be committed and diffed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from ragward.evals.fingerprints import fingerprints, identity_of, markdown
from ragward.evals.grid import OWN_INDEX, Grid, RetrievalSetting
from ragward.evals.grounding import GroundingScores
from ragward.evals.plots import Series, line_chart
from ragward.evals.records import Dataset
from ragward.evals.run_results import FORMAT
from ragward.evals.runner import GridOutcome
from ragward.evals.scoring import SettingScores
from ragward.evals.trec import qrels_text, run_text
from ragward.outputs import ReportKind, replaced_directory, write_atomic

__all__ = [
    "FORMAT",
    "REPORT_MARKER",
    "build_results",
    "setting_data",
    "table",
    "trec_files",
    "write_report",
]


#: What makes a directory an eval report, which a new report may replace: a
#: ``results.json`` tagged with ``FORMAT`` (any version of it).
REPORT_MARKER = ReportKind("results.json", FORMAT, "eval report")


def setting_data(setting: RetrievalSetting) -> dict[str, Any]:
    return {
        "id": setting.id,
        "max_tokens": setting.index.max_tokens,
        "overlap_tokens": setting.index.overlap_tokens,
        "lexical_max_tokens": setting.index.lexical_max_tokens,
        "embedder": setting.index.embedder,
        "mode": setting.mode,
        "rrf_k": setting.rrf_k,
        "rerank": setting.reranker,
        "candidate_limit": setting.candidate_limit,
        # only where named or not the default, so a report of before reads the same
        **({"analyzer": setting.index.analyzer} if setting.index.analyzer is not None else {}),
        **({"counter": setting.index.counter} if setting.index.counter is not None else {}),
        **({"fusion": setting.fusion} if setting.fusion != "rrf" else {}),
        **({"dense_weight": setting.dense_weight} if setting.dense_weight != 0.5 else {}),
    }


def build_results(
    *,
    dataset: Dataset,
    grid: Grid,
    split: str,
    implementation: str,
    outcome: GridOutcome,
    scores: Sequence[SettingScores],
    gold: Mapping[float, GroundingScores],
) -> dict[str, Any]:
    """The content of ``results.json``; ``implementation`` is the ``--impl`` string (or
    how an ``--external`` peer is named)."""
    claims = dataset.split_claims(split)
    return {
        "format": FORMAT,
        "name": grid.name,
        "dataset": {
            "name": dataset.name,
            "split": split,
            "documents": len(dataset.docs),
            "queries": len(dataset.split_queries(split)),
            "claims": len(claims),
            "sources": dict(dataset.sources),
        },
        "implementation": implementation,
        "fingerprints": fingerprints(
            dataset, split, grid, identity_of(implementation, outcome), outcome.models
        ),
        "index_settings_passed": outcome.index_settings_passed,
        "first_stages_reused": outcome.staged,
        "depth_unit": outcome.depth_unit,
        "grounding": outcome.grounding,
        "work": dict(outcome.work),
        **({"truncated_chunks": dict(outcome.truncated)} if outcome.truncated else {}),
        "grid": grid.to_data(),
        "settings": [
            {
                **setting_data(s.setting),
                "means": dict(s.means),
                "grounding": {
                    _key(t): {**g.measures(), **_counts(g)} for t, g in s.grounding.items()
                },
                "per_query": {m: dict(v) for m, v in s.per_query.items()},
                "per_claim": {_key(t): dict(v) for t, v in s.per_claim.items()},
            }
            for s in scores
        ],
        "gold_grounding": {_key(t): {**g.measures(), **_counts(g)} for t, g in gold.items()},
        "claim_kinds": _kinds(dataset, split),
        "called_supported_by_kind": _by_kind(dataset, split, outcome, scores),
    }


def table(results: Mapping[str, Any], *, fmt: str = "simple") -> str:
    """One row per setting: its knobs and the mean of every measure."""
    rows = []
    measures: list[str] = []
    for entry in results["settings"]:
        measures = list(entry["means"])
        knobs = [
            _chunking_label(entry),
            _own(entry["embedder"]),
            entry["mode"],
            _fusion_label(entry),
            _reranker_label(entry["rerank"]),
            entry["candidate_limit"],
        ]
        rows.append(knobs + [entry["means"][m] for m in measures])
    headers = ["chunking", "embedder", "mode", "fusion", "rerank", "cand", *measures]
    return tabulate(rows, headers=headers, tablefmt=fmt, floatfmt=".4f")


def write_report(
    out: Path, results: Mapping[str, Any], extra: Mapping[str, str] | None = None
) -> list[Path]:
    """Write ``results.json``, ``summary.md``, the plots and ``extra`` (relative name ->
    text) as the report directory ``out``; their paths.

    The report replaces ``out`` whole (see :func:`ragward.outputs.replaced_directory`):
    an interrupted write leaves the previous report intact, and no file of an earlier
    report (a plot, a TREC run of a setting no longer in the grid) stays beside the new
    one. A non-empty ``out`` that is not an eval report (a ``results.json`` with ragward's
    format tag) is refused, not replaced.
    """
    plots = _plots(results)
    files = {
        "results.json": json.dumps(results, indent=1, ensure_ascii=False) + "\n",
        "summary.md": _summary(results, list(plots)),
    }
    files.update(plots)
    files.update(extra or {})
    with replaced_directory(out, marker=REPORT_MARKER) as staging:
        for name, text in files.items():
            write_atomic(staging / name, text)
    return [out / name for name in files]


def trec_files(dataset: Dataset, split: str, outcome: GridOutcome) -> dict[str, str]:
    """The split's qrels and one TREC run per setting (document rankings by first
    occurrence), for ``trec_eval``, ``pytrec_eval`` or ``ragward metrics``."""
    queries = [q.query_id for q in dataset.split_queries(split)]
    files = {f"trec/qrels.{split}.txt": qrels_text(dataset.qrels[split])}
    for setting in outcome.settings:
        answers = outcome.answers[setting.id]
        rankings = {qid: answers[qid].ranking for qid in queries}
        name = setting.id.replace("/", "_")
        files[f"trec/{name}.run"] = run_text(rankings, tag=name)
    return files


def _own(value: object) -> str:
    # null chunking or embedder: the implementation's own (its index settings not passed)
    return OWN_INDEX if value is None else str(value)


def _chunking_label(entry: Mapping[str, Any]) -> str:
    if entry["max_tokens"] is None:
        size = OWN_INDEX
    else:
        size = f"{entry['max_tokens']}/{entry['overlap_tokens']}"
    lexical = entry.get("lexical_max_tokens")
    size += f"+lex{lexical}" if lexical else ""
    # the analyzer and the counter, where the grid names them: another index each
    size += f" {entry['analyzer']}" if entry.get("analyzer") else ""
    return size + (f" {entry['counter']} tokens" if entry.get("counter") else "")


def _summary(results: Mapping[str, Any], plot_names: Sequence[str]) -> str:
    data = results["dataset"]
    lines = [
        f"# Eval report: {results['name']}",
        "",
        f"Dataset `{data['name']}`, split `{data['split']}`: {data['documents']} document "
        f"versions, {data['queries']} judged queries, {data['claims']} labelled claims. "
        f"Implementation `{results['implementation']}`.",
        "",
        "## Retrieval (means over judged queries; leakage = share of queries answered with "
        "anything outside the asker's eligible view)",
        "",
        table(results, fmt="github"),
        "",
    ]
    for label, cut in results.get("truncated_chunks", {}).items():
        if cut["truncated"]:
            lines += [
                f"Index `{label}`: the embedder cut {cut['truncated']} of {cut['embedded']} "
                f"chunks at its limit of {cut['limit']} tokens (their ends are not in their "
                "vectors); size chunks in its tokens (index.counter) to avoid it.",
                "",
            ]
    if results["settings"] and results["settings"][0]["grounding"]:
        first = results["settings"][0]
        lines += [
            f"## Grounding of `{first['id']}` (end to end) and with gold evidence",
            "",
            _grounding_table(first["grounding"], results["gold_grounding"]),
            "",
        ]
    elif not results["grounding"]:
        lines += ["Grounding: n/a (the implementation does not declare `grounding`).", ""]
    by_kind = results.get("called_supported_by_kind", {})
    if by_kind:
        thresholds = list(by_kind)
        kinds = list(by_kind[thresholds[0]])
        labels = results["claim_kinds"]
        rows = [
            [kind, f"{labels[kind]['supported']}/{labels[kind]['unsupported']}"]
            + [by_kind[t][kind]["end_to_end"] for t in thresholds]
            + [by_kind[t][kind]["gold"] for t in thresholds]
            for kind in kinds
        ]
        headers = ["kind", "labelled +/-"]
        headers += [f"e2e @{t}" for t in thresholds] + [f"gold @{t}" for t in thresholds]
        lines += [
            "## Share of claims called supported, by kind",
            "",
            tabulate(rows, headers=headers, tablefmt="github", floatfmt=".2f"),
            "",
        ]
    if "fingerprints" in results:
        lines += markdown(results["fingerprints"])
    lines += ["Plots: " + ", ".join(f"`{name}`" for name in plot_names), ""]
    return "\n".join(lines)


def _grounding_table(e2e: Mapping[str, Any], gold: Mapping[str, Any]) -> str:
    names = ["coverage", "precision", "recall", "f1", "false_support"]
    rows = [
        [threshold, *[e2e[threshold][n] for n in names], *[gold[threshold][n] for n in names]]
        for threshold in e2e
    ]
    headers = ["min_overlap", *names, *[f"gold {n}" for n in names]]
    return tabulate(rows, headers=headers, tablefmt="github", floatfmt=".3f")


def _fusion_label(entry: Mapping[str, Any]) -> str:
    """``60`` (RRF's ``k``), ``60 w0.3`` (weighted), ``minmax w0.5``; empty outside hybrid."""
    if entry["mode"] != "hybrid":
        return ""
    weight = entry.get("dense_weight", 0.5)
    shown = "" if entry.get("fusion", "rrf") == "rrf" and weight == 0.5 else f" w{weight:g}"
    if entry.get("fusion", "rrf") == "rrf":
        return f"{entry['rrf_k']:g}{shown}" if entry["rrf_k"] is not None else shown.strip()
    return f"{entry['fusion']} w{weight:g}"


def _plots(results: Mapping[str, Any]) -> dict[str, str]:
    settings = results["settings"]
    plots: dict[str, str] = {}
    hybrid = [s for s in settings if s["mode"] == "hybrid"]
    if hybrid:
        metric = next(iter(hybrid[0]["means"]))
        limit = hybrid[0]["candidate_limit"]
        series: dict[str, list[tuple[float, float]]] = {}
        for s in hybrid:
            if s["candidate_limit"] == limit and s["rrf_k"] is not None:
                rerank = f"rerank {_reranker_label(s['rerank'])}"
                label = f"chunks {_chunking_label(s)} {_own(s['embedder'])} {rerank}"
                series.setdefault(label, []).append((s["rrf_k"], s["means"][metric]))
        plots[f"{metric}_vs_rrf_k.svg"] = line_chart(
            f"{metric} vs rrf_k (hybrid, candidate_limit {limit})",
            "rrf_k",
            metric,
            [Series(name, tuple(sorted(points))) for name, points in series.items()],
            x_log=True,
        )
    if settings and settings[0]["grounding"]:
        first, gold = settings[0]["grounding"], results["gold_grounding"]
        curves = [
            Series(f"{what} ({source})", tuple((float(t), table[t][what]) for t in table))
            for source, table in (("end to end", first), ("gold evidence", gold))
            for what in ("precision", "recall")
        ]
        plots["grounding_vs_min_overlap.svg"] = line_chart(
            f"grounding vs min_overlap ({settings[0]['id']})", "min_overlap", "", curves
        )
    return plots


def _by_kind(
    dataset: Dataset, split: str, outcome: GridOutcome, scores: Sequence[SettingScores]
) -> dict[str, dict[str, dict[str, float]]]:
    """Per threshold and claim kind, the share called supported: end to end under the
    first setting, and with gold evidence."""
    claims = dataset.split_claims(split)
    if not claims or not scores or not outcome.gold:
        return {}
    first = outcome.verdicts.get(scores[0].setting.id, {})
    out: dict[str, dict[str, dict[str, float]]] = {}
    for threshold, gold in outcome.gold.items():
        rows: dict[str, list[tuple[bool, bool]]] = {}
        for claim in claims:
            called = first[threshold][claim.claim_id]
            rows.setdefault(claim.kind or "unlabelled", []).append((called, gold[claim.claim_id]))
        out[_key(threshold)] = {
            kind: {
                "claims": float(len(pairs)),
                "end_to_end": sum(c for c, _ in pairs) / len(pairs),
                "gold": sum(g for _, g in pairs) / len(pairs),
            }
            for kind, pairs in sorted(rows.items())
        }
    return out


def _kinds(dataset: Dataset, split: str) -> dict[str, dict[str, int]]:
    kinds: dict[str, dict[str, int]] = {}
    for claim in dataset.split_claims(split):
        entry = kinds.setdefault(claim.kind or "unlabelled", {"supported": 0, "unsupported": 0})
        entry["supported" if claim.supported else "unsupported"] += 1
    return dict(sorted(kinds.items()))


def _counts(scores: GroundingScores) -> dict[str, int]:
    return {
        "true_support": scores.true_support,
        "false_support_count": scores.false_support,
        "true_reject": scores.true_reject,
        "false_reject": scores.false_reject,
    }


def _key(threshold: float) -> str:
    return f"{threshold:g}"


def _reranker_label(value: object) -> str:
    # results.json of ragward before rerankers had names held a boolean
    if isinstance(value, bool):
        return "default" if value else "none"
    return str(value)
