"""The eval harness through every engine configuration, beside the reference.

    python -m ragward.bench.engines --data "$RAGWARD_DATA/scifact" [--only LABEL,...]
    python -m ragward.bench.engines --tidewater-only [--only LABEL,...]

Each column (the reference, then every installed configuration of ``ragward engines``)
is evaluated by the harness exactly as ``ragward eval --impl ...`` evaluates it:

* **SciFact** (test split, the whole corpus), one chunk per document (title and text),
  all-MiniLM-L6-v2 vectors (``minilm``, from the embedding cache once the first column
  has filled it), every mode the configuration declares, ``rrf_k`` 60, candidate depth
  100: nDCG@10, R@100, the harness's leakage@100, ingest wall time (every document, its
  encoding included) and the latency of each ``retrieve`` call, p50 and p95;
* **Tidewater** (the bundled multi-tenant set, hash embedder): nDCG@10 and leakage, the
  figure that says whether an engine answers outside the asker's view on real labels.

Writes ``reports/engines/quality.json`` and ``quality.md``. Latencies are wall times of
one process on a shared machine: read them as ratios between columns measured in the
same run, not as absolute figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from ragward.errors import RagwardError

__all__ = ["main"]

_SCIFACT = ("ndcg_cut_10", "recall_100", "leakage_100")
_TIDEWATER_DEPTH = 10


class _Timed:
    """A system whose ingests and retrieves are timed (the harness sees the same verbs)."""

    def __init__(self, system: Any, clock: dict[str, Any]) -> None:
        self._system = system
        self._clock = clock

    @property
    def capabilities(self) -> Any:
        return self._system.capabilities

    def ingest(self, doc: Any) -> bool:
        started = time.perf_counter()
        try:
            return bool(self._system.ingest(doc))
        finally:
            self._clock["ingest"] += time.perf_counter() - started

    def _ingest_many(self, docs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self._system.ingest_many(docs)
        finally:
            self._clock["ingest"] += time.perf_counter() - started

    def delete(self, tenant: str, doc_id: str) -> None:
        self._system.delete(tenant, doc_id)

    def retrieve(self, query: str, asker: Any, now_tick: int, policy: Any) -> Any:
        started = time.perf_counter()
        try:
            return self._system.retrieve(query, asker, now_tick, policy)
        finally:
            self._clock["retrieve"].setdefault(policy.mode, []).append(
                time.perf_counter() - started
            )


class _TimedBulk(_Timed):
    """A timed system that offers the bulk verb (looked up on the class, as the harness
    looks it up)."""

    def ingest_many(self, docs: Any) -> Any:
        return self._ingest_many(docs)


def _timed(factory: Callable[..., Any], clock: dict[str, Any]) -> Callable[..., Any]:
    from ragward.conformance.contract import is_bulk

    def build(**keywords: Any) -> _Timed:
        system = factory(**keywords)
        return (_TimedBulk if is_bulk(system) else _Timed)(system, clock)

    build.__name__ = getattr(factory, "__name__", "factory")
    build.__signature__ = __import__("inspect").signature(factory)  # type: ignore[attr-defined]
    return build


def _percentile(values: Sequence[float], share: float) -> float:
    import numpy as np

    return float(np.percentile(np.asarray(values), share * 100)) if values else 0.0


def _grid(
    name: str,
    split: str,
    depth: int,
    measures: tuple[str, ...],
    embedder: str,
    modes: tuple[str, ...],
) -> Any:
    from ragward.evals.grid import IndexSetting
    from ragward.evals.grid_file import default_grid

    return replace(
        default_grid(),
        name=name,
        split=split,
        depth=depth,
        measures=measures,
        indexes=(IndexSetting(1_000_000, 0, embedder),),
        modes=modes,
        rrf_ks=(60.0,),
        reranks=("none",),
        candidate_limits=(depth,),
    )


def _column(label: str, impl: str, scifact: Any, tidewater: Any) -> list[dict[str, Any]]:
    from ragward.conformance.loading import load_factory
    from ragward.evals import evaluate

    factory = load_factory(impl)
    probe = factory()
    modes = tuple(m for m in ("hybrid", "lexical", "dense") if probe.capabilities.has(m))
    clock: dict[str, Any] = {"ingest": 0.0, "retrieve": {}}
    started = time.perf_counter()
    on_scifact = evaluate(
        scifact,
        _timed(factory, clock),
        grid=_grid("engines-scifact", "test", 100, ("ndcg_cut_10", "recall_100"), "minilm", modes),
        progress=sys.stderr,
    )
    wall = time.perf_counter() - started
    tide = _on_tidewater(factory, modes, tidewater)
    rows = []
    for setting in on_scifact.settings:
        mode = setting.setting.mode
        latencies = clock["retrieve"].get(mode, [])
        rows.append(
            {
                "column": label,
                "impl": impl,
                "mode": mode,
                **{m: round(setting.means[m], 4) for m in _SCIFACT},
                **tide[mode],
                "ingest_seconds": round(clock["ingest"], 1),
                "p50_ms": round(_percentile(latencies, 0.5) * 1000, 2),
                "p95_ms": round(_percentile(latencies, 0.95) * 1000, 2),
                "queries": len(latencies),
                "wall_seconds": round(wall, 1),
            }
        )
    return rows


def _on_tidewater(
    factory: Any, modes: tuple[str, ...], tidewater: Any
) -> dict[str, dict[str, Any]]:
    """Tidewater's figures of each mode: nDCG@10 and leakage@10."""
    from ragward.evals import evaluate

    on_tidewater = evaluate(
        tidewater,
        factory,
        grid=_grid(
            "engines-tidewater", "test", _TIDEWATER_DEPTH, ("ndcg_cut_10",), "hash-96", modes
        ),
    )
    leakage = f"leakage_{_TIDEWATER_DEPTH}"
    return {
        s.setting.mode: {
            "tidewater_ndcg_cut_10": round(s.means["ndcg_cut_10"], 4),
            f"tidewater_{leakage}": s.means[leakage],
        }
        for s in on_tidewater.settings
    }


