"""Run the invariants against an implementation and collect verdicts.

>>> report = run_conformance(my_factory, profile="ci")     # doctest: +SKIP
>>> report.passed                                           # doctest: +SKIP
True
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading
import time
import traceback
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Flaky
from hypothesis.internal.conjecture import providers as _providers

from ragward.clipped import LIMIT, first_line, later_lines
from ragward.conformance.contract import Capabilities, Factory
from ragward.conformance.guard import DEFAULT_CALL_TIMEOUT, CallTimeout, guarded
from ragward.conformance.identity import ImplementationIdentity
from ragward.conformance.invariant import LEVELS, REGISTRY, Invariant, Violation
from ragward.conformance.loading import one_line
from ragward.conformance.minimise import MINIMISE_STEPS, minimise_failure
from ragward.conformance.processes import close_other_processes, other_process
from ragward.conformance.records import case_data, from_data
from ragward.conformance.view import fitted_case

__all__ = [
    "DETAIL_LINES",
    "PROFILES",
    "SHRINK_STEPS_PER_EXAMPLE",
    "Report",
    "Step",
    "Verdict",
    "minimise_verdict",
    "replay",
    "run_conformance",
    "run_invariant",
    "said",
    "shown_path",
]

#: Cases hypothesis may run while shrinking one failure, per example of the profile: a
#: budget counted in steps (never in seconds) ends where it ends on every machine and under
#: any load, so the same run reports the same counterexample; the minimiser then goes on
#: from there, counted in steps too (:data:`~ragward.conformance.minimise.MINIMISE_STEPS`).
SHRINK_STEPS_PER_EXAMPLE = 2

#: The longest reason a failed invariant gives. The kit's own words quote what the adapter
#: answered (hits and scores: up to some 900 characters in the committed reports); an
#: answer of megabytes is cut here, its length said, so no report or table grows with it.
REASON_LIMIT = 1_000

#: The most lines a failed invariant's detail keeps (the lines of its Violation after the
#: first: the question asked, then one line per change), each cut at
#: :data:`~ragward.clipped.LIMIT` characters; past it, one line says how many were left out.
#: The kit's own diffs hold a few lines; an answer of thousands of changed hits is cut here.
DETAIL_LINES = 60

#: Examples per invariant: ``ci`` for every commit, ``thorough`` (10x) on demand.
PROFILES: dict[str, int] = {"ci": 25, "thorough": 250}


@dataclass(frozen=True)
class Verdict:
    """The outcome of one invariant: ``pass``, ``fail``, ``error`` or ``n/a``."""

    id: str
    level: str
    title: str
    status: str
    examples: int
    reason: str = ""
    counterexample: Any = None
    replay: str = ""
    #: Cases hypothesis ran while shrinking a failure, after the ``examples``.
    shrink_steps: int = 0
    #: The minimiser's run on a failure (:mod:`ragward.conformance.minimise`): its steps and
    #: whether it ended because no move kept the failure (False: at its step cap).
    minimised: tuple[int, bool] | None = None
    #: The lines of a failure's message after ``reason`` (its one-line summary): for a
    #: comparison of two answers, the question asked, then one aligned line per change.
    #: Bounded: see :data:`DETAIL_LINES`.
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """Where a run is, for a progress display: invariant ``number`` of ``total`` is
    starting (``verdict`` None) or has ended, after ``seconds``."""

    number: int
    total: int
    invariant_id: str
    verdict: Verdict | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class Report:
    """All verdicts of one run, in level then id order.

    ``selection`` is the ids the run was restricted to (None: the whole kit); ``identity``
    says which implementation ran, as ``results.json`` says it (None when unknown).
    """

    implementation: str
    profile: str
    verdicts: tuple[Verdict, ...]
    selection: tuple[str, ...] | None = None
    identity: ImplementationIdentity | None = None

    @property
    def passed(self) -> bool:
        """True when no applicable invariant failed or errored."""
        return all(v.status in ("pass", "n/a") for v in self.verdicts)

    def counts(self) -> dict[str, int]:
        """How many verdicts of each status."""
        out = {"pass": 0, "fail": 0, "error": 0, "n/a": 0}
        for verdict in self.verdicts:
            out[verdict.status] += 1
        return out


def _settings(profile: str, shrink: bool = True) -> settings:
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {', '.join(PROFILES)}")
    return settings(
        max_examples=PROFILES[profile],
        # Explicit: hypothesis loads its own "ci" profile when $CI is set, whose
        # derandomize=True would replace each invariant's seed, so a CI machine would
        # draw other cases than every other run of the same kit.
        derandomize=False,
        database=None,
        deadline=None,
        print_blob=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink)
        if shrink
        else (Phase.explicit, Phase.generate),
    )


#: What an invariant may require of the factory itself rather than of its systems.
FACTORY_NEEDS = {
    "another_process": "a factory the kit can start in another process "
    "(importable as pkg.module:factory, or an external peer)",
}


def _missing(invariant: Invariant, capabilities: Capabilities, factory: Factory) -> str:
    """Why ``invariant`` cannot be asked of ``factory``, or ``""``."""
    flags = [n for n in invariant.requires if n not in FACTORY_NEEDS and not capabilities.has(n)]
    if flags:
        return f"needs capability {', '.join(flags)}"
    if "another_process" in invariant.requires and other_process(factory) is None:
        return f"needs {FACTORY_NEEDS['another_process']}"
    return ""


def run_invariant(
    invariant: Invariant,
    factory: Factory,
    *,
    profile: str = "ci",
    replay_hint: str = "",
    shrink: bool = True,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    shrink_budget: float | None = None,
    baseline: Factory | None = None,
) -> Verdict:
    """Run one invariant; never raises for a failure of the implementation.

    ``shrink=False`` skips hypothesis' shrink phase: verdicts stay the same, the
    counterexample is the first failing case found rather than a minimal one.
    Shrinking a failure stops, by default, after :data:`SHRINK_STEPS_PER_EXAMPLE` cases
    per example of the profile, never after so many seconds: a budget in steps ends at the
    same case on every machine and under any load, so the same run reports the same
    counterexample. ``shrink_budget`` replaces that with a budget of so many seconds. When
    a budget is spent, the smallest failing case found so far goes on to the minimiser.
    A case that fails and then passes when hypothesis runs it again is reported as
    failing, the reason marked *flaky* — an unstable answer is a finding, not a pass.
    ``call_timeout`` limits every call into the implementation, in seconds (see
    :mod:`ragward.conformance.guard`; None: no limit); a call over it is an ``error``.
    With ``shrink`` and no ``shrink_budget`` (a bound in seconds is the caller's choice of
    time over size), a failure (a Violation) is then minimised
    (:func:`~ragward.conformance.minimise.minimise_failure`, at most
    :data:`~ragward.conformance.minimise.MINIMISE_STEPS` of the profile), every candidate
    also run on ``baseline`` when given (an implementation that holds every invariant:
    the reference), where it must hold.
    """
    budget = shrink_budget
    with _calls_limited(factory, call_timeout) as limited:
        return _minimised(
            _run_invariant(invariant, limited, profile, replay_hint, shrink, budget),
            invariant,
            limited,
            profile if shrink and budget is None else "",
            baseline,
        )


@contextmanager
def _calls_limited(factory: Factory, call_timeout: float | None) -> Iterator[Factory]:
    """``factory``, each call into its systems limited to ``call_timeout`` seconds (None:
    as it is); the guard closed and other processes ended on the way out."""
    try:
        if call_timeout is None:
            yield factory
            return
        limited = guarded(factory, call_timeout)
        try:
            yield limited
        finally:
            limited.close()
    finally:
        close_other_processes()


def minimise_verdict(
    verdict: Verdict,
    factory: Factory,
    *,
    profile: str = "ci",
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    baseline: Factory | None = None,
) -> Verdict:
    """A stored failing ``verdict`` with its case minimised again on ``factory`` (as
    :func:`run_invariant` minimises a fresh one): a case found by an older kit, or kept
    from before the minimiser, made as small as the current one would make it. Anything
    but a failure with a counterexample comes back as it is."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)

    if verdict.id not in REGISTRY:
        raise ValueError(f"unknown invariant id {verdict.id!r}")
    invariant = REGISTRY[verdict.id]
    with _calls_limited(factory, call_timeout) as limited:
        return _minimised(verdict, invariant, limited, profile, baseline)


