"""Importing this package registers every invariant of the kit."""

from ragward.conformance.invariants import (
    analysis,
    assembly,
    depth,
    determinism,
    fusion,
    grounding,
    isolation,
    lifecycle,
    prefilter,
    provenance,
    statistics,
)

__all__ = [
    "analysis",
    "assembly",
    "depth",
    "determinism",
    "fusion",
    "grounding",
    "isolation",
    "lifecycle",
    "prefilter",
    "provenance",
    "statistics",
]
