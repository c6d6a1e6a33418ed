"""Bulk ingest: the optional verb that lets a model embed many chunks per call.

An implementation that offers ``ingest_many`` is given the dataset in batches; one that
does not is given it document by document through the kit's ``ingest``. Whether an
adapter offers it is read from its class, never found out by calling and catching.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from ragward.conformance.records import Doc

__all__ = ["BATCH_DOCS", "BulkSystem", "is_bulk"]

#: Documents per ``ingest_many`` call: enough to fill a model's batches, few enough for
#: the progress bar to move.
BATCH_DOCS = 128


@runtime_checkable
class BulkSystem(Protocol):
    """Optional verb: ``ingest_many(docs)`` is ``tuple(ingest(d) for d in docs)``, with
    the same effect on the index, done in as few model calls as the system likes."""

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """Upsert ``docs`` (any iterable: read it once) in order; one accepted flag per
        document."""
        ...


def is_bulk(system: object) -> bool:
    """Whether ``system`` offers ``ingest_many`` (looked up on its class)."""
    return callable(getattr(type(system), "ingest_many", None))
