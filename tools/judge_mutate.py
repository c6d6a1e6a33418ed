"""Plant automatic mutants in the gate's verdict path and measure how many its tests kill.

The judge must not be fooled: a defect in the code that turns two eval runs into a
verdict and an exit code should fail a test. The mutants come from the planter of
``tools/planter.py`` (the one ``tools/mutate.py`` uses on the reference), planted in
:data:`PARTS`: the gate and its results reader, the significance code (and the
Westfall-Young step-down when present), the exit-code mapping, the output paths, the
eval report's ``results.json`` writer and the conformance report's JSON. Argument
validation is mutated too (the tests send bad input on purpose: exit 2 is a verdict).

The killers are pytest tests (:data:`KILLERS`), not invariants. A baseline run of every
killer on an unmutated copy of the tree, under ``coverage`` with one context per test
(and per subprocess a test starts), records which test executes which line. Each mutant
then runs ``pytest -x -q -p no:cacheprovider -n 0`` in its own subprocess on a copy of the
tree (``ragward/``, ``evals/`` and ``conformance/`` copied with the mutant planted, the rest
linked, the copy first on ``PYTHONPATH``: ``tools/mutate.py``'s :func:`shadow_tree`), over
only the tests that execute one of its lines; tests that killed most so far go first. A
line run at import counts for every test. A run that outlasts its budget is a hang, which
kills. A mutant no test reaches is *not reached*.

Survivors are explained by hand in ``tools/judge_equivalents.toml`` (the keys and kinds of
``tools/mutation_equivalents.toml``); the report is ``reports/judge/mutation.md`` (+ .json).

    python -m tools.judge_mutate --list              # the mutants, one per line
    python -m tools.judge_mutate --jobs 1            # full run; writes the report
    python -m tools.judge_mutate --only gate.py      # a regular expression on mutant ids
    python -m tools.judge_mutate --sample 40 --seed 1
    python -m tools.judge_mutate --report-only       # rewrite the report from the cache

Outcomes are cached in ``.judge-mutate-cache.jsonl``, keyed by mutant id, the mutated
file's contents, the tests' helpers and the test files the mutant runs, so an interrupted
run continues where it stopped and a test added to one file reruns only the mutants that
run that file.
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
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tools.judge_report import clean, render
from tools.mutate import (
    RULES,
    Outcome,
    append_cache,
    load_cache,
    load_explanations,
    print_mutants,
    shadow_tree,
    write_report,
)
from tools.planter import Mutant, Rules, plant

ROOT = Path(__file__).resolve().parent.parent

#: The verdict path: each file mutated whole (None) or only the top-level functions named.
PARTS: dict[str, tuple[str, ...] | None] = {
    "evals/gate.py": None,
    "ragward/cli/gate.py": None,
    # the library's gate (ragward.compare, which the command calls): data identity and the
    # conformance report; the kit's and the harness's verbs are not on the verdict path
    "ragward/api.py": ("DataChanged", "compare", "_kit", "_results"),
    "evals/gate_summary.py": None,
    "evals/run_results.py": None,
    "evals/run_identity.py": None,
    "evals/conformance_input.py": None,
    "evals/significance.py": None,
    "evals/westfall_young.py": None,
    "evals/fingerprints.py": None,
    "ragward/exits.py": None,
    "ragward/streams.py": None,
    "ragward/outputs.py": None,
    # the writer of results.json (what the gate reads), not the human summary or the plots
    "evals/report.py": (
        "setting_data",
        "build_results",
        "_counts",
        "_key",
        "_kinds",
        "_by_kind",
        "write_report",
    ),
    # the JSON report whose failed invariants `gate --conformance` reads
    "conformance/report.py": ("to_json", "verdict_data"),
}
SCOPE = tuple(p for p in PARTS if (ROOT / p).exists())
COPIED = tuple(sorted({p.split("/")[0] for p in PARTS}))

#: Functions never mutated, by file and qualified name, with the reason.
EXCLUDED: dict[tuple[str, str], str] = {}

PLANT_RULES = Rules(EXCLUDED, skip_validation=False, skipped_names=frozenset({"__repr__"}))

#: The tests that may kill a mutant (globs; those present are used).
KILLERS = (
    "tests/evals/test_gate*.py",
    "tests/evals/test_significance.py",
    "tests/evals/test_westfall_young.py",
    "tests/evals/test_fingerprints.py",
    "tests/evals/test_report_identity.py",
    "tests/evals/test_eval_cli.py",
    "tests/test_exit_codes.py",
    "tests/test_outputs.py",
    "tests/test_bad_input_catalogue.py",
    "tests/test_friendly_defaults.py",
    "tests/test_same_input.py",
    "tests/test_cli.py",
    "tests/test_api.py",  # ragward.compare, the library's gate
    "tests/conformance/test_cli_conform.py",
    "tests/conformance/test_report_json.py",  # the JSON report's own fields
)

#: Killer tests left out, with the reason.
DESELECTED = {
    "tests/conformance/test_cli_conform.py::test_reference_conforms_to_the_whole_kit": (
        "30 s: the whole kit against the reference; the file's other tests check the JSON"
    ),
}

PYTEST = ("-x", "-q", "-p", "no:cacheprovider", "-n", "0")
CACHE = ROOT / ".judge-mutate-cache.jsonl"
EQUIVALENTS = ROOT / "tools" / "judge_equivalents.toml"
REPORT = ROOT / "reports" / "judge" / "mutation.md"

# The baseline's subprocesses record coverage too: a sitecustomize on the copy's path
# starts it when these are set (by the baseline child, for the tests it runs).
_TRACE_ENV = "RAGWARD_JUDGE_TRACE"
_CONTEXT_ENV = "RAGWARD_JUDGE_CONTEXT"
_SITECUSTOMIZE = f"""\
import os

