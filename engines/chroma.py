"""Chroma behind the kit's contract: its HNSW vector search under a ``where`` filter.

Chroma's local engine has no lexical index ("Sparse vector indexing is not enabled in
local"), so its systems are dense only. Each system is one or more collections of the
process's Chroma client (in memory by default: ``EphemeralClient``; a directory with
``path=``: ``PersistentClient``; a server with :func:`server`), created with
``configuration={"hnsw": {"space": "cosine"}}`` and no embedding function: the adapter
gives Chroma ragward's vectors (nothing is downloaded), one record per chunk with a
vector, the chunk's span as its document and its labels as metadata (``barrier`` is
``-`` for none, ``=b`` for barrier ``b``: metadata filters have no test for a missing
key). Telemetry is off (``Settings(anonymized_telemetry=False)``).

The asker's view is a ``where`` filter (:func:`view_where`: ``$and`` of ``$eq``,
``$lte``, ``$in`` and ``$gte``), which Chroma resolves to the allowed records before its
HNSW search. Two configurations, the cookbook's "user per document" and "user per
collection" layouts:

* :func:`shared` — one collection for every tenant, the whole view as ``where``;
* :func:`per_tenant` — a collection per tenant, the rest of the view as ``where``.

A query returns the ``n_results`` (the candidate limit) nearest records by cosine
distance with no threshold, so a chunk pointing away from the query is still a hit;
its score is ``1 - distance``. With no set of matching chunks there is nothing to count,
so ``counts`` is not declared. Chunk writes since the last read are applied before it
(one ``delete`` by key, then ``add`` in batches of the client's maximum), so a read sees
every write before it. A system has one writer (as in the kit and the evals), so
``ingest`` answers from the versions it accepted, kept in memory beside the client,
deletes included. Tested with ``chromadb`` 1.5.9.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import threading
import weakref
from collections.abc import Iterable
from typing import Any, ClassVar
from urllib.parse import urlsplit

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ingest_newer, ranked, settings_of
from ragward.errors import MissingExtra, RagwardError

__all__ = ["CONFIGURATIONS", "ChromaSystem", "per_tenant", "server", "shared", "view_where"]

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "chroma",
        "shared",
        "Chroma in-process (EphemeralClient), one collection for all tenants, the view as "
        "its where filter, HNSW cosine",
        "chroma",
        ("chromadb",),
        # its HNSW graph is built in parallel: verdicts on ties vary from run to run
        ci_column=False,
    ),
    Configuration(
        "chroma",
        "per_tenant",
        "Chroma in-process (EphemeralClient), a collection per tenant, the rest of the view "
        "as its where filter, HNSW cosine",
        "chroma",
        ("chromadb",),
        # its HNSW graph is built in parallel: verdicts on ties vary from run to run
        ci_column=False,
    ),
    Configuration(
        "chroma",
        "server",
        "Chroma's client (HttpClient) against a Chroma server, one collection for all tenants",
        "chroma",
        ("chromadb",),
        needs="RAGWARD_CHROMA_URL",
        in_matrix=False,
    ),
)

_CAPABILITIES = Capabilities(modes=("dense",), counts=False, policy_knobs=True)

#: The ``barrier`` metadata of a chunk without a barrier; a barrier ``b`` is ``=b``.
_NO_BARRIER = "-"


def _module() -> Any:
    try:
        import chromadb
    except ImportError as error:
        raise MissingExtra(
            f"engine 'chroma' needs {error.name}: pip install 'ragward[chroma]'"
        ) from None
    return chromadb


class _Clients:
    """The process's Chroma clients, one per place (memory, a directory, a server)."""

    _lock = threading.Lock()
    _clients: ClassVar[dict[tuple[str, str | None], Any]] = {}
    _names = itertools.count()

    @classmethod
    def client(cls, kind: str, where: str | None = None) -> Any:
        with cls._lock:
            if (kind, where) not in cls._clients:
                chromadb = _module()
                from chromadb.config import Settings as ChromaSettings

                quiet = ChromaSettings(anonymized_telemetry=False)
                if kind == "memory":
                    made = chromadb.EphemeralClient(settings=quiet)
                elif kind == "path":
                    made = chromadb.PersistentClient(path=where, settings=quiet)
                else:
                    parts = urlsplit(where or "")
                    if parts.scheme not in ("http", "https") or not parts.hostname:
                        raise RagwardError(
                            f"RAGWARD_CHROMA_URL must be http(s)://host[:port], got {where!r}"
                        )
                    made = chromadb.HttpClient(
                        host=parts.hostname,
                        port=parts.port or (443 if parts.scheme == "https" else 8000),
                        ssl=parts.scheme == "https",
                        settings=quiet,
                    )
                cls._clients[kind, where] = made
            return cls._clients[kind, where]

    @classmethod
    def prefix(cls) -> str:
        with cls._lock:
            return f"ragward-{os.getpid()}-s{next(cls._names)}"


