"""What a Qdrant adapter stores and asks, whichever client API it speaks.

A point is one chunk: its id a hash of its identifiers, its payload the chunk's labels and
text (:func:`payload_of`), two named vectors (``dense``, and the sparse ``bm25``). A
:class:`Scope` says which points a filter admits and a :class:`Search` is one engine
query; a :class:`Backend` turns both into the calls of one client API: the engine
in-process, or ``qdrant-client``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ragward.engines.common import IndexRow
from ragward.errors import MissingExtra
from ragward.keys import joined_key

__all__ = [
    "DENSE",
    "SPARSE",
    "Backend",
    "Payload",
    "Scope",
    "Search",
    "Sparse",
    "load",
    "payload_of",
    "point_id",
    "row_of",
    "vectors_of",
]

_EXTRA = "pip install 'ragward[qdrant]'"
_IDS = uuid.UUID("5a0d1c1e-9b8f-4d59-8a64-7c1b5b0f2a11")
#: The names of a point's two vectors.
SPARSE, DENSE = "bm25", "dense"

Sparse = tuple[list[int], list[float]]
Payload = dict[str, Any]


def load(name: str) -> Any:
    """The client module ``name``, or :class:`~ragward.errors.MissingExtra` naming the extra."""
    try:
        return __import__(name)
    except ImportError:
        raise MissingExtra(f"Qdrant engines need {name}: {_EXTRA}") from None


@dataclass(frozen=True)
class Scope:
    """Which points a filter admits: a tenant, optionally capped in level, limited to no
    barrier or one of ``barriers``, updated at or after ``min_tick``; or one document."""

    tenant: str
    max_level: int | None = None
    barriers: tuple[str, ...] | None = None
    min_tick: int | None = None
    doc_id: str | None = None


@dataclass(frozen=True)
class Search:
    """One engine query: a sparse ranking, a dense one, or both fused by RRF with ``k``."""

    scope: Scope
    limit: int
    candidate_limit: int
    sparse: Sparse | None = None
    dense: tuple[float, ...] | None = None
    k: int = 0
    idf: Scope | None = None
    exact: bool = False


class Backend(Protocol):
    """The engine calls an adapter needs, over neutral scopes (one per client API)."""

    def upsert(self, rows: Sequence[IndexRow], sparse: Sequence[Sparse | None]) -> None: ...

    def delete(self, scope: Scope) -> None: ...

    def version(self, tenant: str, doc_id: str) -> int | None: ...

    def set_version(self, tenant: str, doc_id: str, version: int) -> None: ...

    def count(self, scope: Scope) -> int: ...

    def search(self, search: Search) -> list[tuple[Any, float, Payload]]: ...


def point_id(*parts: str) -> str:
    """A point's id: a hash of its identifiers, encoded so that no two keys meet (joined
    with a separator, tenant ``a`` / ``b\x00c`` and ``a\x00b`` / ``c`` were one point)."""
    return str(uuid.uuid5(_IDS, joined_key(*parts)))


def payload_of(row: IndexRow) -> Payload:
    return {
        "tenant": row.tenant,
        "doc_id": row.doc_id,
        "chunk_id": row.chunk_id,
        "version": row.version,
        "start": row.start,
        "end": row.end,
        "section": row.section,
        "text": row.text,
        "level": row.level,
        "barrier": row.barrier,
        "tick": row.tick,
    }


def row_of(payload: Payload) -> IndexRow:
    return IndexRow.stored(payload)


def vectors_of(row: IndexRow, terms: Sparse | None, sparse: Callable[..., Any]) -> dict[str, Any]:
    """A point's named vectors: BM25's where the row has terms, the embedding where it has
    one; ``sparse(indices=..., values=...)`` is the client API's sparse vector."""
    vectors: dict[str, Any] = {}
    if terms is not None:
        vectors[SPARSE] = sparse(indices=terms[0], values=terms[1])
    if row.vector is not None:
        vectors[DENSE] = list(row.vector)
    return vectors
