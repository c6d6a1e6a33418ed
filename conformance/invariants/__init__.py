"""Importing this package registers every invariant of the kit."""

from ragward.conformance.invariants import (
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