#: Collections of collected systems, dropped by the next system made (a finalizer may run
#: inside a Chroma call of the same thread, so it only notes them).
_doomed: list[tuple[Any, str]] = []
_doomed_lock = threading.Lock()


def _doom(client: Any, names: list[str]) -> None:
    with _doomed_lock:
        _doomed.extend((client, name) for name in names)


def _drop_doomed() -> None:
    with _doomed_lock:
        doomed, _doomed[:] = list(_doomed), []
    for client, name in doomed:
        with contextlib.suppress(Exception):  # already gone is fine
            client.delete_collection(name)


def _barrier(barrier: str | None) -> str:
    return _NO_BARRIER if barrier is None else f"={barrier}"


def _key(tenant: str, doc_id: str) -> str:
    return json.dumps([tenant, doc_id])


def view_where(view: View, *, tenant: bool = True) -> dict[str, Any]:
    """The asker's eligible view as a Chroma ``where`` filter (without the tenant clause
    when ``tenant`` is False: a collection that holds one tenant only)."""
    clauses: list[dict[str, Any]] = [{"tenant": {"$eq": view.tenant}}] if tenant else []
    clauses += [
        {"level": {"$lte": view.max_level}},
        {"barrier": {"$in": [_NO_BARRIER, *(_barrier(b) for b in view.barriers)]}},
    ]
    if view.min_tick is not None:
        clauses.append({"tick": {"$gte": view.min_tick}})
    return {"$and": clauses}


def _metadata(row: IndexRow) -> dict[str, Any]:
    return {
        "tenant": row.tenant,
        "key": _key(row.tenant, row.doc_id),
        "doc_id": row.doc_id,
        "chunk_id": row.chunk_id,
        "version": row.version,
        "start": row.start,
        "end": row.end,
        "section": row.section,
        "level": row.level,
        "barrier": _barrier(row.barrier),
        "tick": row.tick,
    }


def _row(metadata: dict[str, Any], text: str) -> IndexRow:
    barrier = metadata["barrier"]
    return IndexRow.stored(
        {**metadata, "text": text, "barrier": None if barrier == _NO_BARRIER else barrier[1:]}
    )


class _Collection:
    """One Chroma collection and the chunk writes it has not been given yet."""

    def __init__(self, client: Any, name: str) -> None:
        self.name = name
        self.collection = client.create_collection(
            name, configuration={"hnsw": {"space": "cosine"}}, embedding_function=None
        )
        self._batch = int(client.get_max_batch_size())
        self._doomed: set[str] = set()
        self._pending: list[IndexRow] = []

    def add(self, rows: Iterable[IndexRow]) -> None:
        # A chunk with no direction is left out of the dense index, as in every adapter.
        self._pending.extend(row for row in rows if row.vector is not None)

    def forget(self, tenant: str, doc_id: str) -> None:
        """Every chunk of ``(tenant, doc_id)``, written or pending, gone at the next read."""
        self._pending = [r for r in self._pending if (r.tenant, r.doc_id) != (tenant, doc_id)]
        self._doomed.add(_key(tenant, doc_id))

    def flushed(self) -> Any:
        """The collection, every write so far applied."""
        doomed, self._doomed = sorted(self._doomed), set()
        for start in range(0, len(doomed), self._batch):
            self.collection.delete(where={"key": {"$in": doomed[start : start + self._batch]}})
        pending, self._pending = self._pending, []
        for start in range(0, len(pending), self._batch):
            rows = pending[start : start + self._batch]
            self.collection.add(
                ids=[json.dumps([r.tenant, r.chunk_id]) for r in rows],
                embeddings=[list(r.vector or ()) for r in rows],
                metadatas=[_metadata(r) for r in rows],
                documents=[r.text for r in rows],
            )
        return self.collection