#: How a verdict says that hypothesis' shrink ran out of budget (the minimiser then goes on).
_SPENT = re.compile(r" \(shrinking stopped after its (budget of \d+ steps|\S+ s budget)\)$")


def _minimised(
    verdict: Verdict, invariant: Invariant, factory: Factory, profile: str, baseline: Factory | None
) -> Verdict:
    """``verdict`` with its failing case minimised (profile "": not minimised)."""
    if verdict.status != "fail" or verdict.counterexample is None or profile not in PROFILES:
        return verdict
    if "(flaky: " in verdict.reason:  # an unstable answer: no failure to keep
        return verdict
    capabilities = factory().capabilities
    case = from_data(invariant.case_type, verdict.counterexample)
    found = minimise_failure(invariant, factory, case, MINIMISE_STEPS[profile], baseline)
    reason, detail = said(found.reason) if found.reason else (verdict.reason, verdict.detail)
    reason = _SPENT.sub("", reason)
    if not found.complete:
        reason += f" (minimising stopped after its cap of {found.steps} steps)"
    return replace(
        verdict,
        reason=first_line(reason, REASON_LIMIT),
        detail=detail,
        counterexample=case_data(fitted_case(found.case, capabilities)),
        minimised=(found.steps, found.complete),
    )


def _run_invariant(
    invariant: Invariant,
    factory: Factory,
    profile: str,
    replay_hint: str,
    shrink: bool,
    shrink_budget: float | None,
) -> Verdict:
    try:
        capabilities = factory().capabilities
    except CallTimeout as error:
        reason = f"the factory failed: {error}"
        return Verdict(invariant.id, invariant.level, invariant.title, "error", 0, reason)
    except Exception as error:  # a peer that cannot start fails every invariant, loudly
        reason = f"the factory failed: {one_line(error)}"
        return Verdict(invariant.id, invariant.level, invariant.title, "error", 0, reason)
    reason = _missing(invariant, capabilities, factory)
    if reason:
        return Verdict(invariant.id, invariant.level, invariant.title, "n/a", 0, reason)
    tried = shrinks = 0
    last_case: list[Any] = []
    failing: list[Any] = []  # the latest failing case and what it raised
    interrupted: list[BaseException] = []
    clock: dict[str, float] = {}
    # The profile's budget counts steps (bounded in seconds too); a given one, seconds.
    steps = PROFILES.get(profile, 0) * SHRINK_STEPS_PER_EXAMPLE if shrink_budget is None else -1

    # A seed of the invariant's own, so the examples are the same in every checkout and
    # process (derandomize would hash the probe's source location instead).
    @seed(zlib.crc32(invariant.id.encode()))
    @_settings(profile, shrink)
    @given(invariant.cases())
    def probe(case: Any) -> None:
        nonlocal tried, shrinks
        if "failed" in clock and (
            shrinks == steps or time.monotonic() - clock["failed"] > clock["budget"]
        ):
            raise _ShrinkBudgetSpent
        if "failed" in clock:
            shrinks += 1
        else:
            tried += 1
        last_case[:] = [case]
        try:
            invariant.check(factory, case)
        except Exception as error:
            if "failed" not in clock:
                clock["failed"] = time.monotonic()
                clock["budget"] = math.inf if shrink_budget is None else shrink_budget
            failing[:] = [case, error]
            raise
        except (KeyboardInterrupt, SystemExit) as stop:  # the user or the system stops us
            interrupted[:] = [stop]
            raise

    try:
        try:
            with fixed_constant_pool():
                probe()
        except BaseException:
            if interrupted:  # however hypothesis wrapped it, stop the whole run with it
                raise interrupted[0] from None
            raise
    except _ShrinkBudgetSpent:  # stop shrinking: the smallest failing case found so far
        case, failure = failing
        status, reason, detail = _outcome(failure)
        spent = (
            f" (shrinking stopped after its budget of {steps} steps)"
            if shrinks == steps
            else f" (shrinking stopped after its {clock['budget']:.2g} s budget)"
        )
        return _failure(
            invariant,
            status,
            (reason + spent, detail),
            [case],
            (tried, shrinks),
            capabilities,
            replay_hint,
        )
    except Flaky:  # failed once, then passed on the same case: an unstable answer
        if not failing:
            raise
        case, failure = failing
        status, reason, detail = _outcome(failure)
        again = " (flaky: the same case passed when run again)"
        return _failure(
            invariant,
            status,
            (reason + again, detail),
            [case],
            (tried, shrinks),
            capabilities,
            replay_hint,
        )
    except Violation as violation:
        return _failure(
            invariant,
            "fail",
            said(violation),
            last_case,
            (tried, shrinks),
            capabilities,
            replay_hint,
        )
    except CallTimeout as error:  # a hang: a verdict at once, no retries of the same wait
        return _failure(
            invariant,
            "error",
            (str(error), ()),
            last_case,
            (tried, shrinks),
            capabilities,
            replay_hint,
        )
    except Exception as error:  # the implementation crashed: report it, keep going
        status, reason, detail = _outcome(error)
        return _failure(
            invariant,
            status,
            (reason, detail),
            last_case,
            (tried, shrinks),
            capabilities,
            replay_hint,
        )
    return Verdict(invariant.id, invariant.level, invariant.title, "pass", tried)


