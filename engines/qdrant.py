"""qdrant behind the kit's contract (work in progress)."""

from __future__ import annotations

from ragward.engines import Configuration

__all__ = ["CONFIGURATIONS"]

CONFIGURATIONS: tuple[Configuration, ...] = ()
