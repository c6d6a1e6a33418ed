"""LangChain behind the kit's contract: its BM25 retriever, an in-memory vector store and
its ensemble (weighted RRF).

Each system holds the current chunks of every tenant as LangChain ``Document``\\ s (the
chunk's search text as ``page_content``, its labels as metadata) and answers with the
framework's own pieces, as its documentation shows them: ``BM25Retriever``
(``langchain-community``, ``rank_bm25``'s BM25Okapi underneath, the reference's tokenizer
as its ``preprocess_func``) for the lexical leg, ``InMemoryVectorStore``
(``langchain-core``) with a ``filter`` callable (applied before its top-k) for the dense
leg, and ``EnsembleRetriever`` (``langchain-classic``: weighted RRF, ``c = 60``, ranks
from 1, equal weights, documents told apart by ``page_content`` as by default) for
hybrid.

The BM25 retriever takes no filter at all, so a team picks one of two shapes, the two
configurations here:

* :func:`ensemble_per_tenant` — a BM25 retriever per tenant (the tenant's chunks only);
  what else the asker may not see (classification, barrier, freshness) is dropped from
  its top-k afterwards, as user code must.
* :func:`ensemble_postfilter` — one BM25 retriever over every tenant, its top-k then
  filtered by the whole view before the fusion.

Neither BM25 retriever takes writes after it is built, so the adapter rebuilds both legs
from the current chunks before the first read after a write. None of the three returns a
score (a retriever returns documents), so ``scores`` is not declared and a hit's score is
its place, ``1 / rank``; nor can the ensemble's ``c`` be set per request, so neither is
``policy_knobs``. The candidate limit is each leg's ``k``; the ensemble's answer is cut
at the result limit. Tested with ``langchain-core`` 1.8.3, ``langchain-community`` 0.4.2,
``langchain-classic`` 1.0.8 and ``rank-bm25`` 0.2.2.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ingest_newer, ranked, settings_of
from ragward.errors import MissingExtra
from ragward.reference.text import tokenize

__all__ = ["CONFIGURATIONS", "ChainSystem", "ensemble_per_tenant", "ensemble_postfilter"]

_MODULES = ("langchain_core", "langchain_community", "langchain_classic", "rank_bm25")

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "langchain",
        "ensemble_per_tenant",
        "LangChain EnsembleRetriever over a BM25Retriever per tenant and a filtered "
        "InMemoryVectorStore",
        "langchain",
        _MODULES,
    ),
    Configuration(
        "langchain",
        "ensemble_postfilter",
        "LangChain EnsembleRetriever over one BM25Retriever for all tenants, filtered "
        "after its top-k, and a filtered InMemoryVectorStore",
        "langchain",
        _MODULES,
    ),
)

_CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), counts=False, scores=False)


def _check() -> None:
    try:
        import langchain_classic.retrievers  # noqa: F401
        import langchain_community.retrievers  # noqa: F401
        import langchain_core.vectorstores  # noqa: F401
        import rank_bm25  # noqa: F401
    except ImportError as error:
        raise MissingExtra(
            f"engine 'langchain' needs {error.name}: pip install 'ragward[langchain]'"
        ) from None


def _embeddings(settings: Settings) -> Any:
    """ragward's embedder as LangChain ``Embeddings`` (nothing downloaded)."""
    from langchain_core.embeddings import Embeddings

    class RagwardEmbeddings(Embeddings):  # type: ignore[misc,valid-type,unused-ignore]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[float(x) for x in v] for v in settings.embedder.embed(texts)]

        def embed_query(self, text: str) -> list[float]:
            return self.embed_documents([text])[0]

    return RagwardEmbeddings()


def _doc_id(row: IndexRow) -> str:
    return json.dumps([row.tenant, row.chunk_id])


def _document(row: IndexRow) -> Any:
    from langchain_core.documents import Document

    return Document(
        id=_doc_id(row),
        page_content=row.search_text,
        metadata={
            "tenant": row.tenant,
            "doc_id": row.doc_id,
            "level": row.level,
            "barrier": row.barrier,
            "tick": row.tick,
        },
    )


def admits(view: View) -> Callable[[Any], bool]:
    """The asker's eligible view as a test of a LangChain ``Document``'s metadata."""

    def keep(document: Any) -> bool:
        meta = document.metadata
        return (
            meta["tenant"] == view.tenant
            and meta["level"] <= view.max_level
            and (meta["barrier"] is None or meta["barrier"] in view.barriers)
            and (view.min_tick is None or meta["tick"] >= view.min_tick)
        )

    return keep


