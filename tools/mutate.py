"""Plant automatic mutants in the reference and measure how many the conformance kit kills.

The planter of ``tools/planter.py`` walks ``reference/*.py`` and the adapter
(``engines/reference.py``, ``engines/reference_records.py``) and makes one mutant per
operator site (comparisons, arithmetic and mask operators, numeric constants, booleans,
unary operators dropped, simple statements replaced by ``pass``), each one exact source
segment, so every mutant is one readable diff line at ``file:line``.

Each mutant runs in its own subprocess against a copy of the tree (``reference/``,
``engines/`` and ``ragward/`` copied, the rest linked; the copy goes first on
``PYTHONPATH``, as in ``tools/mutants.py``). The subprocess runs the kit's invariants —
profile ``ci``, shrinking off — one at a time and stops at the first ``fail`` or ``error``
(killed). Only the invariants whose run executes the mutated lines are run: a baseline run
on the unmutated copy, under ``coverage`` with one context per invariant, records which
invariant reaches which line (an invariant that never executes the line sees the same
program and the same generated cases, so it cannot kill the mutant); a mutant on a line no
invariant executes is reported as *not reached*. Invariants that have killed most so far go
first. A mutant that makes a call hang is killed as ``timeout``.

Survivors are explained, by hand, in ``tools/mutation_equivalents.toml`` (keyed by the
mutant id: ``file:line operator original => replacement``); the report merges them in
and shows a survivor without one as UNEXPLAINED.

    python -m tools.mutate --list                  # the mutants, one per line
    python -m tools.mutate --jobs 2                # full run; writes the report
    python -m tools.mutate --only ranking.py --jobs 2
    python -m tools.mutate --sample 40 --seed 1    # a quick subset
    python -m tools.mutate --report-only           # rewrite the report from the cache

Results are cached in ``.mutate-cache.jsonl`` (keyed by mutant id, the mutated file's
contents and the kit's sources), so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tools.planter import Mutant, Rules, flat
from tools.planter import plant as plant_with

ROOT = Path(__file__).resolve().parent.parent

#: The files mutated: the reference's retrieval semantics and its adapter to the kit.
SCOPE = (
    *sorted(
        f"reference/{p.name}"
        for p in (ROOT / "reference").glob("*.py")
        if p.name != "__init__.py"  # re-exports only
    ),
    "engines/reference.py",
    "engines/reference_records.py",
)

#: Functions never mutated, by ``file`` and qualified name, with the reason. The kit
#: checks behaviour on valid input through the contract's verbs, so argument validation
#: (raising an error with a message), representation, and verbs the kit does not call
#: prove nothing about it.
EXCLUDED: dict[tuple[str, str], str] = {
    ("reference/documents.py", "_require_text"): "argument validation",
    ("reference/documents.py", "_require_int"): "argument validation",
    ("reference/documents.py", "classification_rank"): "argument validation (lookup + error)",
    ("reference/retriever.py", "_positive_int"): "argument validation",
    ("reference/dense.py", "check_vectors"): "checks an embedder's answer; the kit's is fixed",
    ("reference/retriever.py", "AuthorizedRetriever.visible"): "used by the demo only",
    ("reference/retriever.py", "AuthorizedRetriever.ingest_many"): "evals' bulk verb",
    ("reference/retriever.py", "AuthorizedRetriever.version_of"): "not a contract verb",
    ("reference/retriever.py", "RetrievalResult.citations"): "not read by the adapter",
    ("reference/retriever.py", "RetrievalResult.eligible_matches"): "not read by the adapter",
    ("reference/grounding.py", "GroundingReport.is_grounded"): "not read by the adapter",
    ("reference/grounding.py", "GroundingReport.coverage"): "not read by the adapter",
    ("reference/assembly.py", "AssembledContext.cacheable_fraction"): "not read by the adapter",
    ("engines/reference.py", "ReferenceSystem.ingest_many"): "evals' bulk verb",
    ("engines/reference.py", "ReferenceSystem.first_stage"): "evals' staged verb",
    ("engines/reference.py", "ReferenceSystem.finish"): "evals' staged verb",
}

#: Rules applied everywhere (see :class:`_Planter`): what is never mutated and why.
RULES = (
    "docstrings, string constants, f-strings and `raise` statements (error messages)",
    "an `if` whose body only raises `InvalidArgument` (argument validation) and every "
    "`__post_init__` (record validation): the kit sends valid input only",
    "`__repr__` and `name` (labels for reports), decorators (cache sizes), annotations, "
    "`assert` statements and `if TYPE_CHECKING` blocks (type-only code)",
    "statement drops outside function bodies (an import-time NameError kills them trivially)",
)

CACHE = ROOT / ".mutate-cache.jsonl"
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.toml"
REPORT = ROOT / "reports" / "conformance" / "mutation.md"

#: Seconds any one call into the mutated reference may take before it counts as a hang.
CALL_TIMEOUT = 10.0


def _clean(reason: str) -> str:
    """A verdict's reason without the temporary tree's path (``ragward/...`` stays) or the
    virtual environment's (``site-packages/...`` stays)."""
    reason = re.sub(r"\S*/ragward-mutate-[^/\s]+/", "", reason)
    return re.sub(r"(?<![\w.])/\S*/(site-packages/)", r"\1", reason)