if os.environ.get("{_TRACE_ENV}"):
    import atexit
    import json

    import coverage

    _trace = json.loads(os.environ["{_TRACE_ENV}"])
    _cov = coverage.Coverage(
        data_file=f"{{_trace['file']}}.{{os.getpid()}}",
        include=_trace["include"],
        config_file=False,
        context=os.environ.get("{_CONTEXT_ENV}", "import"),
    )
    _cov.start()
    atexit.register(lambda: (_cov.stop(), _cov.save()))
"""


def killers() -> list[str]:
    """The killer test files present, in :data:`KILLERS` order."""
    found: list[str] = []
    for pattern in KILLERS:
        found += [p.relative_to(ROOT).as_posix() for p in sorted(ROOT.glob(pattern))]
    return list(dict.fromkeys(found))


def all_mutants(root: Path = ROOT) -> list[Mutant]:
    """The mutants of every file in :data:`SCOPE`."""
    out: list[Mutant] = []
    for path in SCOPE:
        out += plant((root / path).read_text(encoding="utf-8"), path, PLANT_RULES, PARTS[path])
    return out


def scope_notes() -> list[str]:
    """What is left out, for the report."""
    lines = ["Never mutated, everywhere:", ""]
    lines += [f"- {rule}" for rule in RULES[:1]] + [
        "- `__repr__`, decorators, annotations, `assert` statements and `if TYPE_CHECKING` "
        "blocks; statement drops outside function bodies",
        "",
        "Unlike the kit's run, argument validation is mutated: the tests send bad input.",
        "",
        "Files in part:",
        "",
    ]
    lines += [f"- `{p}`: only `{'`, `'.join(f)}`" for p, f in PARTS.items() if f and p in SCOPE]
    missing = [p for p in PARTS if p not in SCOPE]
    if missing:
        shown = ", ".join(f"`{p}`" for p in missing)
        lines += ["", f"Files of the scope not in this tree (yet): {shown}."]
    if EXCLUDED:
        lines += ["", "Functions never mutated:", "", "| file | function | why |", "|---|---|---|"]
        lines += [f"| `{f}` | `{q}` | {why} |" for (f, q), why in EXCLUDED.items()]
    lines += ["", "Killer test files: " + ", ".join(f"`{k}`" for k in killers()) + "."]
    lines += ["", "Killer tests left out:", ""]
    lines += [f"- `{t}`: {why}" for t, why in DESELECTED.items()]
    return lines


# -- fingerprints and the cache ------------------------------------------------------------


def _helpers_digest() -> str:
    """What every test depends on: the pytest configuration, the tests' helper modules
    (``tests/commands.py``, ``conftest.py``...) and the tests left out."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    helpers = [p for p in sorted((ROOT / "tests").rglob("*.py")) if not p.name.startswith("test_")]
    for path in helpers:
        digest.update(path.relative_to(ROOT).as_posix().encode() + path.read_bytes())
    digest.update(json.dumps(sorted(DESELECTED)).encode())
    return digest.hexdigest()


def _killer_digests() -> dict[str, str]:
    """Each killer test file's digest."""
    return {k: hashlib.sha256((ROOT / k).read_bytes()).hexdigest() for k in killers()}