def _filtered(inner: Any, keep: Callable[[Any], bool]) -> Any:
    """``inner``'s documents that ``keep`` admits, as a LangChain retriever (the user code
    a post-filter is: the BM25 retriever has no filter of its own)."""
    from langchain_core.retrievers import BaseRetriever

    class PostFiltered(BaseRetriever):  # type: ignore[misc,valid-type,unused-ignore]
        def _get_relevant_documents(self, query: str, **_: Any) -> list[Any]:
            return [d for d in inner.invoke(query) if keep(d)]

    return PostFiltered()


class _Legs:
    """The BM25 retrievers (every tenant's corpus, or one per tenant) and the vector store
    over the current chunks."""

    def __init__(self, rows: Sequence[IndexRow], per_tenant: bool, embeddings: Any) -> None:
        from langchain_core.vectorstores import InMemoryVectorStore

        self.rows = rows
        self.per_tenant = per_tenant
        self._bm25: dict[tuple[str | None, int], Any] = {}
        self.store = InMemoryVectorStore(embedding=embeddings)
        # A chunk with no direction is left out of the dense index, as in every adapter.
        embedded = [_document(row) for row in rows if row.vector is not None]
        if embedded:
            self.store.add_documents(embedded, ids=[d.id for d in embedded])
        self.dense_count = len(embedded)

    def bm25(self, tenant: str, k: int) -> Any | None:
        """The BM25 retriever the asker's tenant is searched with (its top ``k``), None
        when its corpus is empty (``from_documents`` cannot build one over nothing)."""
        from langchain_community.retrievers import BM25Retriever

        name = tenant if self.per_tenant else None
        if (name, k) not in self._bm25:
            corpus = [_document(row) for row in self.rows if name is None or row.tenant == name]
            self._bm25[name, k] = (
                # The reference's tokens, as every adapter's lexical index reads them.
                BM25Retriever.from_documents(corpus, preprocess_func=tokenize, k=k)
                if corpus
                else None
            )
        return self._bm25[name, k]


class ChainSystem:
    """One empty system; ``per_tenant`` says whether each tenant has its own BM25."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, *, per_tenant: bool) -> None:
        _check()
        self.settings = settings
        self.per_tenant = per_tenant
        self._embeddings = _embeddings(settings)
        self._rows: dict[tuple[str, str], list[IndexRow]] = {}
        self._versions: dict[tuple[str, str], int] = {}
        self._legs: _Legs | None = None

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    # -- writes ----------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many((doc,))[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """``ingest`` of each document (any iterable, read once) in order."""
        return ingest_newer(self.settings, self._versions, docs, self._write)

    def _write(self, doc: Doc, previous: int | None, rows: list[IndexRow]) -> None:
        self._rows[(doc.tenant, doc.doc_id)] = rows
        self._legs = None

    def delete(self, tenant: str, doc_id: str) -> None:
        if self._rows.pop((tenant, doc_id), None) is not None:
            self._legs = None

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        from langchain_classic.retrievers import EnsembleRetriever

        view = View.of(asker, now_tick, policy)
        if self._legs is None:
            rows = [row for _, doc_rows in sorted(self._rows.items()) for row in doc_rows]
            self._legs = _Legs(rows, self.per_tenant, self._embeddings)
        legs = self._legs
        keep = admits(view)
        limit = policy.candidate_limit
        retrievers = []
        bm25 = legs.bm25(view.tenant, limit)
        if policy.mode != "dense" and tokenize(query) and bm25 is not None:
            retrievers.append(_filtered(bm25, keep))
        if (
            policy.mode != "lexical"
            and legs.dense_count
            and self.settings.query_vector(query) is not None
        ):
            retrievers.append(legs.store.as_retriever(search_kwargs={"k": limit, "filter": keep}))
        found: list[Any] = []
        if policy.mode == "hybrid" and retrievers:
            # Equal weights, c = 60: the documented defaults, spelled out.
            weights = [1 / len(retrievers)] * len(retrievers)
            found = EnsembleRetriever(retrievers=retrievers, weights=weights).invoke(query)
        elif retrievers:
            found = retrievers[0].invoke(query)
        by_id = {_doc_id(row): row for doc_rows in self._rows.values() for row in doc_rows}
        pairs = [(by_id[d.id], 1.0 / rank) for rank, d in enumerate(found, 1)]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        return Result(hits)


def ensemble_per_tenant(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> ChainSystem:
    """A fresh LangChain system: a BM25 retriever per tenant (the rest of the view dropped
    after its top-k) and a filtered in-memory vector store, fused by ``EnsembleRetriever``."""
    return ChainSystem(settings_of(max_tokens, overlap_tokens, embedder), per_tenant=True)


def ensemble_postfilter(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> ChainSystem:
    """A fresh LangChain system: one BM25 retriever for every tenant, its top-k filtered
    by the view, and a filtered in-memory vector store, fused by ``EnsembleRetriever``."""
    return ChainSystem(settings_of(max_tokens, overlap_tokens, embedder), per_tenant=False)
