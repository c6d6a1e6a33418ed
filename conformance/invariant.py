"""Invariants: stable id, level, one paragraph of documentation, and a check.

An invariant draws a *case* (a small frozen record: documents, an asker, a query, a
policy...) from its hypothesis strategy, runs it against a fresh system from the
factory, and raises :class:`Violation` when the implementation breaks the rule. Cases
are records, so a shrunk counterexample prints as data and replays without hypothesis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from hypothesis import strategies as st

from ragward.conformance.contract import Factory

__all__ = [
    "LEVELS",
    "LEVEL_OF_PREFIX",
    "REGISTRY",
    "TEST_ONLY_PREFIX",
    "Invariant",
    "Violation",
    "catalogue",
    "invariant",
]

#: Levels, in the order a report lists them; a passing level reads as a compatibility claim.
LEVELS: tuple[str, ...] = (
    "isolation",
    "prefilter",
    "statistics",
    "lifecycle",
    "determinism",
    "provenance",
    "fusion",
    "assembly",
    "grounding",
)


class Violation(AssertionError):
    """The implementation broke an invariant; the message says how, in one line."""


@dataclass(frozen=True)
class Invariant:
    """One rule of the kit.

    ``requires`` names the :class:`~ragward.conformance.contract.Capabilities` the rule
    needs; ``case_type`` is the record ``cases`` draws; ``check`` raises
    :class:`Violation` on a breach.
    """

    id: str
    level: str
    title: str
    doc: str
    requires: tuple[str, ...]
    case_type: type[Any]
    cases: Callable[[], st.SearchStrategy[Any]]
    check: Callable[[Factory, Any], None]


#: Every invariant the kit knows, by id, in registration order.
REGISTRY: dict[str, Invariant] = {}

#: Ids of throwaway invariants that the kit's own tests register for a while: never part
#: of the kit.
TEST_ONLY_PREFIX = "ZZ-"


def catalogue() -> tuple[str, ...]:
    """Every invariant id of this kit version, sorted (test-only ids left out): what a
    report that ran the whole kit holds a verdict for."""
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)

    return tuple(sorted(i for i in REGISTRY if not i.startswith(TEST_ONLY_PREFIX)))


#: The level of an invariant, by the prefix of its id (``ISO-001`` is an isolation rule).
LEVEL_OF_PREFIX: dict[str, str] = {
    "ISO": "isolation",
    "PRE": "prefilter",
    "STAT": "statistics",
    "LIFE": "lifecycle",
    "DET": "determinism",
    "DEPTH": "determinism",
    "PROV": "provenance",
    "FUS": "fusion",
    "ASM": "assembly",
    "GRD": "grounding",
}


def invariant(
    id: str,
    *,
    cases: Callable[[], st.SearchStrategy[Any]],
    requires: tuple[str, ...] = (),
) -> Callable[[Callable[[Factory, Any], None]], Callable[[Factory, Any], None]]:
    """Register the decorated check as invariant ``id``, of the level its id's prefix names
    (:data:`LEVEL_OF_PREFIX`); its docstring's first line is the title, the rest the doc;
    the annotation of its ``case`` parameter is the record ``cases`` draws."""
    level = LEVEL_OF_PREFIX.get(id.rsplit("-", 1)[0])
    if level is None:
        raise ValueError(f"invariant {id}: no level has the prefix of its id")

    def register(check: Callable[[Factory, Any], None]) -> Callable[[Factory, Any], None]:
        if id in REGISTRY:
            raise ValueError(f"invariant {id} registered twice")
        title, _, doc = (check.__doc__ or "").partition("\n")
        doc = " ".join(doc.split())
        if not title.strip() or not doc:
            raise ValueError(f"invariant {id} needs a docstring: a title line, then its doc")
        case_type = get_type_hints(check)["case"]
        REGISTRY[id] = Invariant(id, level, title.strip(), doc, requires, case_type, cases, check)
        return check

    return register
