"""SciFact with a real model: reproduction, tuning and the cost of encoding, in one run.

    python -m ragward.bench.quality --data "$RAGWARD_DATA/scifact" [--cache DIR]
        [--grid FILE] [--against SETTING] [--out DIR]

Writes ``reports/scifact-models/quality.json`` and ``quality.md`` with:

* **reproduction** on the test split — ragward lexical (one chunk per document, title +
  text) against bm25s scored by pytrec_eval, and ragward MiniLM dense against the same
  model run directly (:mod:`ragward.bench.anchors`);
* **tuning** — the grid (``grids/scifact-minilm.toml`` by default) run on train and test;
  the setting with the best train nDCG@10, its test figures, and the paired
  randomization test of the tuned hybrid against the best lexical setting (also chosen
  on train) over the test queries, and of the chosen setting against the best lexical one
  and against ``--against`` (a setting of the grid, e.g. the best of before);
* **encoding** — the grid's wall time and the share spent encoding, first as the cache
  stood, then again with the cache filled.

Needs the ``models`` and ``bench`` extras.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from ragward.errors import InputError, RagwardError

__all__ = ["main"]

_OUT = Path("reports/scifact-models")

_MEASURES = ("ndcg_cut_10", "recall_100")
#: What is reproduced: name, embedder, mode and analyzer of the ragward side.
_REPRODUCED = (
    ("lexical", "hash-96", "lexical", None),
    ("lexical english", "hash-96", "lexical", "english"),
    ("dense", "minilm", "dense", None),
)


def _lines(path: Path) -> list[dict[str, Any]]:
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _reproduce(beir: Path, dataset: Any, work: Path) -> dict[str, Any]:
    from ragward.bench.anchors import (
        bm25s_english_run,
        bm25s_run,
        dense_run,
        minilm_direct,
        pytrec_means,
        reproduction_grid,
    )
    from ragward.evals import evaluate, load_grid

    qrels = dataset.qrels["test"]
    corpus = _lines(next(beir.glob("corpus.jsonl*")))
    texts = [(d["_id"], f"{d.get('title', '')} {d['text']}") for d in corpus]
    queries = {q.query_id: q.text for q in dataset.split_queries("test")}
    out: dict[str, Any] = {}
    for name, embedder, mode, analyzer in _REPRODUCED:
        grid_file = work / f"{name}.toml"
        grid_file.write_text(reproduction_grid(embedder, mode, analyzer), encoding="utf-8")
        (ours,) = evaluate(dataset, grid=load_grid(grid_file)).settings
        started = time.perf_counter()
        if name == "lexical":
            run = bm25s_run(texts, queries)
            anchor = "bm25s 'lucene' (k1 1.5, b 0.75) on ragward's tokens, pytrec_eval"
        elif name == "lexical english":
            run = bm25s_english_run(texts, queries)
            anchor = (
                "bm25s 'lucene' analysing the text itself (\\w+, its English stop words, "
                "PyStemmer's Snowball English), pytrec_eval"
            )
        else:
            docs = minilm_direct([t for _, t in texts])
            asked = list(queries)
            vectors = dict(zip(asked, minilm_direct([queries[q] for q in asked]), strict=True))
            run = dense_run([i for i, _ in texts], docs, vectors)
            anchor = "int8 MiniLM run directly with onnxruntime, one matrix product, pytrec_eval"
        theirs = pytrec_means(qrels, run, _MEASURES)
        out[name] = {
            "anchor": anchor,
            "anchor_seconds": round(time.perf_counter() - started, 1),
            "ragward": {m: ours.means[m] for m in _MEASURES},
            "anchor_figures": theirs,
            "difference": {m: ours.means[m] - theirs[m] for m in _MEASURES},
        }
    return out


def _encoding() -> dict[str, float]:
    from ragward.models.registry import encoding_stats

    stats = encoding_stats()
    return {
        "hits": stats.hits,
        "misses": stats.misses,
        "corrupt": stats.corrupt,
        "encode_seconds": stats.encode_seconds,
    }


def _grid_run(dataset: Any, grid: Any, splits: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    import io

    from ragward.engines.reference import reference_factory
    from ragward.evals.runner import run_grid

    before = _encoding()
    started = time.perf_counter()
    outcome = run_grid(dataset, grid, reference_factory, splits=splits, stream=io.StringIO())
    wall = time.perf_counter() - started
    after = _encoding()
    spent = {k: after[k] - before[k] for k in after}
    encode = spent["encode_seconds"]
    return outcome, {
        "wall_seconds": round(wall, 1),
        "encode_seconds": round(encode, 1),
        "encode_share": round(encode / wall, 4) if wall else 0.0,
        "texts_from_cache": int(spent["hits"]),
        "texts_encoded": int(spent["misses"]),
    }


def _tune(
    dataset: Any, grid: Any, against: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    from ragward.evals.scoring import score_outcome
    from ragward.evals.significance import paired_randomization
    from ragward.evals.tune import choose

    outcome, cost = _grid_run(dataset, grid, ("train", "test"))
    train, _ = score_outcome(outcome, dataset, grid, "train")
    test, _ = score_outcome(outcome, dataset, grid, "test")
    on_test = {s.setting.id: s for s in test}
    objective = grid.measures[0]

    def best(scores: Sequence[Any], mode: str | None = None) -> Any:
        pool = [s for s in scores if mode is None or s.setting.mode == mode]
        return max(enumerate(pool), key=lambda item: (item[1].means[objective], -item[0]))[1]

    chosen, _ = choose(train, objective, "accuracy")  # what `ragward tune` picks
    hybrid, lexical = best(train, "hybrid"), best(train, "lexical")
    queries = sorted(on_test[chosen.setting.id].per_query[objective])

    def values(setting_id: str) -> list[float]:
        return [on_test[setting_id].per_query[objective][q] for q in queries]

    comparison = paired_randomization(values(lexical.setting.id), values(hybrid.setting.id))
    if against is not None and against not in on_test:
        raise InputError(f"--against {against}: no such setting in the grid")
    rows = [
        {
            "setting": s.setting.id,
            "train": {m: t.means[m] for m in grid.measures},
            "test": {m: s.means[m] for m in grid.measures},
        }
        for t, s in zip(train, test, strict=True)
    ]
    tuned = {
        "objective": objective,
        "chosen_on_train": chosen.setting.id,
        "chosen_train": chosen.means[objective],
        "chosen_test": on_test[chosen.setting.id].means[objective],
        "hybrid_on_train": hybrid.setting.id,
        "hybrid_test": on_test[hybrid.setting.id].means[objective],
        "lexical_on_train": lexical.setting.id,
        "lexical_test": on_test[lexical.setting.id].means[objective],
        "hybrid_vs_lexical_test": {
            "delta": comparison.delta,
            "p_two_sided": comparison.p_value,
            "p_increase": comparison.p_increase,
            "queries": comparison.n,
            "trials": comparison.trials,
        },
        "settings": rows,
    }
    for name, other in (("lexical", lexical.setting.id), ("against", against)):
        if other is None:
            continue
        versus = paired_randomization(values(other), values(chosen.setting.id))
        tuned[f"chosen_vs_{name}_test"] = {
            "setting": other,
            "test": on_test[other].means[objective],
            "delta": versus.delta,
            "p_two_sided": versus.p_value,
            "queries": versus.n,
            "trials": versus.trials,
        }
    return tuned, cost


def _markdown(report: Mapping[str, Any]) -> str:
    rep, tuned = report["reproduction"], report["tuning"]
    cold, warm = report["encoding"]["first_run"], report["encoding"]["warm_run"]
    lines = [
        "# SciFact with all-MiniLM-L6-v2 (int8 ONNX)",
        "",
        f"Command: `{report['command']}`. Test split, {report['test_queries']} queries; "
        f"{report['documents']} documents.",
        "",
        "## Reproduction (test split)",
        "",
        "| what | ragward nDCG@10 | anchor nDCG@10 | ragward R@100 | anchor R@100 | anchor |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in rep:
        ours, theirs = rep[name]["ragward"], rep[name]["anchor_figures"]
        lines.append(
            f"| {name} | {ours['ndcg_cut_10']:.4f} | {theirs['ndcg_cut_10']:.4f}"
            f" | {ours['recall_100']:.4f} | {theirs['recall_100']:.4f} | {rep[name]['anchor']} |"
        )
    test = tuned["hybrid_vs_lexical_test"]
    lines += [
        "",
        "## Tuned on train, reported on test",
        "",
        f"- best setting on train ({tuned['objective']}): `{tuned['chosen_on_train']}` — "
        f"train {tuned['chosen_train']:.4f}, **test {tuned['chosen_test']:.4f}**",
        f"- best hybrid on train: `{tuned['hybrid_on_train']}` — test {tuned['hybrid_test']:.4f}",
        f"- best lexical on train: `{tuned['lexical_on_train']}` — test "
        f"{tuned['lexical_test']:.4f}",
        f"- hybrid minus lexical on test: {test['delta']:+.4f} over {test['queries']} queries, "
        f"paired randomization p = {test['p_two_sided']:.4g} (two-sided; "
        f"{test['trials']} sign patterns)",
        *[
            f"- chosen minus {v['setting']} (test {v['test']:.4f}) on test: {v['delta']:+.4f}, "
            f"paired randomization p = {v['p_two_sided']:.4g} (two-sided; {v['trials']} sign "
            "patterns)"
            for k, v in tuned.items()
            if k.startswith("chosen_vs_")
        ],
        "",
        "| setting | train nDCG@10 | test nDCG@10 | train R@100 | test R@100 |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in tuned["settings"]:
        lines.append(
            f"| `{row['setting']}` | {row['train']['ndcg_cut_10']:.4f} | "
            f"{row['test']['ndcg_cut_10']:.4f} | {row['train']['recall_100']:.4f} | "
            f"{row['test']['recall_100']:.4f} |"
        )
    lines += [
        "",
        "## Encoding",
        "",
        "| run | wall s | encoding s | share | texts from cache | texts encoded |",
        "| --- | --- | --- | --- | --- | --- |",
        f"| first (cache as found) | {cold['wall_seconds']} | {cold['encode_seconds']} | "
        f"{cold['encode_share']:.1%} | {cold['texts_from_cache']} | {cold['texts_encoded']} |",
        f"| again, cache filled | {warm['wall_seconds']} | {warm['encode_seconds']} | "
        f"{warm['encode_share']:.1%} | {warm['texts_from_cache']} | {warm['texts_encoded']} |",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ragward.bench.quality",
        description="SciFact with MiniLM: reproduction, tuning (train -> test), encoding cost.",
    )
    parser.add_argument(
        "--data", type=Path, help="SciFact folder (with beir/); default: $RAGWARD_DATA/scifact"
    )
    parser.add_argument("--grid", type=Path, help="grid to tune (default: scifact-minilm)")
    parser.add_argument("--cache", help="embedding cache directory (default: the user's)")
    parser.add_argument(
        "--against", help="a setting id the chosen one is tested against on test (paired)"
    )
    parser.add_argument("--out", type=Path, default=_OUT)
    args = parser.parse_args(argv)
    # the command as a reader would type it: no paths of this machine in a report
    shown = ["python -m ragward.bench.quality", '--data "$RAGWARD_DATA/scifact"']
    shown += ["--cache DIR"] if args.cache else []
    shown += ["--grid", args.grid.name] if args.grid else []
    shown += ["--against", args.against] if args.against else []
    shown += ["--out", args.out.as_posix()] if args.out != _OUT else []
    try:
        return _run(args, " ".join(shown))
    except RagwardError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, command: str) -> int:
    from ragward.cli.evaluate import use_cache

    data = args.data or (Path(os.environ.get("RAGWARD_DATA", "")) / "scifact")
    beir = data / "beir"
    if not beir.is_dir():
        raise InputError(f"{beir}: not found; pass --data DIR holding SciFact's beir/")
    with contextlib.ExitStack() as stack:  # --cache holds for this run only
        use_cache(args.cache, stack)
        return _measured(args, command, beir)


def _measured(args: argparse.Namespace, command: str, beir: Path) -> int:
    from ragward.evals import load_dataset, load_grid

    args.out.mkdir(parents=True, exist_ok=True)
    # A scratch folder of its own, removed whole: never one the user may have made.
    with tempfile.TemporaryDirectory(prefix="ragward-quality-") as scratch:
        work = Path(scratch)
        if args.grid is not None:
            grid = load_grid(args.grid)
        else:
            source = resources.files("ragward.evals").joinpath("grids/scifact-minilm.toml")
            packaged = work / "scifact-minilm.toml"
            packaged.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
            grid = load_grid(packaged)
        dataset = load_dataset(beir)
        tuned, first = _tune(dataset, grid, args.against)
        _, warm = _grid_run(dataset, replace(grid), ("train", "test"))
        report = {
            "command": command,
            "documents": len(dataset.docs),
            "test_queries": len(dataset.split_queries("test")),
            "reproduction": _reproduce(beir, dataset, work),
            "tuning": tuned,
            "encoding": {"first_run": first, "warm_run": warm},
        }
    (args.out / "quality.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (args.out / "quality.md").write_text(_markdown(report), encoding="utf-8")
    print(_markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