class ChromaSystem:
    """One empty system; ``per_tenant`` says whether each tenant has its own collection."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, client: Any, *, per_tenant: bool) -> None:
        self.settings = settings
        self.per_tenant = per_tenant
        self._client = client
        _drop_doomed()
        self._prefix = _Clients.prefix()
        self._collections: dict[str | None, _Collection] = {}
        self._versions: dict[tuple[str, str], int] = {}
        self._names: list[str] = []
        weakref.finalize(self, _doom, client, self._names)

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    def _collection(self, tenant: str, *, create: bool) -> _Collection | None:
        scope = tenant if self.per_tenant else None
        if scope not in self._collections and create:
            # A collection name allows [a-zA-Z0-9._-] only: the tenant's digest names it.
            suffix = "all" if scope is None else hashlib.sha256(scope.encode()).hexdigest()[:32]
            name = f"{self._prefix}-{suffix}"
            self._names.append(name)
            self._collections[scope] = _Collection(self._client, name)
        return self._collections.get(scope)

    # -- writes ----------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many((doc,))[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """``ingest`` of each document (any iterable, read once) in order."""
        return ingest_newer(self.settings, self._versions, docs, self._write)

    def _write(self, doc: Doc, previous: int | None, rows: list[IndexRow]) -> None:
        collection = self._collection(doc.tenant, create=True)
        assert collection is not None
        if previous is not None:
            collection.forget(doc.tenant, doc.doc_id)
        collection.add(rows)

    def delete(self, tenant: str, doc_id: str) -> None:
        collection = self._collection(tenant, create=False)
        if collection is not None and (tenant, doc_id) in self._versions:
            collection.forget(tenant, doc_id)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        view = View.of(asker, now_tick, policy)
        collection = self._collection(view.tenant, create=False)
        vector = self.settings.query_vector(query)
        if collection is None or vector is None:
            return Result(())
        found = collection.flushed().query(
            query_embeddings=[list(vector)],
            n_results=policy.candidate_limit,
            where=view_where(view, tenant=not self.per_tenant),
            include=["metadatas", "documents", "distances"],
        )
        pairs = [
            (_row(metadata, text), 1.0 - float(distance))
            for metadata, text, distance in zip(
                found["metadatas"][0], found["documents"][0], found["distances"][0], strict=True
            )
        ]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        return Result(hits)


def _system(
    client: Any,
    per_tenant_: bool,
    max_tokens: int | None,
    overlap_tokens: int | None,
    embedder: str | None,
) -> ChromaSystem:
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return ChromaSystem(settings, client, per_tenant=per_tenant_)


def _local(path: str | None) -> Any:
    return _Clients.client("memory") if path is None else _Clients.client("path", path)


def shared(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    path: str | None = None,
) -> ChromaSystem:
    """A fresh Chroma system: one collection for every tenant, the view as ``where``; in
    memory, or in the directory ``path`` (``PersistentClient``)."""
    return _system(_local(path), False, max_tokens, overlap_tokens, embedder)


def per_tenant(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    path: str | None = None,
) -> ChromaSystem:
    """A fresh Chroma system: a collection per tenant, the rest of the view as ``where``;
    in memory, or in the directory ``path`` (``PersistentClient``)."""
    return _system(_local(path), True, max_tokens, overlap_tokens, embedder)


def server(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    url: str | None = None,
    per_tenant: bool = False,
) -> ChromaSystem:
    """Chroma's ``HttpClient`` against a server (``chroma run``, or a deployment): ``url``
    or ``RAGWARD_CHROMA_URL`` (``http://host:port``). Each system is new collections."""
    location = url or os.environ.get("RAGWARD_CHROMA_URL")
    if not location:
        raise RagwardError("the Chroma server configuration needs RAGWARD_CHROMA_URL set")
    return _system(
        _Clients.client("url", location), per_tenant, max_tokens, overlap_tokens, embedder
    )
