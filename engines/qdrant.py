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
delete, so a stale write stays refused. The points and queries are
:mod:`~ragward.engines.qdrant_points`; each client API is a backend of its own
(:mod:`~ragward.engines.qdrant_edge_backend`, :mod:`~ragward.engines.qdrant_client_backend`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ranked, settings_of
from ragward.engines.qdrant_client_backend import ClientBackend, client_at
from ragward.engines.qdrant_edge_backend import EdgeBackend
from ragward.engines.qdrant_points import Backend, Scope, Search, Sparse, load, row_of
from ragward.errors import InvalidArgument, RagwardError
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


class Encoder:
    """Qdrant's BM25 encoder over the reference's tokens (see the module docstring)."""

    def __init__(self) -> None:
        edge = load("qdrant_edge")
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
            return [(row_of(payload), score) for _, score, payload in found]
        # Qdrant's RRF takes an integer k: fuse the engine's two rankings here instead.
        cut = _with(base, limit=base.candidate_limit)
        rankings = [
            self.backend.search(_with(cut, sparse=sparse)),
            self.backend.search(_with(cut, dense=dense)),
        ]
        terms: dict[str, list[float]] = {}
        rows: dict[str, IndexRow] = {}
        for ranking in rankings:
            in_order = ranked([(row_of(p), s) for _, s, p in ranking], len(ranking))
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
        return ClientBackend(client_at(":memory:", None), dimensions, indexes=False)

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
        return ClientBackend(client_at(location, key), dimensions, indexes=True)

    return _system(backend, scoped_idf, max_tokens, overlap_tokens, embedder)


def _check_rrf_k(policy: Policy) -> None:
    if not (math.isfinite(policy.rrf_k) and policy.rrf_k > 0):
        raise InvalidArgument(f"Policy.rrf_k must be a finite number > 0, got {policy.rrf_k!r}")
