"""``qdrant-client`` (its in-memory local mode, or a deployment): two collections."""

from __future__ import annotations

import contextlib
import uuid
import weakref
from collections.abc import Sequence
from typing import Any

from ragward.engines.common import IndexRow
from ragward.engines.qdrant_points import (
    DENSE,
    SPARSE,
    Payload,
    Scope,
    Search,
    Sparse,
    load,
    payload_of,
    point_id,
    vectors_of,
)

__all__ = ["ClientBackend", "client_at"]


_CLIENTS: dict[tuple[str, str | None], Any] = {}


def client_at(location: str, api_key: str | None) -> Any:
    """One client per process and location: each system gets its own collections in it."""
    key = (location, api_key)
    if key not in _CLIENTS:
        client_module = load("qdrant_client")
        if location == ":memory:":
            _CLIENTS[key] = client_module.QdrantClient(location=":memory:")
        else:
            _CLIENTS[key] = client_module.QdrantClient(url=location, api_key=api_key)
    return _CLIENTS[key]


class ClientBackend:
    """Two collections of a ``QdrantClient``: the chunks, and the versions."""

    def __init__(self, client: Any, dimensions: int, *, indexes: bool) -> None:
        load("qdrant_client")
        from qdrant_client import models

        self.m = m = models
        self.client = client
        self.indexes = indexes
        self.name = f"ragward_{uuid.uuid4().hex}"
        self.versions = f"{self.name}_versions"
        client.create_collection(
            self.name,
            vectors_config={DENSE: m.VectorParams(size=dimensions, distance=m.Distance.COSINE)},
            sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
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
            key = point_id(row.tenant, row.doc_id, row.chunk_id)
            vector = vectors_of(row, terms, m.SparseVector)
            points.append(m.PointStruct(id=key, vector=vector, payload=payload_of(row)))
        # One batch: local mode applies it in list order; a server, like the edge engine,
        # in a random order (see EdgeBackend.upsert), which the server configuration keeps.
        if points:
            self.client.upsert(self.name, points, wait=True)

    def delete(self, scope: Scope) -> None:
        selector = self.m.FilterSelector(filter=self.filter(scope))
        self.client.delete(self.name, selector, wait=True)

    def version(self, tenant: str, doc_id: str) -> int | None:
        found = self.client.retrieve(self.versions, [point_id(tenant, doc_id)], with_payload=True)
        return int(found[0].payload["version"]) if found else None

    def set_version(self, tenant: str, doc_id: str, version: int) -> None:
        point = self.m.PointStruct(
            id=point_id(tenant, doc_id), vector={}, payload={"version": version}
        )
        self.client.upsert(self.versions, [point], wait=True)

    def count(self, scope: Scope) -> int:
        found = self.client.count(self.name, count_filter=self.filter(scope), exact=True)
        return int(found.count)

    def _stage(self, search: Search, which: str, limit: int) -> dict[str, Any]:
        m = self.m
        idf = None
        if search.idf is not None and which == SPARSE:  # IDF is a sparse vector's only
            idf = m.IdfCorpusParams(corpus=self.filter(search.idf))
        exact = search.exact and self.indexes  # local mode is always exact (and warns)
        params = m.SearchParams(exact=exact, idf=idf) if exact or idf else None
        if which == SPARSE:
            assert search.sparse is not None
            query: Any = m.SparseVector(indices=search.sparse[0], values=search.sparse[1])
            return {"query": query, "using": SPARSE, "params": params, "limit": limit}
        return {
            "query": list(search.dense or ()),
            "using": DENSE,
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
                for which in (SPARSE, DENSE)
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
            which = SPARSE if search.sparse is not None else DENSE
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
