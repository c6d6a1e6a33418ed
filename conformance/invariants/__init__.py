"""Importing this package registers every invariant of the kit."""

from ragward.conformance.invariants import (
    analysis,
    assembly,
    cuts,
    depth,
    determinism,
    fusion,
    grounding,
    handoffs,
    isolation,
    lifecycle,
    prefilter,
    provenance,
    statistics,
)

__all__ = [
    "analysis",
    "assembly",
    "cuts",
    "depth",
    "determinism",
    "fusion",
    "grounding",
    "handoffs",
    "isolation",
    "lifecycle",
    "prefilter",
    "provenance",
    "statistics",
]