#: What the kit's scope never mutates (the planter's rules, with :data:`EXCLUDED`).
PLANT_RULES = Rules(EXCLUDED)


def plant(source: str, path: str) -> list[Mutant]:
    """Every mutant of ``source`` (the text of ``path``) under the kit's rules."""
    return plant_with(source, path, PLANT_RULES)


def all_mutants(root: Path = ROOT) -> list[Mutant]:
    """The mutants of every file in :data:`SCOPE`."""
    out: list[Mutant] = []
    for path in SCOPE:
        out += plant((root / path).read_text(encoding="utf-8"), path)
    return out


# -- running ----------------------------------------------------------------------------


def print_mutants(mutants: list[Mutant], everything: list[Mutant], by_file: bool = False) -> None:
    """``--list``: one line per mutant in planting order, then (on stderr) how many, and
    with ``by_file`` how many per file."""
    for m in sorted(mutants, key=everything.index):
        print(f"{m.id}    [{m.function or '<module>'}]")
    if by_file:
        counts = Counter(m.path for m in mutants)
        print(", ".join(f"{p} {n}" for p, n in counts.items()), file=sys.stderr)
    print(f"{len(mutants)} mutants", file=sys.stderr)


def shadow_tree(
    mutant: Mutant | None,
    # Every folder SCOPE mutates is copied: a mutant written through a link would land in
    # the real tree.
    copied: tuple[str, ...] = ("engines", "ragward", "reference"),
    extra: tuple[str, ...] = (),
) -> Path:
    """A tree to import ragward from: the ``copied`` folders copied (with the mutant
    planted), every other package folder and the ``extra`` folders (``tests``...) linked;
    returns the folder to put first on ``PYTHONPATH``."""
    base = Path(tempfile.mkdtemp(prefix="ragward-mutate-")).resolve()
    shutil.copy(ROOT / "pyproject.toml", base / "pyproject.toml")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = set(config["tool"]["setuptools"]["package-dir"].values()) | set(extra)
    for folder in sorted(folders):
        top = folder.split("/")[0]
        if (base / top).exists():
            continue
        if top in copied:
            shutil.copytree(
                ROOT / top,
                base / top,
                symlinks=True,  # ragward/'s links to the mapped folders stay links
                ignore=shutil.ignore_patterns("__pycache__"),
            )
        else:
            (base / top).symlink_to(ROOT / top)
    if mutant is not None:
        target = base / mutant.path
        target.write_text(mutant.apply(target.read_text(encoding="utf-8")), encoding="utf-8")
    return base