def _load_cache() -> dict[tuple[str, str], dict[str, Any]]:
    return load_cache(CACHE)


def _append(entry: dict[str, Any]) -> None:
    append_cache(entry, CACHE)


# -- the baseline --------------------------------------------------------------------------


class _Contexts:
    """A pytest plugin: one coverage context per test; each test's time and outcome."""

    def __init__(self, cov: Any) -> None:
        self.cov = cov
        self.times: Counter[str] = Counter()
        self.failed: list[str] = []

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.cov.switch_context(nodeid)
        os.environ[_CONTEXT_ENV] = nodeid

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.cov.switch_context("import")  # between tests: counts for every test
        os.environ[_CONTEXT_ENV] = "import"

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.times[report.nodeid] += report.duration
        if report.failed:
            self.failed.append(report.nodeid)


def _baseline_child(trace: Path, tests: list[str]) -> int:
    """In the subprocess: every killer once, under coverage; the trace as JSON."""
    import coverage
    import pytest

    base = Path.cwd().resolve()
    include = [str(base / p) for p in SCOPE]
    os.environ[_TRACE_ENV] = json.dumps({"file": str(trace), "include": include})
    cov = coverage.Coverage(data_file=None, include=include, config_file=False)
    cov.start()
    cov.switch_context("import")
    plugin = _Contexts(cov)
    deselect = [a for t in DESELECTED for a in ("--deselect", t)]
    code = pytest.main(["-q", *PYTEST[2:], *deselect, *tests], plugins=[plugin])
    cov.stop()
    import ragward.evals.gate

    if not Path(ragward.evals.gate.__file__ or "").resolve().is_relative_to(base):
        raise SystemExit(f"ragward imported from {ragward.evals.gate.__file__}")
    lines: dict[str, dict[str, set[str]]] = {}
    datas = [cov.get_data()]
    for extra in sorted(trace.parent.glob(trace.name + ".*")):  # one per subprocess
        data = coverage.CoverageData(basename=str(extra))
        data.read()
        datas.append(data)
    for data in datas:
        for measured in data.measured_files():
            relative = Path(measured).resolve().relative_to(base).as_posix()
            by_line = lines.setdefault(relative, {})
            for number, contexts in data.contexts_by_lineno(measured).items():
                by_line.setdefault(str(number), set()).update(contexts)
    result = {
        "code": int(code),
        "failed": plugin.failed,
        "times": {k: round(v, 3) for k, v in plugin.times.items()},
        "lines": {f: {n: sorted(c) for n, c in b.items()} for f, b in lines.items()},
        "subprocesses": len(datas) - 1,
    }
    trace.write_text(json.dumps(result), encoding="utf-8")
    return 0


def _wide_fixtures() -> list[str]:
    """Killer files (or conftests) with fixtures wider than a test: a line such a fixture
    runs would be credited to the first test that used it only."""
    files = [ROOT / k for k in killers()]
    folders = {f for k in files for f in k.parents if f.is_relative_to(ROOT / "tests")}
    files += sorted(f / "conftest.py" for f in folders if (f / "conftest.py").exists())
    pattern = re.compile(r"@pytest\.fixture\([^)]*scope=")
    return [p.relative_to(ROOT).as_posix() for p in files if pattern.search(p.read_text())]


def baseline() -> dict[str, Any]:
    """Every killer on the unmutated copy, under per-test coverage (cached while the scope's
    files and the tests are unchanged)."""
    digest = hashlib.sha256(_helpers_digest().encode())
    digest.update(json.dumps(_killer_digests(), sort_keys=True).encode())
    for path in SCOPE:
        digest.update(path.encode() + (ROOT / path).read_bytes())
    fingerprint = digest.hexdigest()[:16]
    for entry in _load_cache().values():
        if entry["key"] == "baseline" and entry["fingerprint"] == fingerprint:
            cached: dict[str, Any] = entry["baseline"]
            return cached
    if wide := _wide_fixtures():
        raise SystemExit(f"fixtures wider than one test in {wide}: per-test selection breaks")
    print("baseline: every killer test on the unmutated copy, with coverage ...", flush=True)
    tree = shadow_tree(None, COPIED, ("tests", "tools"))
    (tree / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    trace = tree / "trace" / "trace.json"
    trace.parent.mkdir()
    command = [sys.executable, "-m", "tools.judge_mutate", "--baseline-child", str(trace)]
    environment = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    started = time.perf_counter()
    try:
        subprocess.run([*command, *killers()], cwd=tree, env=environment, check=False)
        result = json.loads(trace.read_text(encoding="utf-8")) if trace.exists() else {}
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    if result.get("code") != 0 or result.get("failed"):
        raise SystemExit(f"the unmutated copy fails its tests: {result.get('failed', result)}")
    result["seconds"] = round(time.perf_counter() - started, 1)
    _append({"key": "baseline", "fingerprint": fingerprint, "baseline": result})
    print(f"baseline: {len(result['times'])} tests pass ({result['seconds']:.0f}s)", flush=True)
    return result


# -- mutants -------------------------------------------------------------------------------


def _launch(mutant: Mutant, tests: list[str], budget: float) -> tuple[int | None, str, float]:
    """pytest over ``tests`` on a copy with ``mutant`` planted: (exit code or None after
    ``budget`` seconds, output, seconds)."""
    tree = shadow_tree(mutant, COPIED, ("tests", "tools"))
    environment = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", *PYTEST, *tests],
            cwd=tree,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # a hung test's own subprocesses go with it
        )
        code: int | None
        try:
            out, _ = process.communicate(timeout=budget)
            code = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            code = None
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return code, out, time.perf_counter() - started


