"""Importing this package registers every invariant of the kit."""

from ragward.conformance.invariants import (
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
