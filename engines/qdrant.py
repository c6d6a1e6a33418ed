"""Qdrant behind the kit's contract: every tenant in one collection, filtered by payload.

One collection holds every tenant's chunks, each point carrying its labels as payload
(``tenant``, ``level``, ``barrier``, ``tick``), with a keyword index on ``tenant`` — the
multi-tenant layout Qdrant recommends — so the asker's view is a payload filter the
engine applies during search. Each point has two named vectors:

* ``dense``: the chunk's embedding, cosine distance;
* ``bm25``: a sparse vector with the ``IDF`` modifier. Its values are BM25's term part,
  ``tf (k + 1) / (tf + k (1 - b + b |d| / avg_len))`` with Qdrant's defaults (``k = 1.2``,
  ``b = 0.75``, a fixed ``avg_len = 256``), computed by Qdrant's own encoder
  (``qdrant_edge.Bm25``, fed the reference's tokens through its whitespace tokenizer with
  no lowercasing, stemming or stopwords, so the terms are exactly the reference's); the
  engine multiplies in ``ln(1 + (N - df + 0.5) / (df + 0.5))`` at query time. The query
  is each distinct term at weight 1. This is the sparse-vector BM25 every Qdrant
  deployment offers (the native ``TextQuery`` exists only in recent engines), and with a
  fixed ``avg_len`` the only collection statistics are the IDF's ``N`` and ``df``.

Hybrid is Qdrant's own fusion: two prefetches (each cut at ``candidate_limit``), fused by
``Fusion.Rrf``. Qdrant scores ``1 / (k + position)`` with positions from 0, ragward
``1 / (rrf_k + rank)`` with ranks from 1, so ``k = rrf_k + 1``; Qdrant takes an integer
``k``, so a fractional ``rrf_k`` is fused here instead, with ragward's formula over the
two rankings the engine returned.

Configurations: ``edge`` (Qdrant's Rust engine in-process, IDF over the whole
collection, Qdrant's default), ``edge_scoped_idf`` (the same, IDF over the asker's view:
``SearchParams(idf=IdfParams(corpus=view))``), ``local`` (``qdrant-client``'s in-memory
mode, a Python re-implementation) and ``server`` (``qdrant-client`` against a
deployment: ``RAGWARD_QDRANT_URL``, ``RAGWARD_QDRANT_API_KEY``).

Versions are points of a second collection, one per ``(tenant, doc_id)``, kept after a
delete, so a stale write stays refused.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import tempfile
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ranked, settings_of
from ragward.errors import InvalidArgument, MissingExtra, RagwardError
from ragward.keys import joined_key
from ragward.reference.text import tokenize

__all__ = [
    "CAPABILITIES",
    "CONFIGURATIONS",
    "QdrantSystem",
    "edge",
    "edge_scoped_idf",
    "local",
    "server",
]

CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), policy_knobs=True)

_MODULES = ("qdrant_edge", "qdrant_client")
CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "qdrant",
        "edge",
        "Qdrant engine in-process (qdrant-edge), IDF over the whole collection (default)",
        "qdrant",
        _MODULES,
    ),
    Configuration(
        "qdrant",
        "edge_scoped_idf",
        "Qdrant engine in-process (qdrant-edge), IDF over the asker's view",
        "qdrant",
        _MODULES,
    ),
    Configuration(
        "qdrant",
        "local",
        "qdrant-client local mode (':memory:', a Python re-implementation)",
        "qdrant",
        _MODULES,
    ),
    Configuration(
        "qdrant",
        "server",
        "qdrant-client against a Qdrant deployment",
        "qdrant",
        _MODULES,
        needs="RAGWARD_QDRANT_URL (and RAGWARD_QDRANT_API_KEY)",
        in_matrix=False,
    ),
)

_EXTRA = "pip install 'ragward[qdrant]'"
_IDS = uuid.UUID("5a0d1c1e-9b8f-4d59-8a64-7c1b5b0f2a11")
_SPARSE, _DENSE = "bm25", "dense"

Sparse = tuple[list[int], list[float]]
Payload = dict[str, Any]


def _import(name: str) -> Any:
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


def _point_id(*parts: str) -> str:
    """A point's id: a hash of its identifiers, encoded so that no two keys meet (joined
    with a separator, tenant ``a`` / ``b\x00c`` and ``a\x00b`` / ``c`` were one point)."""
    return str(uuid.uuid5(_IDS, joined_key(*parts)))


def _payload(row: IndexRow) -> Payload:
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


def _row(payload: Payload) -> IndexRow:
    return IndexRow.stored(payload)


class Encoder:
    """Qdrant's BM25 encoder over the reference's tokens (see the module docstring)."""

    def __init__(self) -> None:
        edge = _import("qdrant_edge")
        self._bm25 = edge.Bm25(
            edge.Bm25Config(
                tokenizer=edge.TokenizerType.Whitespace,
                lowercase=False,
                stopwords=edge.StopwordsSet(custom=set()),
                stemmer=edge.DisabledStemmer(),
            )
        )

    def document(self, terms: Sequence[str]) -> Sparse | None:
        if not terms:
            return None
        vector = self._bm25.embed_document(" ".join(terms))
        return list(vector.indices), list(vector.values)

    def query(self, terms: Sequence[str]) -> Sparse | None:
        if not terms:
            return None
        vector = self._bm25.embed_query(" ".join(terms))
        return list(vector.indices), list(vector.values)


class QdrantSystem:
    """One empty Qdrant collection (and its versions collection) behind the contract."""

    capabilities = CAPABILITIES

    def __init__(self, backend: Backend, settings: Settings, *, scoped_idf: bool) -> None:
        self.backend = backend
        self.settings = settings
        self.scoped_idf = scoped_idf
        self._encoder = _encoder()

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    def ingest(self, doc: Doc) -> bool:
        seen = self.backend.version(doc.tenant, doc.doc_id)
        if seen is not None and doc.version <= seen:
            return False
        rows = self.settings.rows(doc)  # fails before anything is written
        self.backend.delete(Scope(doc.tenant, doc_id=doc.doc_id))
        self.backend.upsert(rows, [self._encoder.document(row.terms) for row in rows])
        self.backend.set_version(doc.tenant, doc.doc_id, doc.version)
        return True

    def delete(self, tenant: str, doc_id: str) -> None:
        self.backend.delete(Scope(tenant, doc_id=doc_id))

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        _check_rrf_k(policy)
        view = View.of(asker, now_tick, policy)
        eligible = Scope(view.tenant, view.max_level, view.barriers, view.min_tick)
        sparse = None if policy.mode == "dense" else self._encoder.query(_terms(query))
        dense = None if policy.mode == "lexical" else self.settings.query_vector(query)
        limit = min(policy.candidate_limit, policy.result_limit)
        base = Search(
            eligible,
            limit,
            policy.candidate_limit,
            idf=eligible if self.scoped_idf else None,
        )
        pairs = self._rank(base, sparse, dense, policy)
        hits = tuple(row.hit(score) for row, score in ranked(pairs, limit))
        return Result(hits, *self._counts(view, sparse, dense))

    def _rank(
        self,
        base: Search,
        sparse: Sparse | None,
        dense: tuple[float, ...] | None,
        policy: Policy,
    ) -> list[tuple[IndexRow, float]]:
        if sparse is None and dense is None:
            return []
        k = policy.rrf_k + 1
        if sparse is None or dense is None or float(k).is_integer():
            found = self.backend.search(_with(base, sparse=sparse, dense=dense, k=int(k)))
            return [(_row(payload), score) for _, score, payload in found]
        # Qdrant's RRF takes an integer k: fuse the engine's two rankings here instead.
        cut = _with(base, limit=base.candidate_limit)
        rankings = [
            self.backend.search(_with(cut, sparse=sparse)),
            self.backend.search(_with(cut, dense=dense)),
        ]
        terms: dict[str, list[float]] = {}
        rows: dict[str, IndexRow] = {}
        for ranking in rankings:
            in_order = ranked([(_row(p), s) for _, s, p in ranking], len(ranking))
            for rank, (row, _) in enumerate(in_order, start=1):
                terms.setdefault(row.chunk_id, []).append(1.0 / (policy.rrf_k + rank))
                rows.setdefault(row.chunk_id, row)
        fused = [(rows[key], math.fsum(values)) for key, values in terms.items()]
        return ranked(fused, base.candidate_limit)

    def _counts(
        self, view: View, sparse: Sparse | None, dense: tuple[float, ...] | None
    ) -> tuple[int, int, int]:
        """(considered, excluded_by_entitlement, excluded_by_freshness), by engine queries:
        the matching points of the tenant, of the entitled part, of the eligible part."""
        tenant = Scope(view.tenant)
        total = self.backend.count(tenant)
        if total == 0 or (sparse is None and dense is None):
            return 0, 0, 0
        scopes = (
            tenant,
            Scope(view.tenant, view.max_level, view.barriers),
            Scope(view.tenant, view.max_level, view.barriers, view.min_tick),
        )
        sizes = []
        for scope in scopes:
            ids: set[str] = set()
            searches = [
                Search(scope, total, total, sparse=sparse, exact=True) if sparse else None,
                Search(scope, total, total, dense=dense, exact=True) if dense else None,
            ]
            for search in searches:
                if search is not None:
                    ids.update(str(point) for point, _, _ in self.backend.search(search))
            sizes.append(len(ids))
        matched, entitled, eligible = sizes
        return matched, matched - entitled, entitled - eligible


def _with(search: Search, **changes: Any) -> Search:
    return replace(search, **changes)


def _terms(query: str) -> list[str]:
    return tokenize(query)


_ENCODER: list[Encoder] = []


def _encoder() -> Encoder:
    if not _ENCODER:
        _ENCODER.append(Encoder())
    return _ENCODER[0]


# -- qdrant-edge -------------------------------------------------------------------------


class EdgeBackend:
    """Two edge shards in a temporary directory: the chunks, and the versions."""

    def __init__(self, dimensions: int) -> None:
        self.q = q = _import("qdrant_edge")
        self.path = tempfile.mkdtemp(prefix="ragward-qdrant-", dir=_scratch())
        config = q.EdgeConfig(
            vectors={_DENSE: q.EdgeVectorParams(size=dimensions, distance=q.Distance.Cosine)},
            sparse_vectors={_SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
            wal_enabled=False,
        )
        self.shard = q.EdgeShard.create(os.path.join(self.path, "chunks"), config)
        self.shard.update(
            q.UpdateOperation.create_field_index("tenant", q.KeywordIndexParams(is_tenant=True))
        )
        self.versions = q.EdgeShard.create(
            os.path.join(self.path, "versions"),
            q.EdgeConfig(
                vectors={"none": q.EdgeVectorParams(size=1, distance=q.Distance.Dot)},
                wal_enabled=False,
            ),
        )
        self._finalizer = weakref.finalize(self, _drop_edge, (self.shard, self.versions), self.path)

    def filter(self, scope: Scope) -> Any:
        q = self.q
        must: list[Any] = [q.FieldCondition("tenant", match=q.MatchValue(scope.tenant))]
        if scope.doc_id is not None:
            must.append(q.FieldCondition("doc_id", match=q.MatchValue(scope.doc_id)))
        if scope.max_level is not None:
            must.append(q.FieldCondition("level", range=q.RangeFloat(lte=scope.max_level)))
        if scope.barriers is not None:
            should: list[Any] = [q.IsNullCondition("barrier")]
            if scope.barriers:
                should.append(q.FieldCondition("barrier", match=q.MatchAny(list(scope.barriers))))
            must.append(q.Filter(should=should))
        if scope.min_tick is not None:
            must.append(q.FieldCondition("tick", range=q.RangeFloat(gte=scope.min_tick)))
        return q.Filter(must=must)

    def upsert(self, rows: Sequence[IndexRow], sparse: Sequence[Sparse | None]) -> None:
        q = self.q
        points = []
        for row, terms in zip(rows, sparse, strict=True):
            vector: dict[str, Any] = {}
            if terms is not None:
                vector[_SPARSE] = q.SparseVector(indices=terms[0], values=terms[1])
            if row.vector is not None:
                vector[_DENSE] = list(row.vector)
            point_id = _point_id(row.tenant, row.doc_id, row.chunk_id)
            points.append(q.Point(id=point_id, vector=vector, payload=_payload(row)))
        # One point per update, in chunk order: Qdrant applies a batch's points in the key
        # order of a hash map of their ids (``upsert_points`` dedups them through an
        # ``AHashMap``, seeded at random), so a batch lands in a new order every time, and
        # the order points land in decides ties and the float32 BM25 sums. Applied one by
        # one, a collection built alike is built the same; the results still depend on
        # ingestion order (DET-002), as Qdrant's do.
        for point in points:
            self.shard.update(q.UpdateOperation.upsert_points([point]))

    def delete(self, scope: Scope) -> None:
        self.shard.update(self.q.UpdateOperation.delete_points_by_filter(self.filter(scope)))

    def version(self, tenant: str, doc_id: str) -> int | None:
        found = self.versions.retrieve([_point_id(tenant, doc_id)], True, False)
        return int(found[0].payload["version"]) if found else None

    def set_version(self, tenant: str, doc_id: str, version: int) -> None:
        q = self.q
        point = q.Point(id=_point_id(tenant, doc_id), vector={}, payload={"version": version})
        self.versions.update(q.UpdateOperation.upsert_points([point]))

    def count(self, scope: Scope) -> int:
        return int(self.shard.count(self.q.CountRequest(exact=True, filter=self.filter(scope))))

    def _stage(self, search: Search, which: str, limit: int) -> dict[str, Any]:
        q = self.q
        idf = None
        if search.idf is not None and which == _SPARSE:  # IDF is a sparse vector's only
            idf = q.IdfParams(corpus=self.filter(search.idf))
        params = q.SearchParams(exact=search.exact, idf=idf)
        if which == _SPARSE:
            assert search.sparse is not None
            vector = q.SparseVector(indices=search.sparse[0], values=search.sparse[1])
            return {
                "query": q.Query.Nearest(vector, using=_SPARSE),
                "params": params,
                "limit": limit,
                "filter": self.filter(search.scope),
            }
        return {
            "query": q.Query.Nearest(list(search.dense or ()), using=_DENSE),
            "params": params,
            "limit": limit,
            "filter": self.filter(search.scope),
            "score_threshold": 0.0,  # strict: a cosine of 0 is no match
        }

    def search(self, search: Search) -> list[tuple[Any, float, Payload]]:
        q = self.q
        if search.sparse is not None and search.dense is not None:
            prefetches = [
                q.Prefetch(**self._stage(search, which, search.candidate_limit))
                for which in (_SPARSE, _DENSE)
            ]
            request = q.QueryRequest(
                limit=search.limit,
                query=q.Fusion.Rrf(k=search.k),
                prefetches=prefetches,
                filter=self.filter(search.scope),
                with_payload=True,
            )
        else:
            which = _SPARSE if search.sparse is not None else _DENSE
            request = q.QueryRequest(**self._stage(search, which, search.limit), with_payload=True)
        return [(p.id, float(p.score), p.payload) for p in self.shard.query(request)]


def _scratch() -> str | None:
    """Where edge shards live: ``RAGWARD_QDRANT_EDGE_DIR``, else the memory-backed
    ``/dev/shm`` when there is one (a shard costs ~4 ms to create there, ~130 ms on a
    disk, and the kit creates one per example), else the system's temporary directory."""
    chosen = os.environ.get("RAGWARD_QDRANT_EDGE_DIR")
    if chosen:
        return chosen
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def _drop_edge(shards: Sequence[Any], path: str) -> None:
    for shard in shards:
        shard.close()
    shutil.rmtree(path, ignore_errors=True)