def _first_failure(out: str) -> tuple[str, str]:
    """The first failed test of pytest's short summary, and its message."""
    for line in out.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            test, _, message = line.split(" ", 1)[1].partition(" - ")
            return test, clean(message)[:300]
    return "", clean(out.strip().splitlines()[-1])[:300] if out.strip() else ""


class Runner:
    """Runs mutants, learns which tests kill most, caches every outcome."""

    def __init__(
        self,
        base: dict[str, Any],
        jobs: int,
        cache: dict[tuple[str, str], dict[str, Any]] | None = None,
    ) -> None:
        self.times: dict[str, float] = base["times"]
        self.lines: dict[str, dict[str, list[str]]] = base["lines"]
        self.helpers = _helpers_digest()
        self.files = _killer_digests()
        self.jobs = jobs
        self.cache = _load_cache() if cache is None else cache
        outcomes = [e["outcome"] for e in self.cache.values() if "outcome" in e]
        self.kills: Counter[str] = Counter(o["killer"] for o in outcomes if o["killer"])
        self.lock = threading.Lock()
        self.done = 0

    def reaching(self, mutant: Mutant) -> list[str]:
        """The tests whose baseline run executes a line of ``mutant``, likeliest killers
        first."""
        by_line = self.lines.get(mutant.path, {})
        found: set[str] = set()
        for line in range(mutant.line, mutant.end_line + 1):
            found.update(by_line.get(str(line), ()))
        # Run at import or between tests, or a module-level line (a module imported inside
        # a command runs its top level during whichever test imports it first, and only
        # that test is credited): every test depends on it.
        if "import" in found or not mutant.function:
            found = set(self.times)
        found &= set(self.times)
        return sorted(found, key=lambda t: (-self.kills[t], self.times[t], t))

    def fingerprint(self, mutant: Mutant) -> str:
        """The mutated file, the tests' helpers and the test files the mutant runs: an
        edit elsewhere (a test added to another file) keeps its cached outcome."""
        digest = hashlib.sha256((ROOT / mutant.path).read_bytes() + self.helpers.encode())
        for name in sorted({t.split("::")[0] for t in self.reaching(mutant)}):
            digest.update(f"{name} {self.files[name]}".encode())
        return digest.hexdigest()[:16]

    def cached(self, mutant: Mutant) -> Outcome | None:
        entry = self.cache.get((mutant.id, self.fingerprint(mutant)))
        return None if entry is None else Outcome(**entry["outcome"])

    def run(self, mutant: Mutant, total: int, deadline: float = math.inf) -> Outcome | None:
        """The mutant's outcome (from the cache when there); None once past ``deadline``."""
        outcome = self.cached(mutant)
        fresh = outcome is None
        if outcome is None:
            if time.monotonic() > deadline:
                return None
            outcome = self._run(mutant)
            fingerprint = self.fingerprint(mutant)
            with self.lock:
                _append({"key": mutant.id, "fingerprint": fingerprint, "outcome": asdict(outcome)})
                if outcome.killer:
                    self.kills[outcome.killer] += 1
        with self.lock:
            self.done += 1
            tag = f"{outcome.seconds:.1f}s ({outcome.ran} tests)" if fresh else "(cached)"
            print(f"[{self.done}/{total}] {outcome.status:<11} {mutant.id} {tag}", flush=True)
        return outcome

    def _run(self, mutant: Mutant) -> Outcome:
        tests = self.reaching(mutant)
        if not tests:
            return Outcome(mutant.id, "not-reached")
        budget = (60.0 + 3.0 * sum(self.times[t] for t in tests)) * max(1, self.jobs)
        code, out, seconds = _launch(mutant, tests, budget)
        if code in (4, 5):  # a test id no longer collected (a parameter moved): whole files
            files = sorted({t.split("::")[0] for t in tests})
            code, out, more = _launch(mutant, files, budget)
            seconds += more
        seconds = round(seconds, 2)
        if code is None:
            hang = f"no verdict in {budget:.0f} s"
            return Outcome(mutant.id, "timeout", "", hang, seconds, len(tests))
        if code == 0:
            return Outcome(mutant.id, "survived", "", "", seconds, len(tests))
        if code in (4, 5):
            raise SystemExit(f"{mutant.id}: pytest collected nothing to run:\n{out[-2000:]}")
        killer, reason = _first_failure(out)
        return Outcome(mutant.id, "killed", killer, reason, seconds, len(tests))


