"""ragward's three verbs as a library: the kit, the harness and the gate.

    >>> import ragward
    >>> report = ragward.conform(my_factory)                       # doctest: +SKIP
    >>> dataset = ragward.load_dataset("datasets/tidewater")        # doctest: +SKIP
    >>> evaluation = ragward.evaluate(dataset, my_factory)           # doctest: +SKIP
    >>> verdict = ragward.compare("reports/baseline", evaluation)    # doctest: +SKIP

``ragward conform``, ``ragward eval`` and ``ragward gate`` are shells over these: what
the command line does, a program does with the same call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragward.errors import InputError
from ragward.evals.api import evaluate

if TYPE_CHECKING:
    from ragward.conformance.contract import Factory
    from ragward.conformance.runner import Report, Step
    from ragward.evals.gate import GateResult

__all__ = ["DataChanged", "compare", "conform", "evaluate"]


def conform(
    factory: Factory,
    *,
    profile: str = "ci",
    select: Iterable[str] | None = None,
    name: str | None = None,
    call_timeout: float | None = None,
    shrink_budget: float | None = None,
    progress: Callable[[Step], None] | None = None,
    replay_hint: str = "",
) -> Report:
    """Check the implementation ``factory`` makes against the kit's invariants (all, or
    those in ``select``) and return the report ``ragward conform --json`` writes.

    The adapter is checked first (a factory that builds nothing usable is a
    :class:`~ragward.conformance.loading.FactoryError`); each call into it is limited to
    ``call_timeout`` seconds (the kit's default when None); ``progress`` is told when each
    invariant starts and ends.
    """
    from dataclasses import replace

    from ragward.conformance.guard import DEFAULT_CALL_TIMEOUT, guarded
    from ragward.conformance.identity import ImplementationIdentity
    from ragward.conformance.loading import check_system
    from ragward.conformance.runner import run_conformance
    from ragward.engines.reference import reference_factory

    shown = name or str(getattr(factory, "__qualname__", repr(factory)))
    timeout = DEFAULT_CALL_TIMEOUT if call_timeout is None else call_timeout
    capabilities = check_system(guarded(factory, timeout), shown)
    report = run_conformance(
        factory,
        profile=profile,
        select=None if select is None else list(select),
        name=shown,
        replay_hint=replay_hint,
        call_timeout=timeout,
        shrink_budget=shrink_budget,
        progress=progress,
        # a minimised counterexample must still hold on the reference: a real finding
        baseline=reference_factory,
    )
    return replace(report, identity=ImplementationIdentity.of(shown, factory, capabilities))


class DataChanged(InputError):
    """Two runs of different data: their comparison would judge the data, not a system.
    ``differences`` holds one line per difference."""

    def __init__(self, differences: tuple[str, ...]) -> None:
        super().__init__("runs of different data are not compared: " + "; ".join(differences))
        self.differences = differences


def compare(
    baseline: Any,
    current: Any,
    *,
    conformance: str | os.PathLike[str] | None = None,
    allow_data_change: bool = False,
    allow_partial: bool = False,
    **options: Any,
) -> GateResult:
    """Judge ``current`` against ``baseline``, as ``ragward gate`` does: each an
    :class:`~ragward.evals.api.Evaluation`, a ``results.json`` (or its report folder),
    or its content as loaded.

    Runs of different data (corpus, queries, judgements, claims) raise
    :class:`DataChanged` unless ``allow_data_change``; what differs in the systems is
    reported in the result's ``identity``. ``conformance`` is a ``conform --json`` report
    of the current implementation, judged with the runs (a partial one fails unless
    ``allow_partial``). ``options`` are :func:`ragward.evals.gate.compare`'s (alpha,
    tolerance, trials, settings, measures, allow_missing...).
    """
    from dataclasses import replace

    from ragward.evals.conformance_input import read_conformance
    from ragward.evals.gate import compare as judge
    from ragward.evals.run_identity import compare_identity

    before, after = _results(baseline, "baseline"), _results(current, "current")
    identity = compare_identity(before, after)
    if identity.data and not allow_data_change:
        raise DataChanged(identity.data)
    checked = None
    if conformance is not None:
        implementation = after["fingerprints"]["implementation"]
        checked = read_conformance(Path(conformance), implementation, _kit())
    result = judge(before, after, **options)
    return replace(result, identity=identity, conformance=checked, partial_allowed=allow_partial)


def _kit() -> frozenset[str]:
    """The invariant ids of this ragward's kit (test-only ``ZZ-`` ids aside)."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
    from ragward.conformance.invariant import REGISTRY

    return frozenset(i for i in REGISTRY if not i.startswith("ZZ-"))


def _results(run: Any, role: str) -> dict[str, Any]:
    from ragward.evals.api import Evaluation
    from ragward.evals.run_results import check_results, load_results

    if isinstance(run, Evaluation):
        return run.report
    if isinstance(run, str | os.PathLike):
        return load_results(Path(run), role)
    return check_results(run, Path(f"<{role} results>"))