@contextmanager
def fixed_constant_pool() -> Iterator[None]:
    """Hide the constants hypothesis harvests from local modules while the kit draws.

    Besides its seed, hypothesis draws some values from constants it collects in every
    module outside site-packages that happens to be imported: an editable install of
    ragward, the caller's own test files. The same invariant and seed would then draw
    other cases under ``pip install -e`` than under ``pip install``, or beside other
    tests, and a verdict would follow the install. The kit's draws depend on its seed,
    its strategies and hypothesis' version alone; edge values it needs, its strategies
    put there on purpose. Hypothesis' own constants stay. Without the internals this
    relies on (a hypothesis that draws no local constants), it does nothing.
    """
    if not callable(getattr(_providers, "_get_local_constants", None)) or not all(
        hasattr(_providers, name) for name in ("_local_constants", "CONSTANTS_CACHE")
    ):
        yield
        return
    with _pool_lock:
        global _pool_depth
        if _pool_depth == 0:
            _pool_saved[:] = [_providers._get_local_constants]
            empty = type(_providers._local_constants)()
            _providers._get_local_constants = lambda: empty
            _providers.CONSTANTS_CACHE.cache.clear()
        _pool_depth += 1
    try:
        yield
    finally:
        with _pool_lock:
            _pool_depth -= 1
            if _pool_depth == 0:
                _providers._get_local_constants = _pool_saved.pop()
                _providers.CONSTANTS_CACHE.cache.clear()


