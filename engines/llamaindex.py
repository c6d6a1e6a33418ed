"""LlamaIndex behind the kit's contract: its BM25 retriever, its vector index and its fusion.

Each system holds the current chunks of every tenant as LlamaIndex ``TextNode``\\ s (the
reference's tokens as text, the labels as metadata, excluded from what is embedded or
shown to an LLM) and answers with the framework's own retrievers, as its documentation
shows them: ``BM25Retriever`` (``llama-index-retrievers-bm25``, bm25s underneath) for the
lexical leg, a ``VectorStoreIndex`` over the in-memory ``SimpleVectorStore`` with
``MetadataFilters`` for the dense leg, and ``QueryFusionRetriever`` in
``reciprocal_rerank`` mode (one query, no LLM) for hybrid. The asker's view is a
``MetadataFilters`` given to both legs (:func:`view_filters`): the vector store applies
it before its top-k; the BM25 retriever takes it as ``filters=`` when it is built.

Two configurations a team would really choose:

* :func:`fusion_filtered` — one corpus for every tenant, the view as the documented
  ``filters=`` of each leg. The BM25 retriever turns ``filters=`` into a weight mask fixed
  at construction (``corpus_weight_mask``) and its ``_retrieve`` keeps the top-k of the
  masked scores, zeros included: another tenant's node comes back with score 0.0 and
  the fusion ranks it like any other (the kit's ISO findings).
* :func:`per_tenant` — a BM25 retriever and a vector index per tenant (the tenant's nodes
  only), the rest of the view through the same filters.

Neither index takes writes after it is built (bm25s has no incremental update), so the
adapter rebuilds them from the current nodes before the first read after a write; the
BM25 retriever is built per question over that index (``existing_bm25=``, as a persisted
one is loaded), since its filter is fixed when it is built. The
fusion's ``k`` is LlamaIndex's constant 60 with ranks from 0 (ragward's ``rrf_k = 59``)
and cannot be set, so ``policy_knobs`` is not declared; the candidate and result limits
are still passed as the retrievers' ``similarity_top_k``. Versions are kept in memory
beside the nodes, where the framework keeps its data. Tested with ``llama-index-core``
0.14.25 and ``llama-index-retrievers-bm25`` 0.8.0.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ingest_newer, ranked, settings_of
from ragward.errors import MissingExtra
from ragward.reference.text import tokenize

__all__ = ["CONFIGURATIONS", "LlamaSystem", "fusion_filtered", "per_tenant", "view_filters"]

_MODULES = ("llama_index.core", "llama_index.retrievers.bm25")

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "llamaindex",
        "fusion_filtered",
        "LlamaIndex QueryFusionRetriever (reciprocal_rerank) over BM25Retriever(filters=) "
        "and a filtered vector index, one corpus for all tenants",
        "llamaindex",
        _MODULES,
    ),
    Configuration(
        "llamaindex",
        "per_tenant",
        "LlamaIndex QueryFusionRetriever (reciprocal_rerank) over a BM25Retriever and a "
        "vector index per tenant",
        "llamaindex",
        _MODULES,
    ),
)

_CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), counts=False)

# The metadata every node carries: what the view filters on and what identifies it.
_LABELS = ["tenant", "doc_id", "chunk_id", "version", "level", "barrier", "tick"]


def _core() -> Any:
    try:
        import llama_index.core
        import llama_index.retrievers.bm25  # the lexical leg's package
    except ImportError as error:
        raise MissingExtra(
            f"engine 'llamaindex' needs {error.name}: pip install 'ragward[llamaindex]'"
        ) from None
    # Its "fewer nodes than similarity_top_k" warning is logged once per small corpus.
    logging.getLogger("llama_index.retrievers.bm25.base").setLevel(logging.ERROR)
    return llama_index.core


def view_filters(view: View) -> Any:
    """The asker's eligible view as LlamaIndex ``MetadataFilters`` (a node without a
    barrier carries ``barrier=""``: metadata filters have no test for a missing key that
    every vector store agrees on)."""
    from llama_index.core.vector_stores.types import (
        FilterOperator,
        MetadataFilter,
        MetadataFilters,
    )

    filters: list[MetadataFilter | MetadataFilters] = [
        MetadataFilter(key="tenant", value=view.tenant, operator=FilterOperator.EQ),
        MetadataFilter(key="level", value=view.max_level, operator=FilterOperator.LTE),
        MetadataFilter(key="barrier", value=["", *view.barriers], operator=FilterOperator.IN),
    ]
    if view.min_tick is not None:
        filters.append(MetadataFilter(key="tick", value=view.min_tick, operator=FilterOperator.GTE))
    return MetadataFilters(filters=filters)


def _embedding(settings: Settings) -> Any:
    """ragward's embedder as a LlamaIndex embedding model (nothing downloaded)."""
    from llama_index.core.embeddings import BaseEmbedding

    class RagwardEmbedding(BaseEmbedding):  # type: ignore[misc,valid-type,unused-ignore]
        def _vectors(self, texts: list[str]) -> list[list[float]]:
            return [[float(x) for x in v] for v in settings.embedder.embed(texts)]

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._vectors([query])[0]

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._vectors([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._vectors(texts)

    return RagwardEmbedding(model_name="ragward", embed_batch_size=256)


def _node_id(row: IndexRow) -> str:
    return json.dumps([row.tenant, row.chunk_id])


def _node(row: IndexRow) -> Any:
    from llama_index.core.schema import TextNode

    return TextNode(
        id_=_node_id(row),
        text=" ".join(row.terms),
        metadata={
            "tenant": row.tenant,
            "doc_id": row.doc_id,
            "chunk_id": row.chunk_id,
            "version": row.version,
            "level": row.level,
            "barrier": row.barrier or "",
            "tick": row.tick,
        },
        excluded_embed_metadata_keys=_LABELS,
        excluded_llm_metadata_keys=_LABELS,
        embedding=None if row.vector is None else list(row.vector),
    )


#: How the BM25 retriever reads a node: the reference's tokens as they are (no stemming,
#: no stop words), as every adapter's lexical index reads them.
_READING: dict[str, Any] = {"skip_stemming": True, "token_pattern": r"\S+"}


class _Scope:
    """The nodes of one corpus (every tenant, or one), the vector index over them and,
    once a lexical question needs it, their bm25s index."""

    def __init__(self, core: Any, rows: Sequence[IndexRow], embed_model: Any) -> None:
        self.nodes = [_node(row) for row in rows]
        # A chunk with no direction is left out of the dense index, as in every adapter.
        embedded = [node for node in self.nodes if node.embedding is not None]
        self.index = core.VectorStoreIndex(embedded, embed_model=embed_model)
        self.dense_count = len(embedded)
        self._bm25: Any = None

    def bm25(self) -> Any:
        """The scope's ``bm25s.BM25``, built by the retriever and holding its corpus, as
        ``BM25Retriever.persist`` saves it and ``bm25s.BM25.load(load_corpus=True)`` reads
        it back: what ``existing_bm25=`` takes, so that a retriever with the asker's
        ``filters=`` is built per question without indexing the nodes again."""
        from llama_index.retrievers.bm25 import BM25Retriever

        if self._bm25 is None:
            built = BM25Retriever.from_defaults(nodes=self.nodes, language=None, **_READING)
            built.bm25.corpus = built.corpus
            self._bm25 = built.bm25
        return self._bm25


class LlamaSystem:
    """One empty system; ``per_tenant`` says whether each tenant has its own retrievers."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, *, per_tenant: bool) -> None:
        self._core = _core()
        self.settings = settings
        self.per_tenant = per_tenant
        self._embed_model = _embedding(settings)
        self._rows: dict[tuple[str, str], list[IndexRow]] = {}
        self._versions: dict[tuple[str, str], int] = {}
        self._scopes: dict[str | None, _Scope] = {}

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
        self._scopes.clear()

    def delete(self, tenant: str, doc_id: str) -> None:
        if self._rows.pop((tenant, doc_id), None) is not None:
            self._scopes.clear()

    def _scope(self, tenant: str) -> _Scope:
        name = tenant if self.per_tenant else None
        if name not in self._scopes:
            rows = [
                row
                for (owner, _), doc_rows in sorted(self._rows.items())
                if name is None or owner == name
                for row in doc_rows
            ]
            self._scopes[name] = _Scope(self._core, rows, self._embed_model)
        return self._scopes[name]

    # -- reads -----------------------------------------------------------------------

    def _lexical(self, scope: _Scope, filters: Any, limit: int) -> Any | None:
        """The documented BM25 retriever over the scope's nodes, ``filters=`` as given;
        None when the framework refuses to build one (no node, or none the filter
        admits: it raises rather than answer nothing)."""
        from llama_index.retrievers.bm25 import BM25Retriever

        if not scope.nodes:
            return None
        try:
            return BM25Retriever(
                existing_bm25=scope.bm25(), similarity_top_k=limit, filters=filters, **_READING
            )
        except ValueError as error:
            if "filtered out" in str(error):
                return None
            raise

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        from llama_index.core.llms import MockLLM
        from llama_index.core.retrievers import QueryFusionRetriever
        from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
        from llama_index.core.schema import QueryBundle

        view = View.of(asker, now_tick, policy)
        scope = self._scope(view.tenant)
        filters = view_filters(view)
        limit = policy.candidate_limit
        text = " ".join(tokenize(query))
        vector = self.settings.query_vector(query) if policy.mode != "lexical" else None
        retrievers = []
        if policy.mode != "dense" and text:
            lexical = self._lexical(scope, filters, limit)
            if lexical is not None:
                retrievers.append(lexical)
        if policy.mode != "lexical" and vector is not None and scope.dense_count:
            retrievers.append(scope.index.as_retriever(similarity_top_k=limit, filters=filters))
        bundle = QueryBundle(query_str=text, embedding=None if vector is None else list(vector))
        found = []
        if policy.mode == "hybrid" and retrievers:
            fusion = QueryFusionRetriever(
                retrievers,
                llm=MockLLM(),  # never called: one query, no generated ones
                mode=FUSION_MODES.RECIPROCAL_RANK,
                similarity_top_k=policy.result_limit,
                num_queries=1,
                use_async=False,
            )
            found = fusion.retrieve(bundle)
        elif retrievers:
            found = retrievers[0].retrieve(bundle)
        rows = {_node_id(row): row for doc_rows in self._rows.values() for row in doc_rows}
        pairs = [(rows[hit.node.node_id], float(hit.score or 0.0)) for hit in found]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        return Result(hits)


def fusion_filtered(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> LlamaSystem:
    """A fresh LlamaIndex system: one corpus for every tenant, the view as each
    retriever's documented ``filters=``, fused by ``QueryFusionRetriever``."""
    return LlamaSystem(settings_of(max_tokens, overlap_tokens, embedder), per_tenant=False)


def per_tenant(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> LlamaSystem:
    """A fresh LlamaIndex system: a BM25 retriever and a vector index per tenant, the rest
    of the view as their filters, fused by ``QueryFusionRetriever``."""
    return LlamaSystem(settings_of(max_tokens, overlap_tokens, embedder), per_tenant=True)
