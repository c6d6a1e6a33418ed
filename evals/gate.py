"""``ragward gate``: fail CI on a significant quality regression or on any leak.

    ragward gate --baseline reports/baseline --current reports/tidewater

Each setting present in both runs is compared per measure over the per-query (and, for
grounding, per-claim) values with a paired randomization test (fixed seed, so the verdict
is reproducible), and the p-values of all comparisons are adjusted together with Holm's
method, so a long grid does not raise false alarms. A measure regresses when it drops by
more than the tolerance *and* the adjusted p-value is below ``alpha``. Leakage is not a
statistic: one leaked answer in the current run fails the gate, as does any failed
invariant of a conformance report given with ``--conformance``.

Exit status: 0 pass, 1 regression or leak, 2 unusable input (one line).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragward.errors import InputError
from ragward.evals.jsonl import read_text
from ragward.evals.measures import measure_name

__all__ = ["Finding", "GateResult", "add_gate_parser", "compare", "load_results", "run_gate"]


@dataclass(frozen=True)
class Finding:
    """One compared measure of one setting."""

    setting: str
    measure: str
    n: int
    baseline: float
    current: float
    p_value: float
    adjusted_p: float
    status: str  # "regression", "improvement" or "unchanged"


@dataclass(frozen=True)
class GateResult:
    findings: tuple[Finding, ...]
    leaks: tuple[str, ...]  # settings of the current run that leaked
    failed_invariants: tuple[str, ...]
    unmatched: tuple[str, ...]  # settings of the baseline missing from the current run
    invariants_checked: int = 0  # verdicts read from a conformance report, if one was given

    @property
    def passed(self) -> bool:
        regressions = any(f.status == "regression" for f in self.findings)
        return not (regressions or self.leaks or self.failed_invariants)


def load_results(path: Path, role: str) -> dict[str, Any]:
    """A ``results.json`` (or the report directory holding one), checked for shape."""
    file = path / "results.json" if path.is_dir() else path
    data = _read_json(file, f"{role} results")
    if not isinstance(data, dict) or data.get("format") != "ragward-eval/1":
        raise InputError.at(file, None, "format", "not a ragward eval results file")
    for number, entry in enumerate(data.get("settings", [])):
        if not isinstance(entry, dict) or not isinstance(entry.get("per_query"), dict):
            raise InputError.at(file, None, f"settings[{number}].per_query", "missing")
    return data


def _read_json(file: Path, what: str) -> Any:
    """The JSON in ``file``, read as every ragward file is read (gzip, a byte-order mark,
    strict UTF-8: :func:`~ragward.evals.jsonl.read_text`); any problem is one line."""
    if not file.exists() and not file.parent.is_file():
        raise InputError.at(file, None, None, f"{what} not found")
    if file.is_dir():
        raise InputError.at(file, None, None, f"is a directory, not the {what}")
    text = read_text(file)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError.at(file, error.lineno, None, f"not valid JSON: {error.msg}") from None


def compare(
    baseline: Mapping[str, Any],
    current: Mapping[str, Any],
    *,
    alpha: float = 0.05,
    tolerance: Mapping[str, float] | float = 0.0,
    default_tolerance: float = 0.0,
    trials: int = 10_000,
    seed: int = 0,
    settings: Sequence[str] = (),
) -> GateResult:
    """Compare ``current`` with ``baseline``, setting by setting, measure by measure."""
    from ragward.evals.significance import judge, paired_randomization

    before = {s["id"]: s for s in baseline["settings"]}
    after = {s["id"]: s for s in current["settings"]}
    wanted = [s for s in before if s in after and (not settings or s in settings)]
    if settings and (missing := [s for s in settings if s not in wanted]):
        raise InputError(f"setting {missing[0]!r} is not in both runs")
    if not wanted:
        raise InputError("the baseline and the current run have no setting in common")
    keys: list[tuple[str, str]] = []
    comparisons = {}
    allowed: dict[str, float] = {}
    for setting in wanted:
        for measure, old, new in _paired_values(before[setting], after[setting], setting):
            key = f"{setting} {measure}"
            keys.append((setting, measure))
            comparisons[key] = paired_randomization(old, new, trials=trials, seed=seed)
            allowed[key] = (
                tolerance
                if isinstance(tolerance, float | int)
                else tolerance.get(measure, default_tolerance)
            )
    verdicts = judge(comparisons, alpha=alpha, tolerance=allowed)
    findings = tuple(
        Finding(
            setting,
            measure,
            verdict.comparison.n,
            verdict.comparison.baseline_mean,
            verdict.comparison.current_mean,
            verdict.comparison.p_value,
            verdict.adjusted_p,
            verdict.status,
        )
        for (setting, measure), verdict in zip(keys, verdicts, strict=True)
    )
    leaks = tuple(
        s["id"]
        for s in current["settings"]
        if any(v > 0 for k, v in s["means"].items() if k.startswith("leakage"))
    )
    unmatched = tuple(s for s in before if s not in after)
    return GateResult(findings, leaks, (), unmatched)


def _paired_values(
    old: Mapping[str, Any], new: Mapping[str, Any], setting: str
) -> list[tuple[str, list[float], list[float]]]:
    out = []
    for measure, values in old["per_query"].items():
        if measure.startswith("leakage") or measure not in new["per_query"]:
            continue
        out.append((measure, *_align(values, new["per_query"][measure], setting, measure)))
    for threshold, values in old.get("per_claim", {}).items():
        if threshold in new.get("per_claim", {}):
            name = f"grounding_accuracy@{threshold}"
            out.append((name, *_align(values, new["per_claim"][threshold], setting, name)))
    return out


def _align(
    old: Mapping[str, float], new: Mapping[str, float], setting: str, measure: str
) -> tuple[list[float], list[float]]:
    if set(old) != set(new):
        raise InputError(
            f"{setting} {measure}: the runs were made on different queries "
            f"({len(set(old) ^ set(new))} differ); compare runs of the same split"
        )
    keys = sorted(old)
    return [float(old[k]) for k in keys], [float(new[k]) for k in keys]


def failed_invariants(path: Path) -> tuple[tuple[str, ...], int]:
    """The invariants a ``ragward conform --json`` report says failed, and how many
    verdicts it holds."""
    data = _read_json(path, "conformance report")
    if not isinstance(data, dict) or not isinstance(data.get("invariants"), list):
        raise InputError.at(path, None, "invariants", "not a ragward conform --json report")
    failed = tuple(
        str(entry.get("id"))
        for entry in data["invariants"]
        if isinstance(entry, dict) and entry.get("verdict") == "fail"
    )
    return failed, len(data["invariants"])


def summary(result: GateResult, *, alpha: float, baseline: str, current: str) -> str:
    """The verdict as markdown for a CI job page: failures first, then every change."""
    from tabulate import tabulate

    regressions = [f for f in result.findings if f.status == "regression"]
    verdict = "PASS" if result.passed else "FAIL"
    lines = [
        f"# Quality gate: {verdict}",
        "",
        f"Baseline `{baseline}`, current `{current}`; {len(result.findings)} comparisons "
        f"(paired randomization test, Holm-adjusted, alpha {alpha:g}).",
        "",
    ]
    if result.leaks:
        lines += [f"- **Leak**: `{s}` answered outside the asker's view" for s in result.leaks]
    if result.failed_invariants:
        lines += [f"- **Invariant failed**: `{i}`" for i in result.failed_invariants]
    elif result.invariants_checked:
        lines.append(f"- Conformance: none of {result.invariants_checked} verdicts failed")
    if result.unmatched:
        lines.append(f"- {len(result.unmatched)} baseline settings are not in the current run")
    changed = [f for f in result.findings if f.status != "unchanged"]
    lines += [
        "",
        f"{len(regressions)} significant regressions, "
        f"{sum(f.status == 'improvement' for f in changed)} significant improvements.",
        "",
    ]
    shown = changed or sorted(result.findings, key=lambda f: f.adjusted_p)[:5]
    rows = [
        [
            f.status,
            f.setting,
            f.measure,
            f.n,
            f.baseline,
            f.current,
            f.current - f.baseline,
            f.p_value,
            f.adjusted_p,
        ]
        for f in sorted(shown, key=lambda f: (f.status != "regression", f.adjusted_p, f.setting))
    ]
    headers = ["status", "setting", "measure", "n", "baseline", "current", "delta", "p", "p (Holm)"]
    lines += [tabulate(rows, headers=headers, tablefmt="github", floatfmt=".4f"), ""]
    return "\n".join(lines)


def add_gate_parser(commands: Any) -> None:
    """Add the ``gate`` subcommand."""
    parser = commands.add_parser(
        "gate",
        help="fail on a significant regression against a baseline, or on any leak",
        description="Compare an eval run with a baseline run (paired randomization test, "
        "Holm-adjusted); exit 1 on a significant regression, a leak or a failed invariant.",
    )
    parser.add_argument(
        "--baseline",
        required=True,
        type=Path,
        metavar="DIR|FILE",
        help="the baseline eval report (its directory or its results.json)",
    )
    parser.add_argument(
        "--current",
        required=True,
        type=Path,
        metavar="DIR|FILE",
        help="the eval report to judge (its directory or its results.json)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise (default 0.05)")
    parser.add_argument(
        "--tolerance",
        action="append",
        default=[],
        metavar="[MEASURE=]DROP",
        help="drop allowed before a significant one counts (default 0); repeatable",
    )
    parser.add_argument("--trials", type=int, default=10_000, help="randomization trials")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the randomization test (default 0)"
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="ID",
        help="compare only this setting (default: every setting in both runs); repeatable",
    )
    parser.add_argument(
        "--conformance",
        type=Path,
        metavar="FILE.json",
        help="a ragward conform --json report: any failure fails the gate",
    )
    parser.add_argument(
        "--summary",
        type=Path,
        metavar="FILE.md",
        help="where to write the markdown (default: CURRENT/gate.md)",
    )
    parser.set_defaults(run=run_gate)


def run_gate(args: argparse.Namespace) -> int:
    from ragward.outputs import check_file, write_atomic

    if not 0.0 < args.alpha < 1.0:
        raise InputError(f"--alpha must lie in (0, 1), got {args.alpha}")
    if args.trials < 1:
        raise InputError(f"--trials must be >= 1, got {args.trials}")
    tolerance, default_tolerance = _tolerance(args.tolerance)
    target = args.summary
    if target is None:
        target = (args.current if args.current.is_dir() else args.current.parent) / "gate.md"
    check_file(target, "--summary")
    baseline = load_results(args.baseline, "baseline")
    current = load_results(args.current, "current")
    if isinstance(tolerance, dict):
        _check_tolerated(tolerance, baseline)
    result = compare(
        baseline,
        current,
        alpha=args.alpha,
        tolerance=tolerance,
        default_tolerance=default_tolerance,
        trials=args.trials,
        seed=args.seed,
        settings=args.setting,
    )
    if args.conformance is not None:
        failed, checked = failed_invariants(args.conformance)
        result = GateResult(result.findings, result.leaks, failed, result.unmatched, checked)
    text = summary(result, alpha=args.alpha, baseline=str(args.baseline), current=str(args.current))
    write_atomic(target, text)
    print(text)
    return 0 if result.passed else 1


def _check_tolerated(tolerance: Mapping[str, float], baseline: Mapping[str, Any]) -> None:
    """Refuse a ``--tolerance`` for a measure the runs do not hold: a typo would otherwise
    leave the measure it meant at a tolerance of 0, silently."""
    compared: set[str] = set()
    for entry in baseline.get("settings", []):
        compared.update(entry["per_query"])
        compared.update(f"grounding_accuracy@{t}" for t in entry.get("per_claim", {}))
    for measure in tolerance:
        if measure not in compared:
            known = ", ".join(sorted(m for m in compared if not m.startswith("leakage")))
            raise InputError(
                f"--tolerance {measure}: not a measure of the runs (they have {known})"
            )


def _tolerance(items: Sequence[str]) -> tuple[dict[str, float] | float, float]:
    """``--tolerance`` values: per measure (or one for all), and the default for the rest."""
    default = 0.0
    per_measure: dict[str, float] = {}
    for item in items:
        name, equals, value = item.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"--tolerance {item!r}: expected [MEASURE=]DROP") from None
        if number < 0:
            raise InputError(f"--tolerance {item!r}: a drop allowed is >= 0")
        if equals:
            per_measure[measure_name(name)] = number
        else:
            default = number
    return (per_measure or default), default
