"""A catalogue of deliberately broken implementations: the kit's own test subjects.

Each entry is the reference behind the kit's door
(:class:`ragward.engines.reference.ReferenceSystem`) with exactly **one** realistic
defect — the kind of bug a team ships, not a system that returns garbage. The kit must
fail every one of them on the invariant(s) aimed at its defect, and pass the reference;
``test_kill_matrix.py`` asserts that and
``tests/conformance/kill_matrix.py`` prints the matrix.

:data:`BROKEN` maps a name to ``(factory, expected)``: ``expected`` names the invariant
levels aimed at the defect, then the ids of invariants of other levels that the defect
genuinely breaks too (a wrong audit count also fails the lifecycle model, which checks
counts after every step). At least one invariant among them must *fail*, and no
invariant outside them may (``python -m tests.conformance.kill_matrix --all`` checks the latter
against every invariant; the pytest run keeps to the aimed ones, for speed).

The doubles are :mod:`tests.conformance.broken_retrieval`,
:mod:`tests.conformance.broken_first_stage`, :mod:`tests.conformance.broken_assembly`,
:mod:`tests.conformance.broken_ids` and the one-line plants of
:mod:`tests.conformance.planted`. The broken systems reach into the reference's internals
(namespaces, masks, first stages) to plant their defect; that is fine here, they are test
doubles, not adapters to copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import ragward.conformance.runner as runner
from ragward.conformance.contract import RetrievalSystem
from ragward.conformance.invariant import REGISTRY

from .broken_assembly import (
    BudgetIgnoresSeparators,
    GroundsOnCorpus,
    HeadersNotNeutralised,
    TruncatesQuestion,
)
from .broken_first_stage import DoubleCounted, NamespaceStatistics, SoftDelete
from .broken_ids import BarrierListJoined, CollatedIds, JoinedKeys, JoinedPointIds
from .broken_retrieval import (
    BarriersIgnored,
    DepthInChunks,
    FreshnessIgnored,
    OlderVersionAccepted,
    PostFilter,
    QuestionsNotStemmed,
    RerankInjects,
    SharedNamespace,
    StaleVersions,
    UnstableTies,
    WhitespaceCitations,
)
from .planted import FACTORIES, PLANTS

# The doubles are modules by kind of defect (retrieval, first stage, assembly and
# grounding, identifiers); SharedNamespace and BarriersIgnored are imported from here too.
__all__ = [
    "BROKEN",
    "BarriersIgnored",
    "Row",
    "SharedNamespace",
    "aimed",
    "defect",
    "kill_row",
    "selection",
]


# -- the catalogue --------------------------------------------------------------------


#: name -> (factory, invariant levels or ids that must catch it). Levels come first; a
#: defect that genuinely breaks several rules names each level it breaks.
BROKEN: dict[str, tuple[Callable[[], RetrievalSystem], tuple[str, ...]]] = {
    "post-filter": (
        PostFilter,
        ("prefilter", "statistics", "LIFE-003", "LIFE-004", "LIFE-005", "DET-007"),
    ),
    "shared-namespace": (
        SharedNamespace,
        (
            "isolation",
            "lifecycle",
            "prefilter",
            "statistics",
            "determinism",
            "PROV-001",
            "FUS-008",
            "ASM-008",
        ),
    ),
    "namespace-statistics": (NamespaceStatistics, ("statistics", "PRE-001")),
    "double-counted": (DoubleCounted, ("prefilter", "LIFE-003", "LIFE-004", "LIFE-005")),
    "stale-versions": (StaleVersions, ("isolation", "lifecycle", "statistics", "PROV-002")),
    "budget-ignores-separators": (BudgetIgnoresSeparators, ("assembly",)),
    "truncates-question": (TruncatesQuestion, ("assembly",)),
    "unstable-ties": (UnstableTies, ("determinism", "FUS-004")),
    "whitespace-citations": (WhitespaceCitations, ("provenance",)),
    "rerank-injects": (RerankInjects, ("fusion",)),
    "grounds-on-corpus": (GroundsOnCorpus, ("grounding",)),
    "barriers-ignored": (
        BarriersIgnored,
        ("isolation", "prefilter", "statistics", "LIFE-004", "LIFE-005"),
    ),
    "freshness-ignored": (
        FreshnessIgnored,
        ("isolation", "prefilter", "STAT-001", "LIFE-004", "LIFE-005"),
    ),
    "headers-not-neutralised": (HeadersNotNeutralised, ("assembly",)),
    "soft-delete": (SoftDelete, ("lifecycle", "STAT-004")),
    "older-version-accepted": (OlderVersionAccepted, ("lifecycle",)),
    "depth-in-chunks": (DepthInChunks, ("DEPTH-001",)),
    "questions-not-stemmed": (QuestionsNotStemmed, ("STAT-005",)),
    # Lossy keys (tests/conformance/broken_ids.py): only hostile identifiers collide.
    "joined-keys": (JoinedKeys, ("ISO-006",)),
    "joined-point-ids": (JoinedPointIds, ("ISO-006",)),
    "collated-ids": (CollatedIds, ("ISO-006",)),
    "barrier-list-joined": (BarrierListJoined, ("ISO-006",)),
}


# One-line defects planted in a copy of the reference (tests/conformance/planted.py).
BROKEN.update({plant.name: (FACTORIES[plant.name], plant.caught_by) for plant in PLANTS})


def aimed(expected: Iterable[str], registry: Iterable[tuple[str, str]]) -> set[str]:
    """Ids of the invariants ``expected`` aims at, from ``(id, level)`` pairs.

    An entry of ``expected`` is a level (every invariant of it) or an invariant id.
    """
    wanted = set(expected)
    return {id for id, level in registry if id in wanted or level in wanted}


def selection(expected: Iterable[str], registry: Iterable[tuple[str, str]]) -> list[str]:
    """Ids to run for a broken implementation: the invariants it is aimed at, in id order."""
    return sorted(aimed(expected, registry))


@dataclass(frozen=True)
class Row:
    """One line of the kill matrix: what ran against a broken system and what failed."""

    name: str
    defect: str
    expected: tuple[str, ...]
    ran: tuple[str, ...]
    failed: tuple[str, ...]
    errored: tuple[str, ...]
    aimed: tuple[str, ...]

    @property
    def caught(self) -> bool:
        """At least one aimed invariant failed."""
        return bool(set(self.failed) & set(self.aimed))

    @property
    def stray(self) -> tuple[str, ...]:
        """Failing invariants the catalogue does not aim at this defect."""
        return tuple(i for i in self.failed if i not in self.aimed)


def _registry() -> list[tuple[str, str]]:
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)

    return [(inv.id, inv.level) for inv in REGISTRY.values()]


def defect(name: str) -> str:
    """The first line of the broken system's docstring: its defect, in a few words."""
    doc = BROKEN[name][0].__doc__ or name
    return doc.strip().splitlines()[0].rstrip(".")


def kill_row(name: str, *, profile: str = "ci", everything: bool = False) -> Row:
    """Run the kit against broken system ``name``: the invariants of its expected levels,
    or every invariant with ``everything``; without shrinking."""
    factory, expected = BROKEN[name]
    registry = _registry()
    chosen = [id for id, _ in registry] if everything else selection(expected, registry)
    report = runner.run_conformance(
        factory, profile=profile, select=chosen, name=name, shrink=False
    )
    return Row(
        name,
        defect(name),
        expected,
        tuple(v.id for v in report.verdicts),
        tuple(v.id for v in report.verdicts if v.status == "fail"),
        tuple(v.id for v in report.verdicts if v.status == "error"),
        tuple(sorted(aimed(expected, registry))),
    )
