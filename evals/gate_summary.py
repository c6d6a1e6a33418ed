"""The gate's verdict as markdown for a CI job page: why it failed first, then every change."""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate

from ragward.evals.gate import Finding, GateResult

__all__ = ["summary"]

_HEADERS = ["status", "setting", "measure", "n", "baseline", "current", "delta", "p", "p (W-Y)"]
_EXPLORATORY_ROWS = 20


def summary(result: GateResult, *, alpha: float, baseline: str, current: str) -> str:
    """The markdown of :func:`ragward.evals.gate.compare`'s result."""
    verdict = "PASS" if result.passed else "FAIL"
    if result.exact and result.trials <= 1:
        test = "sign flips of the questions that differ (none does)"
    elif result.exact:
        test = f"all {result.trials} sign patterns of the questions that differ (exact)"
    else:
        test = f"{result.trials} random sign patterns"
    lines = [
        f"# Quality gate: {verdict}",
        "",
        f"Baseline `{baseline}`, current `{current}`. {len(result.findings)} gated comparisons, "
        f"judged together by a Westfall-Young max-T step-down test over {test}, one sign per "
        f"query and per claim shared by every comparison (family-wise alpha {alpha:g}; the "
        f"smallest adjusted p-value this gate can reach is {result.floor:.4g}).",
        "",
    ]
    lines += _failures(result)
    lines += _context(result)
    regressions = result.regressions
    changed = [f for f in result.findings if f.status != "unchanged"]
    lines += [
        "",
        f"{len(regressions)} significant regressions, "
        f"{len(changed) - len(regressions)} significant improvements.",
        "",
    ]
    shown = changed or sorted(result.findings, key=lambda f: f.adjusted_p)[:5]
    lines += [_table(shown), ""]
    if result.exploratory:
        lines += _exploratory(result.exploratory, alpha)
    return "\n".join(lines)


def _failures(result: GateResult) -> list[str]:
    lines = [f"- **Leak**: `{s}` answered outside the asker's view" for s in result.leaks]
    label = "Missing (allowed)" if result.missing_allowed else "**Missing**"
    lines += [f"- {label}: {line}" for line in result.missing]
    report = result.conformance
    if report is not None:
        lines += [f"- **Invariant failed**: `{i}`" for i in report.failed]
        partial = "allowed by --allow-partial" if result.partial_allowed else "fails the gate"
        if report.selected:
            lines.append(f"- Conformance report made with --select ({partial})")
        if report.not_run:
            shown = ", ".join(report.not_run[:8]) + (", ..." if len(report.not_run) > 8 else "")
            lines.append(
                f"- Conformance report without {len(report.not_run)} invariants of the kit "
                f"({shown}; {partial})"
            )
        if not report.failed and not report.not_run and not report.selected:
            lines.append(
                f"- Conformance: every one of {report.verdicts} invariants ran; none failed"
            )
    return lines


def _context(result: GateResult) -> list[str]:
    lines = [f"- {note}" for note in result.notes]
    identity = result.identity
    if identity is not None and identity.data:
        lines.append("- Runs of different data, compared because --allow-data-change was given:")
        lines += [f"  - {line}" for line in identity.data]
    if identity is not None and identity.system:
        lines.append("- The runs were made by different systems (the gate judges the change):")
        lines += [f"  - {line}" for line in identity.system]
    elif identity is not None and not identity.data:
        lines.append("- Same data, grid, implementation, models and ragward version in both runs")
    return lines


def _table(findings: Sequence[Finding]) -> str:
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
        for f in sorted(findings, key=lambda f: (f.status != "regression", f.adjusted_p, f.setting))
    ]
    return tabulate(rows, headers=_HEADERS, tablefmt="github", floatfmt=".4f")


def _exploratory(findings: Sequence[Finding], alpha: float) -> list[str]:
    changed = [f for f in findings if f.status != "unchanged"]
    lines = [
        "## Exploratory (not gated)",
        "",
        f"{len(findings)} more comparisons, adjusted over every comparison of the runs; "
        f"{len(changed)} significant at {alpha:g}. They inform, they never fail the gate.",
        "",
    ]
    if changed:
        lines += [_table(sorted(changed, key=lambda f: f.adjusted_p)[:_EXPLORATORY_ROWS]), ""]
        if len(changed) > _EXPLORATORY_ROWS:
            lines.append(f"... and {len(changed) - _EXPLORATORY_ROWS} more.")
    return lines