def _select(mutants: list[Mutant], args: argparse.Namespace) -> list[Mutant]:
    if args.only:
        pattern = re.compile(args.only)
        mutants = [m for m in mutants if pattern.search(m.id)]
    rng = random.Random(args.seed)  # a run cut short by --minutes is still a uniform sample
    return rng.sample(mutants, min(args.sample or len(mutants), len(mutants)))


def _described(args: argparse.Namespace, run: int, planted: int) -> str:
    """How the mutants run were chosen, for the report ("" for all of them)."""
    parts = [f"--only {args.only}"] if args.only else []
    if args.sample:
        parts.append(f"a random sample, --sample {args.sample} --seed {args.seed}")
    if run < planted and not parts:
        parts.append("those in the cache" if args.report_only else "cut short by --minutes")
    return "; ".join(parts)


def _iterate(runner: Runner, mutants: list[Mutant], deadline: float) -> Iterator[Outcome | None]:
    def one(mutant: Mutant) -> Outcome | None:
        return runner.run(mutant, len(mutants), deadline)

    if runner.jobs <= 1:
        yield from map(one, mutants)
        return
    with ThreadPoolExecutor(runner.jobs) as pool:
        yield from pool.map(one, mutants)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--only", default="", help="regular expression on mutant ids")
    parser.add_argument("--sample", type=int, default=0, help="run N mutants at random")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once")
    parser.add_argument("--minutes", type=float, default=0, help="start no mutant after this")
    parser.add_argument("--report-only", action="store_true", help="report from the cache")
    parser.add_argument("--fresh", action="store_true", help="ignore the cache")
    parser.add_argument("--baseline-child", type=Path, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.baseline_child is not None:
        return _baseline_child(args.baseline_child, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    everything = all_mutants()
    mutants = _select(everything, args)
    if args.list:
        print_mutants(mutants, everything, by_file=True)
        return 0
    if args.fresh and CACHE.exists():
        CACHE.unlink()
    started = time.perf_counter()
    base = baseline()
    runner = Runner(base, args.jobs)
    if args.report_only:
        found = {m.id: runner.cached(m) for m in mutants}
        outcomes = {i: o for i, o in found.items() if o is not None}
    else:
        deadline = time.monotonic() + 60 * args.minutes if args.minutes else math.inf
        outcomes = {o.id: o for o in _iterate(runner, mutants, deadline) if o}
    command = " ".join(a for a in argv if a not in ("--fresh", "--report-only"))
    if args.report_only:  # the wall time of the last run of the same command, if any
        wall = runner.cache.get(("run", command), {}).get("wall", "")
    else:
        wall = f"{(time.perf_counter() - started) / 60:.1f} min with --jobs {args.jobs}"
        _append({"key": "run", "fingerprint": command, "wall": wall})
    meta = {
        "command": command,
        "planted": len(everything),
        "wall": wall,
        "baseline_seconds": base["seconds"],
        "tests": len(base["times"]),
        "mutant_seconds": round(sum(o.seconds for o in outcomes.values()), 1),
        "selection": _described(args, len(outcomes), len(everything)),
    }
    position = {m.id: i for i, m in enumerate(everything)}
    chosen = sorted(mutants, key=lambda m: position[m.id])
    sources = {p: (ROOT / p).read_text(encoding="utf-8") for p in SCOPE}
    explanations = load_explanations(EQUIVALENTS)
    text, data = render(chosen, outcomes, explanations, sources, meta, scope_notes)
    return write_report(REPORT, text, data, "## Per file")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
