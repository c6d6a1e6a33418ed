"""How small the engine matrix's counterexamples are, before and after: issue 32's targets.

    python -m tools.counterexample_stats --before REV    # REV: a commit of an older matrix

Reads every conformance report of the engine matrix (``reports/engines/<label>.json``) as
it is now and as it was at git revision ``REV``, and writes
``reports/conformance/counterexamples.md`` and ``.json``: per configuration and in all,
how many failures there are, how many stopped at a budget or a cap instead of reaching a
minimal case, and the size of their counterexamples, in documents and in words of JSON.
Then the targets, each with its figure: no failure stopped by a budget; at most 2
documents at the median and 4 at the 90th percentile; at most 60 words of JSON at the
median; the kit's ``ci`` time on a broken implementation within 2x the reference's (read
from ``reports/conformance/kit_speed.json``, written by ``python -m
tests.conformance.kit_speed``).

Measures, as issue 32 measured them: *documents* are the document records anywhere in a
case (an object with ``tenant``, ``doc_id`` and ``text``), each counted where it appears,
so a document written twice counts twice; *words* are the whitespace-separated pieces of
the case as compact JSON (``json.dumps(case)``). Percentiles are nearest-rank.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MATRIX = "reports/engines"
OUT = ROOT / "reports" / "conformance"
KIT_SPEED = OUT / "kit_speed.json"
_DOC_KEYS = frozenset({"tenant", "doc_id", "text"})
#: How a reason says its search stopped before a minimal case (the old shrink budget in
#: seconds or steps, or the minimiser's step cap).
_STOPPED = re.compile(r"stopped after its|stopped at its cap|minimising stopped")
TARGETS = {"median_docs": 2, "p90_docs": 4, "median_words": 60, "kit_time_ratio": 2.0}


@dataclass(frozen=True)
class Failure:
    """One failing cell of the matrix: where, and how big its counterexample is."""

    label: str
    invariant: str
    documents: int
    words: int
    stopped: bool


def documents(case: Any) -> int:
    """The document records in ``case``, each counted where it appears."""
    if isinstance(case, dict):
        if case.keys() >= _DOC_KEYS:
            return 1
        return sum(documents(value) for value in case.values())
    if isinstance(case, list):
        return sum(documents(value) for value in case)
    return 0


def words(case: Any) -> int:
    """The whitespace-separated pieces of ``case`` as compact JSON."""
    return len(json.dumps(case, ensure_ascii=False).split())


def stopped(verdict: dict[str, Any]) -> bool:
    """Whether the search for a smaller case ended at a budget or a cap."""
    minimised = verdict.get("minimised")
    if isinstance(minimised, dict) and minimised.get("complete") is False:
        return True
    return bool(_STOPPED.search(str(verdict.get("reason", ""))))


def failures(reports: dict[str, dict[str, Any]]) -> list[Failure]:
    """The failures with a counterexample in ``reports`` (label -> conformance report)."""
    out = []
    for label, report in sorted(reports.items()):
        for verdict in report["invariants"]:
            if verdict["verdict"] != "fail" or verdict.get("counterexample") is None:
                continue
            case = verdict["counterexample"]
            out.append(
                Failure(label, verdict["id"], documents(case), words(case), stopped(verdict))
            )
    return out


def _is_report(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("invariants"), list)


def reports_now(root: Path) -> dict[str, dict[str, Any]]:
    """The matrix's conformance reports in the working tree, by label."""
    out = {}
    for path in sorted((root / MATRIX).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if _is_report(data) and path.stem != "reference":
            out[path.stem] = data
    return out


def reports_at(root: Path, rev: str) -> dict[str, dict[str, Any]]:
    """The matrix's conformance reports at git revision ``rev``, by label."""
    listing = _git(root, "ls-tree", "--name-only", f"{rev}:{MATRIX}").split()
    out = {}
    for name in sorted(listing):
        if not name.endswith(".json") or name == "reference.json":
            continue
        data = json.loads(_git(root, "show", f"{rev}:{MATRIX}/{name}"))
        if _is_report(data):
            out[name.removesuffix(".json")] = data
    return out


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, encoding="utf-8", check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"counterexample_stats: git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def nearest_rank(values: list[int], fraction: float) -> int:
    """The nearest-rank percentile of ``values`` (0 when there are none)."""
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary(found: list[Failure]) -> dict[str, Any]:
    """Counts and size figures of a set of failures."""
    docs = [f.documents for f in found]
    sizes = [f.words for f in found]
    return {
        "failures": len(found),
        "stopped": sum(f.stopped for f in found),
        "median_docs": statistics.median(docs) if docs else 0,
        "p90_docs": nearest_rank(docs, 0.9),
        "max_docs": max(docs, default=0),
        "median_words": statistics.median(sizes) if sizes else 0,
        "p90_words": nearest_rank(sizes, 0.9),
        "max_words": max(sizes, default=0),
    }


def by_label(found: list[Failure]) -> dict[str, dict[str, Any]]:
    """:func:`summary` per configuration, then ``all``."""
    labels = sorted({f.label for f in found})
    out = {label: summary([f for f in found if f.label == label]) for label in labels}
    out["all"] = summary(found)
    return out


def kit_time_ratio(path: Path) -> float | None:
    """The largest ratio of a broken implementation's kit time to the reference's."""
    if not path.is_file():
        return None
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    ratios = [
        row["median_ratio_to_reference"] for row in rows if row["implementation"] != "reference"
    ]
    return max(ratios, default=None)


def targets(after: dict[str, Any], ratio: float | None) -> list[tuple[str, str, bool]]:
    """Each target: what it asks, the figure now, whether it is met."""
    return [
        (
            "no failure stopped by a budget or a cap",
            f"{after['stopped']} stopped",
            after["stopped"] == 0,
        ),
        (
            f"median counterexample at most {TARGETS['median_docs']} documents",
            f"{after['median_docs']:g}",
            after["median_docs"] <= TARGETS["median_docs"],
        ),
        (
            f"90th percentile at most {TARGETS['p90_docs']} documents",
            f"{after['p90_docs']}",
            after["p90_docs"] <= TARGETS["p90_docs"],
        ),
        (
            f"at most {TARGETS['median_words']} words of JSON at the median",
            f"{after['median_words']:g}",
            after["median_words"] <= TARGETS["median_words"],
        ),
        (
            f"kit time on a broken implementation within {TARGETS['kit_time_ratio']:g}x"
            " the reference's",
            "not measured" if ratio is None else f"{ratio:.2f}x (largest)",
            ratio is not None and ratio <= TARGETS["kit_time_ratio"],
        ),
    ]


_COLUMNS = (
    "failures",
    "stopped",
    "median_docs",
    "p90_docs",
    "max_docs",
    "median_words",
    "p90_words",
    "max_words",
)


def _table(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[str]:
    head = "| configuration | " + " | ".join(c.replace("_", " ") for c in _COLUMNS) + " |"
    lines = [head, "|---" * (len(_COLUMNS) + 1) + "|"]
    for label in [*sorted((set(before) | set(after)) - {"all"}), "all"]:
        cells = []
        for column in _COLUMNS:
            was, now = before.get(label, {}).get(column), after.get(label, {}).get(column)
            cells.append(f"{_figure(was)} -> {_figure(now)}")
        name = f"**{label}**" if label == "all" else label
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _figure(value: Any) -> str:
    return "n/a" if value is None else f"{value:g}"


def render(rev: str, before: dict[str, Any], after: dict[str, Any], ratio: float | None) -> str:
    """The Markdown report."""
    lines = [
        "# Counterexamples of the engine matrix: how small they are",
        "",
        f"Generated by `python -m tools.counterexample_stats --before {rev}`: the matrix's",
        f"reports (`{MATRIX}/<label>.json`) at commit `{rev}` -> as committed now. Each cell",
        "reads *before -> now*. Documents: the document records in a counterexample, each",
        "counted where it appears; words: whitespace-separated pieces of its compact JSON;",
        "percentiles nearest-rank; *stopped*: failures whose search for a smaller case ended",
        "at a budget or a cap.",
        "",
        *_table(before, after),
        "",
        "## Targets (issue 32)",
        "",
        "| target | now | met |",
        "|---|---|---|",
    ]
    lines += [
        f"| {what} | {figure} | {'yes' if met else 'no'} |"
        for what, figure, met in targets(after["all"], ratio)
    ]
    lines += [
        "",
        "The kit's time is `reports/conformance/kit_speed.md`'s (broken implementations of the",
        "kill matrix's catalogue against the reference, `ci` profile, shrinking and",
        "minimising on).",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--before", metavar="REV", required=True, help="git revision of the older matrix"
    )
    parser.add_argument(
        "--out", metavar="DIR", type=Path, default=OUT, help="where the report goes"
    )
    args = parser.parse_args(argv)
    before = by_label(failures(reports_at(ROOT, args.before)))
    after = by_label(failures(reports_now(ROOT)))
    ratio = kit_time_ratio(KIT_SPEED)
    data = {
        "before_rev": args.before,
        "before": before,
        "now": after,
        "kit_time_ratio": ratio,
        "targets": [{"target": t, "now": f, "met": m} for t, f, m in targets(after["all"], ratio)],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "counterexamples.json").write_text(
        json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    (args.out / "counterexamples.md").write_text(
        render(args.before, before, after, ratio), encoding="utf-8"
    )
    print(render(args.before, before, after, ratio), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
