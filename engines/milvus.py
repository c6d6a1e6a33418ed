"""Milvus Lite behind the kit's contract: its BM25 function, partition-key tenancy and RRF.

Each system is a pair of Milvus collections (:mod:`~ragward.engines.milvus_collections`)
reached through ``pymilvus``'s ``MilvusClient``: ``chunks``, under Milvus' BM25 function
and a ``FLAT`` cosine index, and ``versions``, the highest version accepted per
``(tenant, doc_id)``, left alone by deletes so a stale write stays refused. By default
they live in a Milvus Lite database in a temporary directory removed at exit
(:mod:`~ragward.engines.milvus_client`): ``MilvusClient("<dir>/milvus.db")`` starts
``milvus-lite`` 3.2's engine, a pure-Python rewrite of Milvus, in-process behind a
loopback gRPC port. The same client reaches a Milvus deployment (:func:`server`).

Configurations a team would really choose:

* :func:`partition_key` — one collection for every tenant, the tenant field its partition
  key (``is_partition_key=True``), the asker's view a boolean ``filter=`` expression
  (:func:`view_filter`) on the search and on every ``AnnSearchRequest`` of
  ``hybrid_search``: Milvus' documented multi-tenancy.
* :func:`partition_key_flushed` — the same, with the writes flushed into segments
  (``flush()``) before the read that follows them: the state Milvus Lite is in once a
  database is reopened (closing flushes) or past 128 MB of writes, and Milvus once it
  seals its growing segments.
* :func:`per_tenant` — a collection per tenant, the rest of the view as the same filter.

The searches (:mod:`~ragward.engines.milvus_search`) are Milvus': BM25, a cosine range
search, ``hybrid_search`` fused by ``RRFRanker(k=rrf_k)`` (ragward's RRF exactly).

Collections are created with ``consistency_level="Strong"``, which Milvus documents as a
read seeing every write before it; Milvus Lite ignores the level, every write being in
its memtable before the call returns. A system has one writer (as in the kit and the
evals); versions are read from ``versions`` once per ingest call and written back with the
chunks. Tested with ``milvus-lite`` 3.2.2 and ``pymilvus`` 3.0.2.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ranked, settings_of
from ragward.engines.milvus_client import Connection, connection, literal, load
from ragward.engines.milvus_collections import create_chunks, create_versions
from ragward.engines.milvus_search import Searcher, terms_text, view_filter
from ragward.errors import RagwardError
from ragward.reference.text import tokenize

__all__ = [
    "CONFIGURATIONS",
    "MilvusSystem",
    "partition_key",
    "partition_key_flushed",
    "per_tenant",
    "server",
    "terms_text",
    "view_filter",
]

_MODULES = ("pymilvus", "milvus_lite")

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "milvus",
        "partition_key",
        "Milvus Lite in-process, one collection for all tenants (tenant as partition key), "
        "the view as a filter on every search",
        "milvus",
        _MODULES,
        ci_column=False,
    ),
    Configuration(
        "milvus",
        "partition_key_flushed",
        "Milvus Lite in-process, partition key, the writes flushed into segments before "
        "each read (the state of a database reopened, or past 128 MB of writes)",
        "milvus",
        _MODULES,
        ci_column=False,
    ),
    Configuration(
        "milvus",
        "per_tenant",
        "Milvus Lite in-process, a collection per tenant, the rest of the view as a filter",
        "milvus",
        _MODULES,
        ci_column=False,
    ),
    Configuration(
        "milvus",
        "server",
        "pymilvus against a Milvus deployment (or a milvus-lite server), partition key",
        "milvus",
        ("pymilvus",),
        needs="RAGWARD_MILVUS_URI (and RAGWARD_MILVUS_TOKEN)",
        in_matrix=False,
    ),
)

_CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), policy_knobs=True)

#: Rows per insert, upsert or version query (one gRPC message each).
_BATCH = 512


def _key_filter(keys: Iterable[tuple[str, str]]) -> str:
    return " or ".join(
        f"(tenant == {literal(tenant)} and doc_id == {literal(doc_id)})" for tenant, doc_id in keys
    )


def _key_id(tenant: str, doc_id: str) -> str:
    return json.dumps([tenant, doc_id])


class MilvusSystem:
    """One empty system: its own collections in a Milvus database.

    ``per_tenant`` says whether each tenant has its own chunks collection (True) or all
    share one with the tenant as partition key (False).
    """

    capabilities = _CAPABILITIES

    def __init__(
        self,
        settings: Settings,
        *,
        per_tenant: bool,
        database: Connection,
        flushed: bool = False,
    ) -> None:
        self.settings = settings
        self.per_tenant = per_tenant
        self.flushed = flushed
        self._dirty: set[str] = set()
        self._db = database
        self._m = load()
        self._search = Searcher(database.client, self._m, database.negated_bm25)
        self._name = database.new_name()
        self._versions = f"{self._name}_versions"
        self._created: set[str] = set()
        self._create_versions()
        if not per_tenant:
            self._create_chunks(self._chunks_of(""), partition_key=True)

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    @property
    def client(self) -> Any:
        return self._db.client

    # -- collections ------------------------------------------------------------------

    def _chunks_of(self, tenant: str) -> str:
        if not self.per_tenant:
            return f"{self._name}_chunks"
        # Collection names are [A-Za-z0-9_]: a tenant's name is hashed into one.
        digest = hashlib.sha256(tenant.encode("utf-8", "surrogatepass")).hexdigest()
        return f"{self._name}_t{digest[:32]}"

    def _create_versions(self) -> None:
        self._db.own(self._versions, self)
        create_versions(self.client, self._m, self._versions)
        self._created.add(self._versions)

    def _create_chunks(self, name: str, *, partition_key: bool) -> None:
        self._db.own(name, self)
        dimensions = self.settings.dimensions
        create_chunks(
            self.client, self._m, name, dimensions=dimensions, partition_key=partition_key
        )
        self._created.add(name)

    def _collection(self, tenant: str, *, create: bool) -> str | None:
        name = self._chunks_of(tenant)
        if name not in self._created:
            if not create:
                return None
            self._create_chunks(name, partition_key=False)
        return name

    # -- writes ----------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many((doc,))[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """``ingest`` of each document (any iterable, read once) in order."""
        docs = list(docs)  # read once: a generator has no second pass
        by_version = self.settings.rows_by_version(docs)
        stored = self._stored_versions({(d.tenant, d.doc_id) for d in docs})
        current = dict(stored)
        written: dict[tuple[str, str], tuple[int, list[IndexRow]]] = {}
        accepted = []
        for doc in docs:
            key = (doc.tenant, doc.doc_id)
            have = current.get(key)
            if have is not None and doc.version <= have:
                accepted.append(False)
                continue
            current[key] = doc.version
            written[key] = (doc.version, by_version.get((*key, doc.version), []))
            accepted.append(True)
        if written:
            self._write(written, replaced=[key for key in written if key in stored])
        return tuple(accepted)

    def _stored_versions(self, keys: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
        found: dict[tuple[str, str], int] = {}
        ordered = sorted(keys)
        for start in range(0, len(ordered), _BATCH):
            # A filter of its own, not get(ids=): pymilvus quotes a VARCHAR key in ''
            # without escaping it, so a key holding ' or \ breaks the expression.
            ids = ", ".join(literal(_key_id(*key)) for key in ordered[start : start + _BATCH])
            where = f"key in [{ids}]"
            for record in self.client.query(
                self._versions, filter=where, output_fields=["key", "version"]
            ):
                tenant, doc_id = json.loads(record["key"])
                found[(tenant, doc_id)] = int(record["version"])
        return found

    def _write(
        self,
        written: dict[tuple[str, str], tuple[int, list[IndexRow]]],
        replaced: list[tuple[str, str]],
    ) -> None:
        for tenant in sorted({tenant for tenant, _ in replaced}):
            self._delete_chunks(tenant, [key for key in replaced if key[0] == tenant])
        by_collection: dict[str, list[dict[str, Any]]] = {}
        for (tenant, _), (_, doc_rows) in sorted(written.items()):
            if doc_rows:
                name = self._collection(tenant, create=True)
                assert name is not None
                by_collection.setdefault(name, []).extend(self._record(r) for r in doc_rows)
        for name, records in by_collection.items():
            for start in range(0, len(records), _BATCH):
                self.client.insert(name, records[start : start + _BATCH])
            self._dirty.add(name)
        versions = [
            {"key": _key_id(*key), "version": version, "unused": [0.0, 0.0]}
            for key, (version, _) in sorted(written.items())
        ]
        for start in range(0, len(versions), _BATCH):
            self.client.upsert(self._versions, versions[start : start + _BATCH])

    @staticmethod
    def _record(row: IndexRow) -> dict[str, Any]:
        return {
            "pk": json.dumps([row.tenant, row.chunk_id]),
            "tenant": row.tenant,
            "doc_id": row.doc_id,
            "chunk_id": row.chunk_id,
            "section": row.section,
            "text": row.text,
            "version": row.version,
            "start_char": row.start,
            "end_char": row.end,
            "level": row.level,
            "tick": row.tick,
            "barrier": row.barrier,
            "terms": terms_text(row.terms),
            "dense": None if row.vector is None else list(row.vector),
        }

    def delete(self, tenant: str, doc_id: str) -> None:
        self._delete_chunks(tenant, [(tenant, doc_id)])

    def _delete_chunks(self, tenant: str, keys: list[tuple[str, str]]) -> None:
        name = self._collection(tenant, create=False)
        if name is not None:
            self.client.delete(name, filter=_key_filter(keys))
            self._dirty.add(name)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        view = View.of(asker, now_tick, policy)
        name = self._collection(view.tenant, create=False)
        if name is None:
            return Result((), 0, 0, 0)
        if self.flushed and self._dirty:
            # The writes since the last read, sealed into segments: Milvus' flush().
            for dirty in sorted(self._dirty):
                self.client.flush(dirty)
            self._dirty.clear()
        text = terms_text(tokenize(query))
        vector = self.settings.query_vector(query) if policy.mode != "lexical" else None
        lexical = policy.mode != "dense" and bool(text)
        dense = policy.mode != "lexical" and vector is not None
        where = view_filter(view)
        limit = policy.candidate_limit
        pairs: list[tuple[IndexRow, float]] = []
        if policy.mode == "hybrid":
            pairs = self._search.hybrid(name, text, vector, where, policy)
        elif lexical:
            pairs = self._search.lexical(name, text, where, limit)
        elif dense:
            assert vector is not None
            pairs = self._search.dense(name, vector, where, limit)
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        considered, hidden, stale = self._search.counts(
            name, text if lexical else "", vector if dense else None, view
        )
        return Result(hits, considered, hidden, stale)


def partition_key(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> MilvusSystem:
    """A fresh Milvus Lite system: one collection for every tenant, the tenant as its
    partition key, the view as the filter of every search."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return MilvusSystem(settings, per_tenant=False, database=connection(None, None))


def partition_key_flushed(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> MilvusSystem:
    """:func:`partition_key` with the writes flushed before each read that follows them."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    database = connection(None, None)
    return MilvusSystem(settings, per_tenant=False, database=database, flushed=True)


def per_tenant(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> MilvusSystem:
    """A fresh Milvus Lite system: a collection per tenant, the rest of the view as the
    filter of every search."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return MilvusSystem(settings, per_tenant=True, database=connection(None, None))


def server(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    uri: str | None = None,
    token: str | None = None,
) -> MilvusSystem:
    """``pymilvus`` against a deployment: ``uri`` or ``RAGWARD_MILVUS_URI`` (a Milvus
    cluster, Zilliz Cloud, or ``milvus-lite server``), and ``token`` or
    ``RAGWARD_MILVUS_TOKEN``. Each system is a new pair of collections, partition key."""
    location = uri or os.environ.get("RAGWARD_MILVUS_URI")
    if not location:
        raise RagwardError("the Milvus server configuration needs RAGWARD_MILVUS_URI set")
    key = token or os.environ.get("RAGWARD_MILVUS_TOKEN") or None
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return MilvusSystem(settings, per_tenant=False, database=connection(location, key))
