"""Qdrant's engine in-process (``qdrant-edge``): two shards in a scratch directory."""

from __future__ import annotations

import os
import shutil
import tempfile
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

__all__ = ["EdgeBackend"]


class EdgeBackend:
    """Two edge shards in a temporary directory: the chunks, and the versions."""

    def __init__(self, dimensions: int) -> None:
        self.q = q = load("qdrant_edge")
        self.path = tempfile.mkdtemp(prefix="ragward-qdrant-", dir=_scratch())
        config = q.EdgeConfig(
            vectors={DENSE: q.EdgeVectorParams(size=dimensions, distance=q.Distance.Cosine)},
            sparse_vectors={SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
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
            key = point_id(row.tenant, row.doc_id, row.chunk_id)
            vector = vectors_of(row, terms, q.SparseVector)
            points.append(q.Point(id=key, vector=vector, payload=payload_of(row)))
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
        found = self.versions.retrieve([point_id(tenant, doc_id)], True, False)
        return int(found[0].payload["version"]) if found else None

    def set_version(self, tenant: str, doc_id: str, version: int) -> None:
        q = self.q
        point = q.Point(id=point_id(tenant, doc_id), vector={}, payload={"version": version})
        self.versions.update(q.UpdateOperation.upsert_points([point]))

    def count(self, scope: Scope) -> int:
        return int(self.shard.count(self.q.CountRequest(exact=True, filter=self.filter(scope))))

    def _stage(self, search: Search, which: str, limit: int) -> dict[str, Any]:
        q = self.q
        idf = None
        if search.idf is not None and which == SPARSE:  # IDF is a sparse vector's only
            idf = q.IdfParams(corpus=self.filter(search.idf))
        params = q.SearchParams(exact=search.exact, idf=idf)
        if which == SPARSE:
            assert search.sparse is not None
            vector = q.SparseVector(indices=search.sparse[0], values=search.sparse[1])
            return {
                "query": q.Query.Nearest(vector, using=SPARSE),
                "params": params,
                "limit": limit,
                "filter": self.filter(search.scope),
            }
        return {
            "query": q.Query.Nearest(list(search.dense or ()), using=DENSE),
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
                for which in (SPARSE, DENSE)
            ]
            request = q.QueryRequest(
                limit=search.limit,
                query=q.Fusion.Rrf(k=search.k),
                prefetches=prefetches,
                filter=self.filter(search.scope),
                with_payload=True,
            )
        else:
            which = SPARSE if search.sparse is not None else DENSE
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