_pool_lock = threading.Lock()
_pool_depth = 0
_pool_saved: list[Any] = []


class _ShrinkBudgetSpent(BaseException):
    """Raised in the probe to end hypothesis' shrinking when its budget is spent."""


def said(violation: BaseException | str) -> tuple[str, tuple[str, ...]]:
    """A Violation's message as a verdict keeps it: its first line (the reason, at most
    :data:`REASON_LIMIT` characters) and the lines after it (the detail, at most
    :data:`DETAIL_LINES` of :data:`~ragward.clipped.LIMIT` characters)."""
    return first_line(violation, REASON_LIMIT), later_lines(violation, DETAIL_LINES, LIMIT)


def _outcome(error: BaseException) -> tuple[str, str, tuple[str, ...]]:
    """A failure's status, one-line reason and detail: a Violation fails (its detail the
    lines after the first), anything else errors (no detail: a traceback is not one)."""
    if isinstance(error, Violation):  # the kit's words, quoting what the adapter answered
        return ("fail", *said(error))
    if isinstance(error, CallTimeout):
        return "error", str(error), ()
    where = traceback.extract_tb(error.__traceback__)[-1]
    return "error", f"{one_line(error)} (at {shown_path(where.filename)}:{where.lineno})", ()


def shown_path(filename: str) -> str:
    """Where an error was raised, as a reader finds it on any machine: the module's path
    under the import root it came from (``pymilvus/client/utils.py``), not this machine's
    absolute path; a file outside every import root as it is."""
    path = os.path.abspath(filename)
    roots = {os.path.abspath(p or os.curdir).rstrip(os.sep) for p in sys.path}
    for root in sorted(roots - {""}, key=len, reverse=True):  # the innermost root first
        if path.startswith(root + os.sep):
            return path[len(root) + 1 :]
    return filename