def _child(select: list[str], trace: Path | None, call_timeout: float) -> int:
    """In the subprocess: run ``select`` in order, one JSON line per verdict."""
    base = Path(os.environ["PYTHONPATH"].split(os.pathsep)[0]).resolve()
    cov: Any = None
    if trace is not None:
        import coverage

        cov = coverage.Coverage(
            data_file=None, include=[str(base / p) for p in SCOPE], config_file=False
        )
        cov.start()
        cov.switch_context("import")
    import ragward.reference
    from ragward.conformance import run_conformance
    from ragward.conformance.invariant import REGISTRY
    from ragward.engines.reference import reference_factory

    if not Path(ragward.reference.__file__ or "").resolve().is_relative_to(base):
        raise SystemExit(f"ragward.reference imported from {ragward.reference.__file__}")
    import ragward.conformance.invariants

    chosen = select or [inv.id for inv in sorted(REGISTRY.values(), key=lambda i: (i.level, i.id))]
    for invariant_id in chosen:
        if cov is not None:
            cov.switch_context(invariant_id)
        started = time.perf_counter()
        verdict = run_conformance(
            reference_factory,
            profile="ci",
            select=[invariant_id],
            shrink=False,
            call_timeout=call_timeout,
        ).verdicts[0]
        line = {
            "id": invariant_id,
            "status": verdict.status,
            "reason": _clean(verdict.reason)[:300],
            "seconds": round(time.perf_counter() - started, 3),
        }
        print(json.dumps(line), flush=True)
        if trace is None and verdict.status in ("fail", "error"):
            break
    if cov is not None and trace is not None:
        cov.stop()
        data = cov.get_data()
        lines: dict[str, dict[int, list[str]]] = {}
        for measured in data.measured_files():
            relative = Path(measured).resolve().relative_to(base).as_posix()
            lines[relative] = {n: sorted(c) for n, c in data.contexts_by_lineno(measured).items()}
        trace.write_text(json.dumps(lines), encoding="utf-8")
    return 0


@dataclass
class Outcome:
    """What happened to one mutant."""

    id: str
    status: str  # killed, timeout, survived, not-reached
    killer: str = ""
    reason: str = ""
    seconds: float = 0.0
    ran: int = 0


