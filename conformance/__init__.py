"""The conformance kit: check any retrieval layer against ragward's invariants.

Write an adapter that meets :class:`RetrievalSystem`, declare its
:class:`Capabilities`, and pass a factory of fresh instances to
:func:`run_conformance` (or to ``pytest --ragward-impl=pkg.module:factory``, or to
``ragward conform --impl pkg.module:factory``). An implementation in another language
speaks JSON lines to :func:`external_factory`.

The records and the contract import nothing heavy; the runner, the invariants and the
wire driver (which bring in hypothesis) load on first use, so the pytest plugin costs
nothing in a test session that does not use it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragward.conformance.contract import Capabilities, Factory, RetrievalSystem
from ragward.conformance.records import (
    Asker,
    AssembleRequest,
    Context,
    Doc,
    Hit,
    Policy,
    Result,
    Span,
    Support,
)
from ragward.exports import Exports

if TYPE_CHECKING:
    from ragward.conformance.invariant import LEVELS, REGISTRY, Invariant, Violation
    from ragward.conformance.runner import PROFILES, Report, Verdict, replay, run_conformance
    from ragward.conformance.wire import PeerError, WireError, external_factory, serve

__all__ = [
    "LEVELS",
    "PROFILES",
    "REGISTRY",
    "Asker",
    "AssembleRequest",
    "Capabilities",
    "Context",
    "Doc",
    "Factory",
    "Hit",
    "Invariant",
    "PeerError",
    "Policy",
    "Report",
    "Result",
    "RetrievalSystem",
    "Span",
    "Support",
    "Verdict",
    "Violation",
    "WireError",
    "external_factory",
    "replay",
    "run_conformance",
    "serve",
]


_LAZY = {
    "invariant": ("LEVELS", "REGISTRY", "Invariant", "Violation"),
    "runner": ("PROFILES", "Report", "Verdict", "replay", "run_conformance"),
    "wire": ("PeerError", "WireError", "external_factory", "serve"),
}
_EXPORTS = Exports("ragward.conformance", globals(), lazy=_LAZY)


def __getattr__(name: str) -> Any:
    return _EXPORTS.find(name)
