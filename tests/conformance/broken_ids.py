"""Broken implementations whose defect is in how they key identifiers (ISO-006's subjects).

Each is the reference behind the kit's door with one lossy key of the kind stores ship:
identifiers joined with a separator before hashing (Qdrant's adapter did so with point
ids), compared under a case- and accent-insensitive collation (a key column under
MySQL's default collation), or barrier lists tested by substring. The kit's fixed
tenants, ids and barriers never collide under any of them; only hostile ones do.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines.reference import ReferenceSystem

__all__ = ["BarrierListJoined", "CollatedIds", "JoinedKeys", "JoinedPointIds"]


class JoinedKeys(ReferenceSystem):
    """Keys joined with a NUL.

    Each document's record — its version, and which document holds the key — is kept
    under ``"\\x00".join((tenant, doc_id))``, as a store keys a point by a hash of the
    joined parts: tenant ``a`` / ``b\\x00c`` and tenant ``a\\x00b`` / ``c`` are one key,
    so a write of either replaces the other's document, its version refuses the other's
    next write, and a delete of either removes whichever holds the key.

    Caught by: ISO-006 (no fixed id of the kit holds a NUL).
    """

    def __init__(self) -> None:
        super().__init__()
        self.versions: dict[str, int] = {}
        self.holders: dict[str, tuple[str, str]] = {}

    def ingest(self, doc: Doc) -> bool:
        key = "\x00".join((doc.tenant, doc.doc_id))
        if doc.version <= self.versions.get(key, 0):
            return False
        holder = self.holders.get(key)
        if holder is not None and holder != (doc.tenant, doc.doc_id):
            super().delete(*holder)  # the point is overwritten
        self.versions[key], self.holders[key] = doc.version, (doc.tenant, doc.doc_id)
        return super().ingest(doc)

    def delete(self, tenant: str, doc_id: str) -> None:
        holder = self.holders.get("\x00".join((tenant, doc_id)))
        if holder is not None:
            super().delete(*holder)


class JoinedPointIds(ReferenceSystem):
    """Point ids joined with a NUL, version records apart.

    The versions are kept by ``(tenant, doc_id)``, so every write is taken or refused
    rightly, but a document's chunks live under ``"\x00".join((tenant, doc_id))``: tenant
    ``a`` / ``b\x00c`` and tenant ``a\x00b`` / ``c`` share them, and a write of either
    silently removes the other's document.

    Caught by: ISO-006, through a named document missing from its tenant's answer.
    """

    def __init__(self) -> None:
        super().__init__()
        self.holders: dict[str, tuple[str, str]] = {}

    def ingest(self, doc: Doc) -> bool:
        namespace = self.retriever._namespaces.get(doc.tenant)
        state = None if namespace is None else namespace.docs.get(doc.doc_id)
        if state is not None and doc.version <= state.version:
            return False
        key = "\x00".join((doc.tenant, doc.doc_id))
        holder = self.holders.get(key)
        if holder is not None and holder != (doc.tenant, doc.doc_id):
            super().delete(*holder)  # the points are overwritten
        self.holders[key] = (doc.tenant, doc.doc_id)
        return super().ingest(doc)


def _collated(value: str) -> str:
    """A case- and accent-insensitive collation key that ignores trailing spaces."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", value) if not unicodedata.combining(c))
    return plain.casefold().rstrip(" ")


class CollatedIds(ReferenceSystem):
    """Ids compared under a case- and accent-insensitive collation.

    Tenants and ``doc_id``\\ s are stored under their collation key (NFKD without marks,
    case-folded, trailing spaces ignored), as a key column under MySQL's default
    collation compares them; hits name the id last written under that key. ``café`` in
    NFC and in NFD, ``Acme`` and ``acme``, ``d1`` and ``d1 `` are one document.

    Caught by: ISO-006 (the kit's fixed ids are apart under the collation).
    """

    def __init__(self) -> None:
        super().__init__()
        self.names: dict[tuple[str, str], str] = {}

    def ingest(self, doc: Doc) -> bool:
        tenant, doc_id = _collated(doc.tenant), _collated(doc.doc_id)
        accepted = super().ingest(replace(doc, tenant=tenant, doc_id=doc_id))
        if accepted:
            self.names[(tenant, doc_id)] = doc.doc_id
        return accepted

    def delete(self, tenant: str, doc_id: str) -> None:
        super().delete(_collated(tenant), _collated(doc_id))

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        tenant = _collated(asker.tenant)
        result = super().retrieve(query, replace(asker, tenant=tenant), now_tick, policy)
        hits = []
        for hit in result.hits:
            name = self.names[(tenant, hit.doc_id)]
            suffix = hit.chunk_id[len(hit.doc_id) :]
            citation = name + hit.citation[len(hit.doc_id) :]
            hits.append(replace(hit, doc_id=name, chunk_id=name + suffix, citation=citation))
        return replace(result, hits=tuple(hits))


class BarrierListJoined(ReferenceSystem):
    """Barrier lists tested by substring.

    The asker's barriers are written into one comma-separated string and a document's
    barrier is let in when it occurs in that string (a ``LIKE '%barrier%'`` on a joined
    column): inside ``b`` and ``c``, an asker passes the barrier ``b,c``, and ``b`` or
    ``,`` alone.

    Caught by: ISO-006 (the kit's fixed barriers are no substrings of one another).
    """

    def __init__(self) -> None:
        super().__init__()
        self.barriers: set[str] = set()

    def ingest(self, doc: Doc) -> bool:
        if doc.barrier is not None:
            self.barriers.add(doc.barrier)
        return super().ingest(doc)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        joined = ",".join(asker.barriers)
        inside = tuple(sorted({b for b in self.barriers if b in joined} | set(asker.barriers)))
        return super().retrieve(query, replace(asker, barriers=inside), now_tick, policy)