def _launch(
    mutant: Mutant | None, select: list[str], timeout: float, trace: Path | None = None
) -> tuple[list[dict[str, Any]], bool, float]:
    """Run the child on a fresh shadow tree; (verdict lines, timed out, seconds)."""
    tree = shadow_tree(mutant, extra=("tools",))
    command = [sys.executable, "-m", "tools.mutate", "--child", json.dumps(select)]
    if trace is not None:
        command += ["--trace", str(trace)]
    environment = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    started = time.perf_counter()
    try:
        result = subprocess.run(
            command,
            cwd=tree,
            env=environment,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        out, timed_out = result.stdout, False
        if result.returncode != 0 and not out.strip():
            out = json.dumps({"id": "import", "status": "error", "reason": result.stderr[-300:]})
    except subprocess.TimeoutExpired as expired:
        raw = expired.stdout or b""
        out = raw.decode() if isinstance(raw, bytes) else raw
        timed_out = True
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    verdicts = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return verdicts, timed_out, time.perf_counter() - started


def _fingerprint(path: str) -> str:
    digest = hashlib.sha256((ROOT / path).read_bytes())
    for kit in sorted((ROOT / "conformance").rglob("*.py")):
        digest.update(kit.read_bytes())
    return digest.hexdigest()[:16]


def load_cache(path: Path = CACHE) -> dict[tuple[str, str], dict[str, Any]]:
    """Every entry of a cache file of JSON lines, by ``(key, fingerprint)``."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                out[(entry["key"], entry["fingerprint"])] = entry
    return out


def append_cache(entry: dict[str, Any], path: Path = CACHE) -> None:
    """One entry more at the end of a cache file."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


class Runner:
    """Runs mutants, learns which invariants kill most, caches every outcome."""

    def __init__(self, baseline: dict[str, Any], jobs: int) -> None:
        self.times: dict[str, float] = baseline["times"]
        self.lines: dict[str, dict[str, list[str]]] = baseline["lines"]
        self.kills: Counter[str] = Counter()
        self.cache = load_cache()
        for entry in self.cache.values():
            if entry.get("killer"):
                self.kills[entry["killer"]] += 1
        self.lock = threading.Lock()
        self.jobs = jobs
        self.done = 0

    def reaching(self, mutant: Mutant) -> list[str]:
        """Invariants whose baseline run executes a line of the mutant."""
        by_line = self.lines.get(mutant.path, {})
        found: set[str] = set()
        for line in range(mutant.line, mutant.end_line + 1):
            found.update(by_line.get(str(line), ()))
        if "import" in found:  # import-time code: every invariant depends on it
            found = set(self.times)
        found.discard("import")
        return sorted(found)

    def run(self, mutant: Mutant, total: int, deadline: float = math.inf) -> Outcome | None:
        """The mutant's outcome (from the cache when there); None once past ``deadline``."""
        fingerprint = _fingerprint(mutant.path)
        cached = self.cache.get((mutant.id, fingerprint))
        if cached is not None:
            outcome = Outcome(**cached["outcome"])
        elif time.monotonic() > deadline:
            return None
        else:
            outcome = self._run(mutant)
            entry = {"key": mutant.id, "fingerprint": fingerprint, "outcome": asdict(outcome)}
            with self.lock:
                append_cache(entry)
                if outcome.killer:
                    self.kills[outcome.killer] += 1
        with self.lock:
            self.done += 1
            tag = "(cached)" if cached is not None else f"{outcome.seconds:.1f}s"
            print(
                f"[{self.done}/{total}] {outcome.status:<11} {outcome.killer:<9} {mutant.id} {tag}",
                flush=True,
            )
        return outcome

    def _run(self, mutant: Mutant) -> Outcome:
        reaching = self.reaching(mutant)
        if not reaching:
            return Outcome(mutant.id, "not-reached")
        with self.lock:
            order = sorted(reaching, key=lambda i: (-self.kills[i], self.times[i], i))
        budget = 60.0 + 4.0 * sum(self.times[i] for i in order) * max(1, self.jobs)
        verdicts, timed_out, seconds = _launch(mutant, order, budget)
        seconds = round(seconds, 2)
        for verdict in verdicts:
            if verdict["status"] in ("fail", "error"):
                hang = "did not return within" in verdict["reason"]
                status = "timeout" if hang else "killed"
                return Outcome(
                    mutant.id, status, verdict["id"], verdict["reason"], seconds, len(verdicts)
                )
        if timed_out:
            return Outcome(mutant.id, "timeout", "", "the run hung", seconds, len(verdicts))
        if len(verdicts) < len(order):  # the child died without a verdict line
            return Outcome(mutant.id, "killed", "crash", "the run crashed", seconds)
        return Outcome(mutant.id, "survived", "", "", seconds, len(verdicts))


def baseline(refresh: bool = False) -> dict[str, Any]:
    """The unmutated copy under the kit with per-invariant coverage (cached)."""
    fingerprint = hashlib.sha256("".join(_fingerprint(p) for p in SCOPE).encode()).hexdigest()[:16]
    if not refresh:
        for entry in load_cache().values():
            if entry["key"] == "baseline" and entry["fingerprint"] == fingerprint:
                result: dict[str, Any] = entry["baseline"]
                return result
    print("baseline: the unmutated copy under the kit, with coverage ...", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "trace.json"
        verdicts, timed_out, seconds = _launch(None, [], 3600.0, trace)
        lines = json.loads(trace.read_text(encoding="utf-8")) if trace.exists() else {}
    bad = [v for v in verdicts if v["status"] != "pass"]
    if timed_out or bad or not verdicts:
        raise SystemExit(f"the unmutated copy does not pass the kit: {bad or 'no verdicts'}")
    result = {
        "times": {v["id"]: v["seconds"] for v in verdicts},
        "lines": lines,
        "seconds": round(seconds, 1),
    }
    append_cache({"key": "baseline", "fingerprint": fingerprint, "baseline": result})
    print(f"baseline: {len(verdicts)} invariants pass ({seconds:.0f}s)", flush=True)
    return result


# -- report -----------------------------------------------------------------------------


def load_explanations(path: Path = EQUIVALENTS) -> dict[str, dict[str, str]]:
    """``id -> {kind, why}`` from the committed explanations file: ``[[survivor]]``
    entries by id, and ``[[group]]`` entries (``file``, ``function``, optional
    ``status``) for the survivors of one function that share one reason, stored under
    ``group:file:function``."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {entry["id"]: entry for entry in data.get("survivor", [])}
    for group in data.get("group", []):
        out[f"group:{group['file']}:{group['function']}"] = group
    return out


def explain(
    explanations: dict[str, dict[str, str]], mutant: Mutant, outcome: Outcome
) -> dict[str, str] | None:
    """The survivor's own entry, else its function's group entry (if the status fits)."""
    if mutant.id in explanations:
        return explanations[mutant.id]
    group = explanations.get(f"group:{mutant.path}:{mutant.function}")
    if group is not None and group.get("status", outcome.status) == outcome.status:
        return group
    return None


def survivor_entry(mutant: Mutant, source: str, reach: str, verdict: str) -> list[str]:
    """A survivor's section of a report: its id (and ``reach``), function, diff, verdict."""
    before, after = mutant.diff(source)
    return [
        f"### `{mutant.id}`{reach}",
        "",
        f"In `{mutant.function or '<module>'}`.",
        "",
        "```diff",
        f"- {before}",
        f"+ {after}",
        "```",
        "",
        verdict,
        "",
    ]


def explanation_notes(
    explanations: Collection[str],
    mutants: Sequence[Mutant],
    ran: Sequence[Mutant],
    survivors: Sequence[Mutant],
    killer: str,
    *,
    stale_too: bool = True,
) -> list[str]:
    """The explanations to remove: of mutants that no longer exist (``stale_too``), and
    of mutants ``killer`` kills."""
    ids = {m.id for m in mutants}
    stale = sorted(s for s in explanations if not s.startswith("group:") and s not in ids)
    lines: list[str] = []
    if stale and stale_too:
        lines += ["## Explanations of mutants that no longer exist", ""]
        lines += [f"- `{s}`" for s in stale] + [""]
    wrong = [m.id for m in ran if m.id in explanations and m not in survivors]
    if wrong:
        lines += [f"## Explanations of mutants {killer} kills (to remove)", ""]
        lines += [f"- `{s}`" for s in wrong] + [""]
    return lines


def write_report(report: Path, text: str, data: dict[str, Any], summary_until: str) -> int:
    """Write the report (``report`` and its ``.json`` beside it) and print its summary,
    the text before ``summary_until``; 0, the exit code."""
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(text, encoding="utf-8")
    report.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(text.split(summary_until)[0])
    return 0


def render(
    mutants: list[Mutant],
    outcomes: dict[str, Outcome],
    explanations: dict[str, dict[str, str]],
    meta: dict[str, Any],
) -> tuple[str, dict[str, Any]]:
    """The markdown report and its JSON twin."""
    sources = {p: (ROOT / p).read_text(encoding="utf-8") for p in SCOPE}
    ran = [m for m in mutants if m.id in outcomes]
    status = Counter(outcomes[m.id].status for m in ran)
    killed = status["killed"] + status["timeout"]
    survivors = [m for m in ran if outcomes[m.id].status in ("survived", "not-reached")]
    why = {m.id: explain(explanations, m, outcomes[m.id]) for m in survivors}
    kinds = {i: (entry or {}).get("kind", "") for i, entry in why.items()}
    explained = [m for m in survivors if kinds[m.id] not in ("", "gap")]
    gaps = [m for m in survivors if kinds[m.id] == "gap"]
    unexplained = [m for m in survivors if not kinds[m.id]]
    total = len(ran)
    judged = total - len(explained)
    lines = [
        "# Mutation testing of the kit",
        "",
        "Automatic mutants of the reference (`reference/*.py`, `engines/reference.py`, "
        "`engines/reference_records.py`), each run "
        "against the conformance kit (profile `ci`, shrinking off, stop at the first `fail` "
        "or `error`). Generated by `python -m tools.mutate"
        + (f" {meta['command']}" if meta.get("command") else "")
        + "`; explanations of survivors are `tools/mutation_equivalents.toml`.",
        "",
        "| | mutants |",
        "|---|---|",
        f"| planted | {meta.get('planted', len(mutants))} |",
        f"| run{' (a uniform random sample)' if meta.get('sample') else ''} | {total} |",
        f"| reached by the kit | {total - status['not-reached']} |",
        f"| killed (fail or error) | {status['killed']} |",
        f"| killed by a hang (timeout) | {status['timeout']} |",
        f"| survived | {status['survived']} |",
        f"| not reached by the kit | {status['not-reached']} |",
        f"| survivors shown equivalent or allowed | {len(explained)} |",
        f"| survivors that are kit gaps | {len(gaps)} |",
        f"| survivors UNEXPLAINED | {len(unexplained)} |",
        "",
        f"**Kill rate: {killed}/{total} = {100 * killed / max(1, total):.1f}%** of all "
        f"mutants run; {killed}/{judged} = {100 * killed / max(1, judged):.1f}% of the "
        "mutants not shown equivalent or allowed.",
        "",
    ]
    lines += [
        f"Time: {meta.get('mutant_seconds', 0) / 60:.0f} min of mutant subprocesses in all"
        + (f", {meta['wall']} of wall time" if meta.get("wall") else "")
        + f"; the baseline (unmutated, under coverage) took {meta.get('baseline_seconds')} s. "
        f"Selection: {meta.get('selection', 'every mutant')}.",
        "",
    ]
    lines += [
        "A survivor's kind: **equivalent** (no input the contract allows tells it from the "
        "reference), **allowed** (it behaves differently, but as another conforming "
        "implementation may: the contract leaves that choice free), **gap** (a real defect "
        "the kit misses; the entry names the check that would catch it).",
        "",
        "Each mutant runs only the invariants whose baseline run executes one of its lines "
        "(under `coverage`, one context per invariant): an invariant that never executes the "
        "mutated line sees the same program and draws the same cases from its fixed seed, so "
        "it cannot kill the mutant; a line executed at import time counts for every "
        "invariant. Invariants that have killed most run first. A call that hangs for "
        f"{CALL_TIMEOUT:g} s kills the mutant as a timeout.",
        "",
        "## Operators",
        "",
        "| operator | planted | killed | survived | not reached |",
        "|---|---|---|---|---|",
    ]
    for op in sorted({m.operator for m in mutants}):
        mine = [m for m in ran if m.operator == op]
        c = Counter(outcomes[m.id].status for m in mine)
        planted = sum(1 for m in mutants if m.operator == op)
        lines.append(
            f"| `{op}` | {planted} | {c['killed'] + c['timeout']} | {c['survived']} "
            f"| {c['not-reached']} |"
        )
    killers = Counter(outcomes[m.id].killer for m in ran if outcomes[m.id].killer)
    lines += ["", "## Kills by invariant", "", "| invariant | first to kill |", "|---|---|"]
    lines += [f"| {k} | {n} |" for k, n in killers.most_common()]
    lines += ["", "## Survivors", ""]
    if not survivors:
        lines.append("None.")
    for m in survivors:
        entry = why[m.id]
        kind = entry["kind"] if entry else "UNEXPLAINED"
        reach = " (not reached by the kit)" if outcomes[m.id].status == "not-reached" else ""
        verdict = f"**{kind}**" + (f": {flat(entry['why'])}" if entry else "")
        lines += survivor_entry(m, sources[m.path], reach, verdict)
    lines += explanation_notes(explanations, mutants, ran, survivors, "the kit")
    lines += ["## Out of scope", "", "Never mutated, everywhere:", ""]
    lines += [f"- {rule}" for rule in RULES]
    lines += ["", "Functions never mutated:", "", "| file | function | why |", "|---|---|---|"]
    lines += [f"| `{f}` | `{q}` | {why} |" for (f, q), why in EXCLUDED.items()]
    lines.append("")
    data = {
        "planted": meta.get("planted", len(mutants)),
        "run": total,
        "counts": dict(status),
        "kill_rate": round(killed / max(1, total), 4),
        "kill_rate_of_non_equivalent": round(killed / max(1, judged), 4),
        "meta": meta,
        "killers": dict(killers),
        "mutants": [
            {
                **asdict(outcomes[m.id]),
                "reason": _clean(outcomes[m.id].reason),
                "file": m.path,
                "line": m.line,
                "operator": m.operator,
                "original": m.original,
                "replacement": m.replacement,
                "kind": (why.get(m.id) or {}).get("kind", ""),
            }
            for m in ran
        ],
    }
    return "\n".join(lines), data


def _select(mutants: list[Mutant], args: argparse.Namespace) -> list[Mutant]:
    if args.only:
        pattern = re.compile(args.only)
        mutants = [m for m in mutants if pattern.search(m.id)]
    # Run in a seeded random order, so that a run cut short by --minutes is still a
    # uniform sample; the report lists mutants in source order.
    rng = random.Random(args.seed)
    return rng.sample(mutants, min(args.sample or len(mutants), len(mutants)))


def _iterate(
    runner: Runner, mutants: list[Mutant], jobs: int, deadline: float
) -> Iterator[Outcome | None]:
    def one(mutant: Mutant) -> Outcome | None:
        return runner.run(mutant, len(mutants), deadline)

    if jobs <= 1:
        yield from map(one, mutants)
        return
    with ThreadPoolExecutor(jobs) as pool:
        yield from pool.map(one, mutants)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--only", default="", help="regular expression on mutant ids")
    parser.add_argument("--sample", type=int, default=0, help="run K mutants at random")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once")
    parser.add_argument(
        "--minutes", type=float, default=0, help="start no new mutant after this long"
    )
    parser.add_argument("--report-only", action="store_true", help="report from the cache")
    parser.add_argument("--fresh", action="store_true", help="ignore the cache")
    parser.add_argument("--selection", default="", help="how the mutants run were chosen")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return _child(json.loads(args.child), args.trace, CALL_TIMEOUT)
    everything = all_mutants()
    mutants = _select(everything, args)
    if args.list:
        print_mutants(mutants, everything)
        return 0
    if args.fresh and CACHE.exists():
        CACHE.unlink()
    started = time.perf_counter()
    base = baseline()
    runner = Runner(base, args.jobs)
    if args.report_only:
        fingerprints = {p: _fingerprint(p) for p in SCOPE}
        outcomes = {
            m.id: Outcome(**runner.cache[(m.id, fingerprints[m.path])]["outcome"])
            for m in mutants
            if (m.id, fingerprints[m.path]) in runner.cache
        }
    else:
        deadline = time.monotonic() + 60 * args.minutes if args.minutes else math.inf
        outcomes = {o.id: o for o in _iterate(runner, mutants, args.jobs, deadline) if o}
    wall = time.perf_counter() - started
    shown = [a for a in argv if a not in ("--fresh", "--report-only")]
    if "--selection" in shown:
        del shown[shown.index("--selection") : shown.index("--selection") + 2]
    command = " ".join(shown)
    meta = {
        "command": command,
        "planted": len(everything),
        "selected": len(mutants),
        # what --sample (or --minutes) left of the selection; --only chooses, not samples
        "sample": len(outcomes) < (len(everything) if args.sample else len(mutants)),
        "wall": "" if args.report_only else f"{wall / 60:.1f} min with --jobs {args.jobs}",
        "baseline_seconds": base["seconds"],
        "mutant_seconds": round(sum(o.seconds for o in outcomes.values()), 1),
        "selection": args.selection
        or (f"the mutants whose id matches --only {args.only}" if args.only else "")
        or (
            f"a seeded random sample (--seed {args.seed})"
            if len(outcomes) < len(everything)
            else ""
        ),
    }
    position = {m.id: i for i, m in enumerate(everything)}
    chosen = sorted(mutants, key=lambda m: position[m.id])
    text, data = render(chosen, outcomes, load_explanations(), meta)
    return write_report(REPORT, text, data, "## Operators")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