# -- qdrant-client (local mode and servers) ------------------------------------------------


_CLIENTS: dict[tuple[str, str | None], Any] = {}


def _client(location: str, api_key: str | None) -> Any:
    """One client per process and location: each system gets its own collections in it."""
    key = (location, api_key)
    if key not in _CLIENTS:
        client_module = _import("qdrant_client")
        if location == ":memory:":
            _CLIENTS[key] = client_module.QdrantClient(location=":memory:")
        else:
            _CLIENTS[key] = client_module.QdrantClient(url=location, api_key=api_key)
    return _CLIENTS[key]


class ClientBackend:
    """Two collections of a ``QdrantClient``: the chunks, and the versions."""

    def __init__(self, client: Any, dimensions: int, *, indexes: bool) -> None:
        _import("qdrant_client")
        from qdrant_client import models

        self.m = m = models
        self.client = client
        self.indexes = indexes
        self.name = f"ragward_{uuid.uuid4().hex}"
        self.versions = f"{self.name}_versions"
        client.create_collection(
            self.name,
            vectors_config={_DENSE: m.VectorParams(size=dimensions, distance=m.Distance.COSINE)},
            sparse_vectors_config={_SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
        )
        client.create_collection(self.versions, vectors_config={})
        if indexes:  # local mode has no payload indexes (and warns about them)
            client.create_payload_index(
                self.name,
                "tenant",
                m.KeywordIndexParams(type=m.KeywordIndexType.KEYWORD, is_tenant=True),
            )
            for field in ("doc_id", "barrier"):
                client.create_payload_index(self.name, field, m.PayloadSchemaType.KEYWORD)
            for field in ("level", "tick"):
                client.create_payload_index(self.name, field, m.PayloadSchemaType.INTEGER)
        self._finalizer = weakref.finalize(self, _drop_collections, client, self.name)

    def filter(self, scope: Scope) -> Any:
        m = self.m
        must: list[Any] = [m.FieldCondition(key="tenant", match=m.MatchValue(value=scope.tenant))]
        if scope.doc_id is not None:
            must.append(m.FieldCondition(key="doc_id", match=m.MatchValue(value=scope.doc_id)))
        if scope.max_level is not None:
            must.append(m.FieldCondition(key="level", range=m.Range(lte=scope.max_level)))
        if scope.barriers is not None:
            should: list[Any] = [m.IsNullCondition(is_null=m.PayloadField(key="barrier"))]
            if scope.barriers:
                should.append(
                    m.FieldCondition(key="barrier", match=m.MatchAny(any=list(scope.barriers)))
                )
            must.append(m.Filter(should=should))
        if scope.min_tick is not None:
            must.append(m.FieldCondition(key="tick", range=m.Range(gte=scope.min_tick)))
        return m.Filter(must=must)

    def upsert(self, rows: Sequence[IndexRow], sparse: Sequence[Sparse | None]) -> None:
        m = self.m
        points = []
        for row, terms in zip(rows, sparse, strict=True):
            vector: dict[str, Any] = {}
            if terms is not None:
                vector[_SPARSE] = m.SparseVector(indices=terms[0], values=terms[1])
            if row.vector is not None:
                vector[_DENSE] = list(row.vector)
            points.append(
                m.PointStruct(
                    id=_point_id(row.tenant, row.doc_id, row.chunk_id),
                    vector=vector,
                    payload=_payload(row),
                )
            )
        # One batch: local mode applies it in list order; a server, like the edge engine,
        # in a random order (see EdgeBackend.upsert), which the server configuration keeps.
        if points:
            self.client.upsert(self.name, points, wait=True)

    def delete(self, scope: Scope) -> None:
        selector = self.m.FilterSelector(filter=self.filter(scope))
        self.client.delete(self.name, selector, wait=True)

    def version(self, tenant: str, doc_id: str) -> int | None:
        found = self.client.retrieve(self.versions, [_point_id(tenant, doc_id)], with_payload=True)
        return int(found[0].payload["version"]) if found else None

    def set_version(self, tenant: str, doc_id: str, version: int) -> None:
        point = self.m.PointStruct(
            id=_point_id(tenant, doc_id), vector={}, payload={"version": version}
        )
        self.client.upsert(self.versions, [point], wait=True)

    def count(self, scope: Scope) -> int:
        found = self.client.count(self.name, count_filter=self.filter(scope), exact=True)
        return int(found.count)

    def _stage(self, search: Search, which: str, limit: int) -> dict[str, Any]:
        m = self.m
        idf = None
        if search.idf is not None and which == _SPARSE:  # IDF is a sparse vector's only
            idf = m.IdfCorpusParams(corpus=self.filter(search.idf))
        exact = search.exact and self.indexes  # local mode is always exact (and warns)
        params = m.SearchParams(exact=exact, idf=idf) if exact or idf else None
        if which == _SPARSE:
            assert search.sparse is not None
            query: Any = m.SparseVector(indices=search.sparse[0], values=search.sparse[1])
            return {"query": query, "using": _SPARSE, "params": params, "limit": limit}
        return {
            "query": list(search.dense or ()),
            "using": _DENSE,
            "params": params,
            "limit": limit,
            "score_threshold": 0.0,  # strict: a cosine of 0 is no match
        }

    def search(self, search: Search) -> list[tuple[Any, float, Payload]]:
        m = self.m
        flt = self.filter(search.scope)
        if search.sparse is not None and search.dense is not None:
            prefetch = [
                m.Prefetch(filter=flt, **self._stage(search, which, search.candidate_limit))
                for which in (_SPARSE, _DENSE)
            ]
            found = self.client.query_points(
                self.name,
                prefetch=prefetch,
                query=m.RrfQuery(rrf=m.Rrf(k=search.k)),
                query_filter=flt,
                limit=search.limit,
                with_payload=True,
            )
        else:
            which = _SPARSE if search.sparse is not None else _DENSE
            stage = self._stage(search, which, search.limit)
            found = self.client.query_points(
                self.name,
                query=stage.pop("query"),
                query_filter=flt,
                search_params=stage.pop("params"),
                with_payload=True,
                **stage,
            )
        return [(p.id, float(p.score), p.payload) for p in found.points]


def _drop_collections(client: Any, name: str) -> None:
    for collection in (name, f"{name}_versions"):
        # The client may already be closed at interpreter exit.
        with contextlib.suppress(Exception):
            client.delete_collection(collection)


# -- factories -----------------------------------------------------------------------------


def _system(
    backend: Callable[[int], Backend],
    scoped_idf: bool,
    max_tokens: int | None,
    overlap_tokens: int | None,
    embedder: str | None,
) -> QdrantSystem:
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return QdrantSystem(backend(settings.dimensions), settings, scoped_idf=scoped_idf)


def edge(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
) -> QdrantSystem:
    """Qdrant's engine in-process, IDF over the whole collection (Qdrant's default)."""
    return _system(EdgeBackend, False, max_tokens, overlap_tokens, embedder)


def edge_scoped_idf(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
) -> QdrantSystem:
    """Qdrant's engine in-process, IDF over the points of the asker's view."""
    return _system(EdgeBackend, True, max_tokens, overlap_tokens, embedder)


def local(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    scoped_idf: bool = False,
) -> QdrantSystem:
    """``qdrant-client``'s in-memory local mode (not the engine: a Python port of it)."""

    def backend(dimensions: int) -> Backend:
        return ClientBackend(_client(":memory:", None), dimensions, indexes=False)

    return _system(backend, scoped_idf, max_tokens, overlap_tokens, embedder)


def server(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    url: str | None = None,
    api_key: str | None = None,
    scoped_idf: bool = False,
) -> QdrantSystem:
    """``qdrant-client`` against a deployment: ``url`` or ``RAGWARD_QDRANT_URL``, and
    ``api_key`` or ``RAGWARD_QDRANT_API_KEY``. Each system is a new pair of collections."""
    location = url or os.environ.get("RAGWARD_QDRANT_URL")
    if not location:
        raise RagwardError("the Qdrant server configuration needs RAGWARD_QDRANT_URL set")
    key = api_key or os.environ.get("RAGWARD_QDRANT_API_KEY") or None

    def backend(dimensions: int) -> Backend:
        return ClientBackend(_client(location, key), dimensions, indexes=True)

    return _system(backend, scoped_idf, max_tokens, overlap_tokens, embedder)


def _check_rrf_k(policy: Policy) -> None:
    if not (math.isfinite(policy.rrf_k) and policy.rrf_k > 0):
        raise InvalidArgument(f"Policy.rrf_k must be a finite number > 0, got {policy.rrf_k!r}")
