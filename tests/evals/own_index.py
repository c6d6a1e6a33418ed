"""An adapter that takes no index settings: it chunks and embeds its own way."""

from __future__ import annotations

from ragward.engines.reference import ReferenceSystem, reference_factory


def factory() -> ReferenceSystem:
    """The reference with chunks of 48 tokens and a 32-dimension embedder, whatever a grid
    says: it cannot be told otherwise (no ``max_tokens``, ``overlap_tokens``, ``embedder``)."""
    return reference_factory(max_tokens=48, overlap_tokens=8, embedder="hash-32")
