"""Pin the engine findings: every failing cell of the matrix, with its counterexample.

The matrix (``ragward engines --matrix``) is a *sampled* verdict: each invariant draws its
``ci`` profile's cases from a fixed seed, and a change to the kit's strategies draws other
cases — an engine defect found by one sample can hide from the next. A finding, once
made, should not depend on that luck. This tool keeps, per configuration, a report of the
failures ever found (``reports/engines/findings/<label>.json``, in the format
``ragward conform --replay`` reads), adds the failures of the current matrix, and keeps a
pinned one only while it still fails when replayed (run with the engines installed) and
holds on the reference (a case the reference fails too is the kit's problem, not an
engine's finding). ``tests/engines/test_findings.py`` replays every pinned case in CI,
through the pytest file ``ragward conform --emit-test`` writes for it.

    python -m tools.pin_findings                      # add the current matrix's failures
    python -m tools.pin_findings --from-rev REV       # and those of the matrix at git REV
    python -m tools.pin_findings --minimise           # and minimise every case again
    python -m tools.pin_findings --check              # only replay; exit 1 if one passes
    python -m tools.pin_findings --only LABEL,...     # only these columns (any of the above)

Of the cases a cell has (the pinned one, the current matrix's, the older matrix's), the
smallest that still fails is kept: fewest documents, then fewest words of JSON, then the
pinned one. ``--minimise`` first runs the kit's minimiser on each of them against its
configuration (cases pinned by an older kit, or before the minimiser, get as small as a
fresh run's).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import LEVELS, REGISTRY, Violation
from ragward.conformance.loading import load_factory
from ragward.conformance.report import to_json
from ragward.conformance.runner import Report, Verdict, minimise_verdict, replay, said
from ragward.engines import Configuration, configurations
from ragward.engines.matrix import REFERENCE, impl_of, label, load_column
from tools.counterexample_stats import documents, words

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ROOT / "reports" / "engines"
FINDINGS = MATRIX / "findings"
#: Hash seeds of the processes each pinned case is replayed in.
SEEDS = ("0", "1", "20261201")


def _failures(configuration: Configuration, folder: Path) -> dict[str, Verdict]:
    if not (folder / f"{label(configuration)}.json").exists():
        return {}
    report = load_column(configuration, folder, 0.0).report
    return {
        v.id: v
        for v in report.verdicts
        if v.status == "fail" and v.counterexample is not None and v.id in REGISTRY
    }


def _at_revision(revision: str, folder: Path) -> None:
    for configuration in _columns():
        name = f"reports/engines/{label(configuration)}.json"
        shown = subprocess.run(
            ["git", "show", f"{revision}:{name}"], cwd=ROOT, capture_output=True, check=False
        )
        if shown.returncode == 0:
            (folder / f"{label(configuration)}.json").write_bytes(shown.stdout)


def _columns() -> list[Configuration]:
    return [c for c in [REFERENCE, *configurations()] if c.in_matrix]


def still_fails(configuration: Configuration, verdict: Verdict) -> bool:
    """Whether the pinned case fails again when replayed against its configuration, in
    each of :data:`SEEDS`' fresh processes (an engine may order ties by per-process
    random state: a finding must not depend on it)."""
    with tempfile.TemporaryDirectory() as folder:
        case = Path(folder) / "case.json"
        pinned = Report(impl_of(configuration), "ci", (verdict,), selection=(verdict.id,))
        case.write_text(to_json(pinned), "utf-8")
        impl = impl_of(configuration)
        command = [sys.executable, "-m", "ragward", "conform", "--impl", impl]
        for seed in SEEDS:
            done = subprocess.run(
                [*command, "--replay", str(case), "--invariant", verdict.id],
                env={**os.environ, "PYTHONHASHSEED": seed},
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 1:
                why = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
                print(f"  {verdict.id}, PYTHONHASHSEED={seed}: exit {done.returncode} {why[0]}")
                return False
    return True


def holds_on_reference(configuration: Configuration, verdict: Verdict) -> bool:
    """Whether the pinned case holds on the reference (replayed once, in a fresh process)."""
    with tempfile.TemporaryDirectory() as folder:
        case = Path(folder) / "case.json"
        pinned = Report(impl_of(configuration), "ci", (verdict,), selection=(verdict.id,))
        case.write_text(to_json(pinned), "utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "ragward", "conform", "--replay", str(case)],
            capture_output=True,
            text=True,
            check=False,
        )
    return done.returncode == 0


def refreshed(configuration: Configuration, verdict: Verdict) -> Verdict:
    """``verdict`` with the reason and diff the current kit gives its case (a kept case
    may have been found by an older kit, whose words for the same failure differ)."""
    try:
        replay(load_factory(impl_of(configuration)), verdict.id, verdict.counterexample)
    except Violation as violation:
        reason, detail = said(violation)
        return replace(verdict, reason=reason, detail=detail)
    return verdict  # held in this process (an engine's random tie): left as found


def _write(configuration: Configuration, verdicts: dict[str, Verdict]) -> None:
    path = FINDINGS / f"{label(configuration)}.json"
    if not verdicts:
        path.unlink(missing_ok=True)
        return
    where = path.relative_to(ROOT).as_posix()
    hint = f"ragward conform --impl {impl_of(configuration)} --replay {where} --invariant {{}}"
    kept = sorted(verdicts.values(), key=lambda v: (LEVELS.index(v.level), v.id))
    report = Report(
        impl_of(configuration),
        "ci",
        tuple(replace(v, replay=hint.format(v.id)) for v in kept),
        selection=tuple(v.id for v in kept),  # the failures kept, not a run of the kit
    )
    path.write_text(to_json(report), encoding="utf-8")


def _candidates(configuration: Configuration, older: Path, check: bool) -> dict[str, list[Verdict]]:
    """Each failing invariant's cases: the pinned one first, then the matrices' (none
    with ``check``)."""
    out: dict[str, list[Verdict]] = {}
    sources = [FINDINGS] if check else [FINDINGS, MATRIX, older]
    for source in sources:
        for invariant, verdict in _failures(configuration, source).items():
            cases = out.setdefault(invariant, [])
            if all(v.counterexample != verdict.counterexample for v in cases):
                cases.append(verdict)
    return out


def _finding(configuration: Configuration, verdict: Verdict) -> bool:
    """Whether the case fails again on its configuration and holds on the reference (a
    case the reference fails too is the kit's problem, not an engine's finding)."""
    if not still_fails(configuration, verdict):
        print(f"  {label(configuration)} {verdict.id}: a case passes when replayed", flush=True)
        return False
    if configuration is not REFERENCE and not holds_on_reference(configuration, verdict):
        print(f"  {label(configuration)} {verdict.id}: a case fails on the reference too")
        return False
    return True


def _by_size(cases: list[Verdict]) -> list[Verdict]:
    """Smallest first (documents, then words of JSON); ties keep their order."""
    return sorted(cases, key=lambda v: (documents(v.counterexample), words(v.counterexample)))


def _minimise(
    configuration: Configuration, candidates: dict[str, list[Verdict]]
) -> dict[str, list[Verdict]]:
    """Every case minimised again on its configuration, the reference as the baseline."""
    from ragward.engines.reference import reference_factory

    factory = load_factory(impl_of(configuration))
    out = {}
    for invariant, cases in sorted(candidates.items()):
        smaller = [minimise_verdict(v, factory, baseline=reference_factory) for v in cases]
        out[invariant] = [*smaller, *cases]  # the original stays in case the new one passes
        print(f"{label(configuration)} {invariant}: minimised", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-rev", metavar="REV", help="also the matrix stored at git REV")
    parser.add_argument("--check", action="store_true", help="replay the pinned cases only")
    parser.add_argument(
        "--minimise", action="store_true", help="minimise every case again before keeping one"
    )
    parser.add_argument("--only", metavar="LABEL,...", help="only these columns")
    args = parser.parse_args(argv)
    wanted = {w.strip() for w in args.only.split(",")} if args.only else None
    FINDINGS.mkdir(parents=True, exist_ok=True)
    lost = 0
    with tempfile.TemporaryDirectory() as older:
        if args.from_rev:
            _at_revision(args.from_rev, Path(older))
        for configuration in _columns():
            if wanted is not None and label(configuration) not in wanted:
                continue
            if configuration.missing():
                print(f"{label(configuration)}: not installed, left as it is", file=sys.stderr)
                continue
            candidates = _candidates(configuration, Path(older), args.check)
            if args.minimise:
                candidates = _minimise(configuration, candidates)
            kept = {}
            for invariant, cases in sorted(candidates.items()):
                verdict = next((v for v in _by_size(cases) if _finding(configuration, v)), None)
                if verdict is not None:
                    kept[invariant] = refreshed(configuration, verdict)
                    continue
                lost += 1
                why = "no case left that fails on it and holds on the reference"
                print(f"{label(configuration)} {invariant}: {why}", flush=True)
            print(f"{label(configuration)}: {len(kept)} findings pinned", flush=True)
            if not args.check:
                _write(configuration, kept)
    return 1 if args.check and lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