def _failure(
    invariant: Invariant,
    status: str,
    reason: tuple[str, tuple[str, ...]],
    case: list[Any],
    counts: tuple[int, int],
    capabilities: Capabilities,
    hint: str,
) -> Verdict:
    # The case as the adapter was sent it: its policies and documents fitted to the
    # declared capabilities (fitting twice changes nothing, so it replays the same).
    data = case_data(fitted_case(case[0], capabilities)) if case else None
    return Verdict(
        invariant.id,
        invariant.level,
        invariant.title,
        status,
        counts[0],
        first_line(reason[0], REASON_LIMIT) or status,
        data,
        hint.format(id=invariant.id) if hint else "",
        counts[1],
        detail=reason[1],
    )


def run_conformance(
    factory: Factory,
    *,
    profile: str = "ci",
    select: Iterable[str] | None = None,
    name: str = "",
    replay_hint: str = "",
    shrink: bool = True,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
    shrink_budget: float | None = None,
    progress: Callable[[Step], None] | None = None,
    baseline: Factory | None = None,
) -> Report:
    """Run every registered invariant (or those in ``select``) against ``factory``;
    ``progress`` is told when each starts and ends; ``baseline``: see
    :func:`run_invariant`."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)

    chosen = list(REGISTRY.values())
    if select is not None:
        wanted = set(select)
        unknown = sorted(wanted - set(REGISTRY))
        if unknown:
            raise ValueError(f"unknown invariant id(s): {', '.join(unknown)}")
        chosen = [inv for inv in chosen if inv.id in wanted]
    chosen.sort(key=lambda inv: (LEVELS.index(inv.level), inv.id))
    verdicts = []
    for number, inv in enumerate(chosen, 1):
        if progress is not None:
            progress(Step(number, len(chosen), inv.id))
        started = time.monotonic()
        verdict = run_invariant(
            inv,
            factory,
            profile=profile,
            replay_hint=replay_hint,
            shrink=shrink,
            call_timeout=call_timeout,
            shrink_budget=shrink_budget,
            baseline=baseline,
        )
        verdicts.append(verdict)
        if progress is not None:
            progress(Step(number, len(chosen), inv.id, verdict, time.monotonic() - started))
    return Report(
        name or getattr(factory, "__qualname__", repr(factory)),
        profile,
        tuple(verdicts),
        selection=None if select is None else tuple(inv.id for inv in chosen),
    )


def replay(
    factory: Factory,
    invariant_id: str,
    case: Any,
    *,
    call_timeout: float | None = DEFAULT_CALL_TIMEOUT,
) -> None:
    """Run invariant ``invariant_id`` once on a stored counterexample; raises on failure
    (:class:`~ragward.conformance.guard.CallTimeout` when a call hangs)."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)

    if invariant_id not in REGISTRY:
        raise ValueError(f"unknown invariant id {invariant_id!r}")
    invariant = REGISTRY[invariant_id]
    if call_timeout is None:
        invariant.check(factory, from_data(invariant.case_type, case))
        return
    limited = guarded(factory, call_timeout)
    try:
        invariant.check(limited, from_data(invariant.case_type, case))
    finally:
        limited.close()
