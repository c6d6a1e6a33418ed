"""The conformance kit: check any retrieval layer against ragward's invariants.

Write an adapter that meets :class:`RetrievalSystem`, declare its
:class:`Capabilities`, and pass a factory of fresh instances to
:func:`run_conformance` (or to ``pytest --ragward-impl=pkg.module:factory``, or to
``ragward conform --impl pkg.module:factory``).
"""

from ragward.conformance.contract import Capabilities, Factory, RetrievalSystem
from ragward.conformance.invariant import LEVELS, REGISTRY, Invariant, Violation
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
from ragward.conformance.runner import PROFILES, Report, Verdict, replay, run_conformance

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
    "Policy",
    "Report",
    "Result",
    "RetrievalSystem",
    "Span",
    "Support",
    "Verdict",
    "Violation",
    "replay",
    "run_conformance",
]