def _tidewater_only(column: str, impl: str, rows: list[dict[str, Any]], tidewater: Any) -> None:
    """Refresh the Tidewater figures of ``column``'s stored rows in place (seconds, where
    SciFact takes up to an hour a column); its SciFact figures and times are kept."""
    from ragward.conformance.loading import load_factory

    mine = [r for r in rows if r["column"] == column]
    if not mine:
        raise RagwardError(f"--tidewater-only: {column} has no stored row to refresh")
    tide = _on_tidewater(load_factory(impl), tuple(r["mode"] for r in mine), tidewater)
    for row in mine:
        row.update(tide[row["mode"]])


def _markdown(rows: Sequence[dict[str, Any]]) -> str:
    from tabulate import tabulate

    table = [
        (
            r["column"],
            r["mode"],
            f"{r['ndcg_cut_10']:.4f}",
            f"{r['recall_100']:.4f}",
            f"{r['leakage_100']:.4f}",
            f"{r['tidewater_ndcg_cut_10']:.4f}",
            f"{r[f'tidewater_leakage_{_TIDEWATER_DEPTH}']:.4f}",
            f"{r['ingest_seconds']:.1f}",
            f"{r['p50_ms']:.2f}",
            f"{r['p95_ms']:.2f}",
        )
        for r in rows
    ]
    headers = (
        "column",
        "mode",
        "SciFact nDCG@10",
        "R@100",
        "leakage@100",
        "Tidewater nDCG@10",
        f"Tidewater leakage@{_TIDEWATER_DEPTH}",
        "ingest s",
        "p50 ms",
        "p95 ms",
    )
    return "\n".join(
        [
            "# The harness through each engine",
            "",
            "SciFact test split (whole corpus, one chunk per document, all-MiniLM-L6-v2 int8, "
            "rrf_k 60, depth 100) and Tidewater (bundled, multi-tenant, hash-96, depth "
            f"{_TIDEWATER_DEPTH}), evaluated by `ragward.evals.evaluate` through each "
            "configuration's `--impl` factory. Ingest is the wall time of every SciFact "
            "ingest call (encoding included, from the embedding cache after the first "
            "column); latencies are per `retrieve` call on SciFact, in one process on a "
            "shared 2-core machine: compare columns, not absolute figures. An engine "
            "adapter's `retrieve` also runs the queries behind its audit counts (each "
            "searched index queried under the tenant-only, entitled and eligible filters), "
            "so its latency is that of a full audited answer, not of one engine query.",
            "",
            tabulate(table, headers=headers, tablefmt="github", disable_numparse=True),
            "",
            'Made by `python -m ragward.bench.engines --data "$RAGWARD_DATA/scifact"`; '
            "`--tidewater-only` refreshes the Tidewater figures alone (seconds a column).",
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ragward.bench.engines", description=__doc__)
    parser.add_argument("--data", type=Path, help="SciFact in BEIR layout")
    parser.add_argument("--only", metavar="LABEL,...", help="only these columns")
    parser.add_argument("--out", type=Path, default=Path("reports/engines"))
    parser.add_argument(
        "--tidewater-only",
        action="store_true",
        help="refresh only the Tidewater figures of the columns' stored rows",
    )
    args = parser.parse_args(argv)
    if args.data is None and not args.tidewater_only:
        parser.error("--data is required (or --tidewater-only)")
    try:
        from ragward.engines import configurations
        from ragward.engines.matrix import REFERENCE, impl_of, label
        from ragward.evals import load_dataset

        columns = [REFERENCE, *(c for c in configurations() if c.in_matrix and not c.missing())]
        if args.only:
            wanted = {w.strip() for w in args.only.split(",")}
            columns = [c for c in columns if label(c) in wanted]
        tidewater = load_dataset(Path(str(resources.files("ragward.datasets") / "tidewater")))
        target = args.out / "quality.json"
        previous = json.loads(target.read_text(encoding="utf-8")) if target.exists() else []
        if args.tidewater_only:
            for configuration in columns:  # every column checked before anything is written
                _tidewater_only(label(configuration), impl_of(configuration), previous, tidewater)
            _write(args.out, previous)
            print(_markdown(previous))
            return 0
        beir = args.data / "beir" if (args.data / "beir").is_dir() else args.data
        scifact = load_dataset(beir)
        args.out.mkdir(parents=True, exist_ok=True)
        kept = [r for r in previous if r["column"] not in {label(c) for c in columns}]
        order = [label(c) for c in [REFERENCE, *configurations()]]
        merged = list(kept)
        for configuration in columns:  # written after each column: a long run keeps its part
            print(f"{label(configuration)} ...", file=sys.stderr, flush=True)
            merged += _column(label(configuration), impl_of(configuration), scifact, tidewater)
            merged.sort(key=lambda r: (order.index(r["column"]), r["mode"]))
            _write(args.out, merged)
    except RagwardError as error:
        print(f"python -m ragward.bench.engines: error: {error}", file=sys.stderr)
        return 2
    print(_markdown(merged))
    return 0


def _write(out: Path, rows: list[dict[str, Any]]) -> None:
    for name, text in (
        ("quality.json", json.dumps(rows, indent=2) + "\n"),
        ("quality.md", _markdown(rows)),
    ):
        partial = out / f".{name}.partial"
        partial.write_text(text, encoding="utf-8")
        partial.replace(out / name)


if __name__ == "__main__":
    sys.exit(main())
