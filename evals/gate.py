"""The gate's decision: a current eval run against a baseline, comparison by comparison.

A *comparison* is one measure of one setting over its per-query (or, for grounding,
per-claim) values. The gated comparisons — every setting and measure of the baseline
unless ``settings``/``measures`` narrow them — are judged together by a Westfall-Young
max-T step-down test over one shared set of per-query sign flips
(:mod:`ragward.evals.westfall_young`), which controls the family-wise error rate at
``alpha`` whatever the size of the grid; the rest are reported as exploratory and never
fail. A gated measure *regresses* when its adjusted p-value is below ``alpha`` and it
dropped by more than its tolerance.

Whatever the statistics say, the gate also fails on what is missing (a gated setting,
measure or question of the baseline that the current run lacks is a regression unless
allowed) and on any leaked answer. Before testing, it refuses (:class:`GateCannotFail`)
a family in which some comparison could never reach ``alpha``: a gate that cannot fail
must not say PASS.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragward.errors import InputError
from ragward.evals.conformance_input import Conformance
from ragward.evals.run_identity import Identity
from ragward.evals.westfall_young import floor_p, max_t_step_down

__all__ = ["Finding", "GateCannotFail", "GateResult", "comparable_measures", "compare"]

_Run = Mapping[str, Any]  # a checked results file (JSON)
_Entry = Mapping[str, Any]  # one of its settings


class GateCannotFail(InputError):
    """Some gated comparison can never reach ``alpha``: the gate refuses to judge (exit 2)."""


@dataclass(frozen=True)
class Finding:
    """One compared measure of one setting."""

    setting: str
    measure: str
    n: int  # paired values (queries, or claims for grounding)
    baseline: float
    current: float
    p_value: float  # the comparison's own randomization p-value
    adjusted_p: float  # Westfall-Young adjusted over its family (gated, or all for exploratory)
    status: str  # "regression", "improvement" or "unchanged"


@dataclass(frozen=True)
class GateResult:
    """Everything the gate found; :attr:`passed` is the verdict."""

    findings: tuple[Finding, ...]  # the gated comparisons
    trials: int  # sign patterns of the gated test
    exact: bool
    floor: float  # the smallest adjusted p-value the gated test can reach
    exploratory: tuple[Finding, ...] = ()  # compared, reported, never failing
    leaks: tuple[str, ...] = ()  # settings of the current run that leaked
    missing: tuple[str, ...] = ()  # gated settings, measures or questions the current run lacks
    missing_allowed: bool = False
    conformance: Conformance | None = None
    partial_allowed: bool = False
    identity: Identity | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def regressions(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status == "regression")

    @property
    def conformance_failed(self) -> bool:
        report = self.conformance
        if report is None:
            return False
        partial = bool(report.not_run) or report.selected
        return bool(report.failed) or (partial and not self.partial_allowed)

    @property
    def passed(self) -> bool:
        missing = bool(self.missing) and not self.missing_allowed
        return not (self.regressions or self.leaks or missing or self.conformance_failed)


@dataclass(frozen=True)
class _Comparison:
    setting: str
    measure: str
    units: tuple[tuple[str, str], ...]  # ("query", id) or ("claim", id), in a fixed order
    baseline: tuple[float, ...]
    current: tuple[float, ...]


def comparable_measures(run: _Run) -> list[str]:
    """Every measure the gate can compare in ``run``, in the order the run lists them."""
    names: dict[str, None] = {}
    for entry in _settings(run):
        names.update(dict.fromkeys(m for m in entry["per_query"] if not _is_leakage(m)))
        names.update(dict.fromkeys(_grounding(t) for t in entry.get("per_claim", {})))
    return list(names)


def compare(
    baseline: _Run,
    current: _Run,
    *,
    alpha: float = 0.05,
    tolerance: Mapping[str, float] | float = 0.0,
    default_tolerance: float = 0.0,
    trials: int = 10_000,
    seed: int = 0,
    settings: Sequence[str] = (),
    measures: Sequence[str] = (),
    allow_missing: bool = False,
) -> GateResult:
    """Judge ``current`` against ``baseline`` (both checked results files, as
    :func:`~ragward.evals.run_results.load_results` returns them).

    ``settings`` holds ``"all"`` (the default), ``"best"`` (the baseline's best setting on
    the first gated measure) and setting ids; ``measures`` names the gated measures
    (default: all). ``tolerance`` is one drop allowed for every measure, or one per measure
    name (the others get ``default_tolerance``).
    """
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must lie in (0, 1), got {alpha!r}")
    _check_drops(tolerance, default_tolerance)
    before = {entry["id"]: entry for entry in _settings(baseline)}
    after = {entry["id"]: entry for entry in _settings(current)}
    gated_measures = _gated_measures(baseline, measures)
    gated_settings = _gated_settings(before, settings, gated_measures[0])
    comparisons: list[tuple[_Comparison, bool]] = []
    missing: list[str] = []
    missing += [f"setting {s}" for s in gated_settings if s not in after]
    for setting, old in before.items():
        if setting not in after:
            continue
        gated_setting = setting in gated_settings
        for measure, old_values, new_values in _pairs(old, after[setting]):
            gated = gated_setting and measure in gated_measures
            if new_values is None:
                if gated:
                    missing.append(f"setting {setting}: measure {measure}")
                continue
            comparison, dropped = _paired(setting, measure, old_values, new_values)
            if dropped and gated:
                missing.append(dropped)
            if comparison.units:
                comparisons.append((comparison, gated))
    gated_family = [c for c, gated in comparisons if gated]
    if not gated_family and not missing:  # nothing gated, and nothing gated is missing
        raise GateCannotFail(
            "the gate could not fail: the gated settings of the baseline hold none of the "
            f"gated measures ({', '.join(gated_measures)}); gate other settings or measures"
        )
    floor = _check_power(gated_family, alpha, trials)
    allowed = {
        c.measure: (
            float(tolerance)
            if isinstance(tolerance, int | float)
            else float(tolerance.get(c.measure, default_tolerance))
        )
        for c, _ in comparisons
    }
    findings, exact, patterns = _judge(gated_family, alpha, allowed, trials, seed)
    exploratory: tuple[Finding, ...] = ()
    if len(gated_family) < len(comparisons):
        everything, _, _ = _judge([c for c, _ in comparisons], alpha, allowed, trials, seed)
        exploratory = tuple(
            f for f, (_, gated) in zip(everything, comparisons, strict=True) if not gated
        )
    return GateResult(
        findings=findings,
        exploratory=exploratory,
        leaks=_leaks(current),
        missing=tuple(missing),
        missing_allowed=allow_missing,
        trials=patterns,
        exact=exact,
        floor=floor,
    )


def _check_drops(tolerance: Mapping[str, float] | float, default: float) -> None:
    """Refuse a drop allowed that is not a finite number >= 0: with a NaN or an infinite
    one no comparison could ever regress (a gate that cannot fail), and a negative one
    would give a measure that did not move a status."""
    drops = (
        {"tolerance": tolerance}
        if isinstance(tolerance, int | float)
        else {f"tolerance[{name!r}]": drop for name, drop in tolerance.items()}
    )
    drops["default_tolerance"] = default
    for name, drop in drops.items():
        if not isinstance(drop, int | float) or not 0.0 <= drop < math.inf:
            raise InputError(f"{name} must be a finite number >= 0, got {drop!r}")


def _settings(run: _Run) -> list[_Entry]:
    return list(run["settings"])


def _is_leakage(measure: str) -> bool:
    return measure.startswith("leakage_")


def _grounding(threshold: str) -> str:
    return f"grounding_accuracy@{threshold}"


def _gated_measures(baseline: _Run, measures: Sequence[str]) -> list[str]:
    known = comparable_measures(baseline)
    if not known:
        raise InputError("the baseline holds no measure the gate can compare")
    if not measures:
        return known
    chosen = [_canonical(name) for name in measures]
    for name in chosen:
        if name not in known:
            raise InputError(
                f"--measures {name}: not a measure of the baseline (it has {', '.join(known)})"
            )
    return list(dict.fromkeys(chosen))


def _canonical(name: str) -> str:
    from ragward.evals.measures import measure_name

    return name if name.startswith("grounding_accuracy@") else measure_name(name)


def _gated_settings(
    before: Mapping[str, _Entry], settings: Sequence[str], primary: str
) -> frozenset[str]:
    if not settings or "all" in settings:
        return frozenset(before)
    chosen: set[str] = set()
    for wanted in settings:
        if wanted == "best":
            chosen.add(_best(before, primary))
        elif wanted in before:
            chosen.add(wanted)
        else:
            raise InputError(f"--setting {wanted}: not a setting of the baseline")
    return frozenset(chosen)


def _best(before: Mapping[str, _Entry], primary: str) -> str:
    """The baseline setting with the highest mean of ``primary`` (the first on ties)."""
    scored = []
    for setting, entry in before.items():
        values = _values_of(entry, primary)
        if values:
            scored.append((math.fsum(values.values()) / len(values), setting))
    if not scored:
        raise InputError(f"--setting best: no baseline setting has {primary}")
    best = max(score for score, _ in scored)
    return next(setting for score, setting in scored if score == best)


def _values_of(entry: _Entry, measure: str) -> dict[str, float] | None:
    if measure.startswith("grounding_accuracy@"):
        table = entry.get("per_claim", {})
        key = measure.removeprefix("grounding_accuracy@")
    else:
        table, key = entry["per_query"], measure
    values = table.get(key)
    return values if isinstance(values, dict) else None


def _pairs(
    old: _Entry, new: _Entry
) -> Iterable[tuple[str, dict[str, float], dict[str, float] | None]]:
    """``(measure, baseline values, current values or None)`` for every measure of ``old``."""
    per_query = old["per_query"]
    per_claim = old.get("per_claim", {})
    for measure, values in per_query.items():
        if not _is_leakage(measure):
            yield measure, values, _values_of(new, measure)
    for threshold, values in per_claim.items():
        name = _grounding(threshold)
        yield name, values, _values_of(new, name)


def _paired(
    setting: str, measure: str, old: Mapping[str, float], new: Mapping[str, float]
) -> tuple[_Comparison, str | None]:
    """The comparison over the baseline's questions the current run answered, and a line
    naming the ones it did not (``None`` when none is missing)."""
    kind = "claim" if measure.startswith("grounding_accuracy@") else "query"
    extra = [unit for unit in new if unit not in old]
    if extra:
        raise InputError(
            f"setting {setting}, measure {measure}: the current run has {kind} {extra[0]!r}, "
            "which the baseline has not: the runs were made on different questions"
        )
    kept = sorted(unit for unit in old if unit in new)
    lost = sorted(unit for unit in old if unit not in new)
    dropped = None
    if lost:
        shown = ", ".join(repr(unit) for unit in lost[:3]) + (", ..." if len(lost) > 3 else "")
        dropped = (
            f"setting {setting}, measure {measure}: {len(lost)} {kind} answers dropped ({shown})"
        )
    comparison = _Comparison(
        setting,
        measure,
        tuple((kind, unit) for unit in kept),
        tuple(float(old[unit]) for unit in kept),
        tuple(float(new[unit]) for unit in kept),
    )
    return comparison, dropped


def _check_power(family: Sequence[_Comparison], alpha: float, trials: int) -> float:
    """The smallest adjusted p-value the family can reach; refuse one that cannot fail."""
    if not family:
        return 0.0
    floors = [floor_p(len(c.units), trials) for c in family]
    worst = max(range(len(family)), key=lambda i: (floors[i], -i))
    if floors[worst] >= alpha:
        c = family[worst]
        n = len(c.units)
        kind = c.units[0][0] if c.units else "query"
        if 2.0 ** (1 - n) >= alpha:
            fix = (
                f"{n} {kind} values can never give a p-value below {2.0 ** (1 - n):.4g}; "
                f"gate more {kind} values, raise --alpha, or leave {c.measure} out with --measures"
            )
        else:
            fix = f"--trials {math.floor(1 / alpha)} or more would let it fail"
        raise GateCannotFail(
            f"the gate could not fail: setting {c.setting}, measure {c.measure} can reach "
            f"p {floors[worst]:.4g} at best, not below alpha {alpha:g}; {fix}"
        )
    return max(floors)


def _judge(
    family: Sequence[_Comparison],
    alpha: float,
    tolerance: Mapping[str, float],
    trials: int,
    seed: int,
) -> tuple[tuple[Finding, ...], bool, int]:
    """The family's findings, whether its test enumerated every pattern, and how many."""
    if not family:
        return (), True, 0
    units = sorted({unit for c in family for unit in c.units})
    row = {unit: number for number, unit in enumerate(units)}
    differences = np.zeros((len(units), len(family)), dtype=np.float64)
    for column, c in enumerate(family):
        rows = [row[unit] for unit in c.units]
        differences[rows, column] = np.subtract(c.current, c.baseline)
    test = max_t_step_down(differences, trials=trials, seed=seed)
    findings = []
    for c, raw, adjusted in zip(family, test.raw, test.adjusted, strict=True):
        old = math.fsum(c.baseline) / len(c.baseline)
        new = math.fsum(c.current) / len(c.current)
        gain = new - old
        status = "unchanged"
        if adjusted < alpha and abs(gain) > tolerance.get(c.measure, 0.0):
            status = "regression" if gain < 0 else "improvement"
        findings.append(
            Finding(c.setting, c.measure, len(c.units), old, new, raw, adjusted, status)
        )
    return tuple(findings), test.exact, test.patterns


def _leaks(current: _Run) -> tuple[str, ...]:
    """Settings of ``current`` with any answer outside the asker's view."""
    leaked = []
    for entry in _settings(current):
        per_query = entry["per_query"]
        means = entry.get("means", {})
        values = [v for m, by in per_query.items() if _is_leakage(m) for v in by.values()]
        values += [v for m, v in means.items() if _is_leakage(m)]
        if any(v > 0 for v in values):
            leaked.append(str(entry["id"]))
    return tuple(leaked)
