"""A plain per-chunk Python loop with the reference retriever's semantics.

:class:`PlainLoopRetriever` answers exactly what
:class:`ragward.reference.AuthorizedRetriever` answers (same knobs, same ``ingest`` /
``delete`` / ``retrieve`` signatures, the same :class:`~ragward.reference.RetrievalResult`)
but without any index: chunks sit in a plain list per tenant and every query walks every
chunk of the asker's tenant in Python. It serves two purposes:

* the *plain per-chunk loop* anchor of the latency benchmark (SPEC §6): the speed a
  straightforward implementation gets, against which the reference's indexes are measured;
* an independent oracle for tests: it is written from the formulas in SPEC §2.3 (BM25
  statistics over the eligible view, cosine from raw vectors, ``(-score, chunk_id)``
  order, each matching chunk counted once), not from the reference's code, so agreement
  between the two is evidence that both follow the specification.

Only the public building blocks are shared with the reference: chunking, tokenizing, the
records, and the later stages (reciprocal-rank fusion and reranking), which work on a
handful of candidates and are not what the benchmark measures.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ragward.errors import InvalidArgument, VersionConflict
from ragward.reference import (
    BM25Params,
    Chunk,
    Chunking,
    Embedder,
    HashEmbedder,
    LexicalOverlapReranker,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    Reranker,
    RetrievalResult,
    ScoredChunk,
    TokenCounter,
    chunk_document,
    classification_rank,
    estimate_tokens,
    reciprocal_rank_fusion,
    rerank,
    tokenize,
)

__all__ = ["PlainLoopRetriever"]


@dataclass(frozen=True)
class _Entry:
    """One stored chunk with what a query reads of it, computed once at ingest."""

    chunk: Chunk
    clearance: int
    terms: Counter[str]
    length: int
    vector: list[float]
    norm: float


def _sort_key(item: ScoredChunk) -> tuple[float, str]:
    return (-item.score, item.chunk.chunk_id)


@dataclass
class PlainLoopRetriever:
    """The reference's retrieval semantics as one Python loop over a tenant's chunks.

    Per query: for every chunk of the tenant, decide eligibility (clearance, barrier, then
    freshness), then BM25 with ``N``, ``avgdl`` and every ``df`` counted over the eligible
    chunks, and the cosine of the raw embedder vectors (``dot / (|q| |d|)``, 0 when a norm
    is 0). Each first-stage ranking keeps the ``candidate_limit`` best eligible chunks with
    a positive score by ``(-score, chunk_id)``; fusion, reranking, accounting and the
    ``degraded`` record then follow the reference.

    It is meant to be slow and obviously right: an anchor for the benchmark and an oracle
    for differential tests, not something to serve queries with.
    """

    embedder: Embedder = field(default_factory=HashEmbedder)
    reranker: Reranker = field(default_factory=LexicalOverlapReranker)
    chunking: Chunking = field(default_factory=Chunking)
    bm25: BM25Params = field(default_factory=BM25Params)
    token_counter: TokenCounter = estimate_tokens
    _chunks: dict[str, list[_Entry]] = field(default_factory=dict, init=False, repr=False)
    _versions: dict[tuple[str, str], int] = field(default_factory=dict, init=False, repr=False)

    # -- writes -----------------------------------------------------------------------

    def ingest(self, document: ReferenceDoc) -> tuple[Chunk, ...]:
        """Upsert ``document``; refuse a version not newer than any seen for its key."""
        if not isinstance(document, ReferenceDoc):
            raise InvalidArgument(f"ingest expects a ReferenceDoc, got {type(document).__name__}")
        known = self._versions.get(document.key)
        if known is not None and document.version <= known:
            raise VersionConflict(
                f"{document.key!r} has version {known}; version {document.version} is not newer"
            )
        chunks = chunk_document(
            document,
            max_tokens=self.chunking.max_tokens,
            overlap_tokens=self.chunking.overlap_tokens,
            token_counter=self.token_counter,
        )
        vectors = self.embedder.embed([c.search_text for c in chunks])
        if vectors.shape != (len(chunks), self.embedder.dimensions):
            raise ValueError(
                f"embedder returned shape {vectors.shape}, "
                f"expected ({len(chunks)}, {self.embedder.dimensions})"
            )
        entries = []
        # Held in float32, as the reference (and every vector engine) holds them.
        rows = np.asarray(vectors, dtype=np.float32).tolist()
        for chunk, row in zip(chunks, rows, strict=True):
            terms = tokenize(chunk.search_text)
            entries.append(
                _Entry(
                    chunk=chunk,
                    clearance=classification_rank(chunk.classification),
                    terms=Counter(terms),
                    length=len(terms),
                    vector=row,
                    norm=math.sqrt(sum(x * x for x in row)),
                )
            )
        stored = self._chunks.setdefault(document.tenant, [])
        if known is not None:
            stored[:] = [e for e in stored if e.chunk.doc_id != document.doc_id]
        stored.extend(entries)
        self._versions[document.key] = document.version
        return tuple(chunks)

    def delete(self, tenant: str, doc_id: str) -> bool:
        """Remove the document's chunks; False if it has none stored."""
        stored = self._chunks.get(tenant, [])
        kept = [e for e in stored if e.chunk.doc_id != doc_id]
        removed = len(kept) != len(stored)
        stored[:] = kept
        return removed

    def version_of(self, tenant: str, doc_id: str) -> int | None:
        """Newest version ever ingested under ``(tenant, doc_id)``, or None."""
        return self._versions.get((tenant, doc_id))

    # -- reads ------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        principal: ReferenceAsker,
        *,
        now_tick: int = 0,
        policy: ReferencePolicy | None = None,
    ) -> RetrievalResult:
        """Answer ``query`` for ``principal`` at ``now_tick`` under ``policy``."""
        policy = policy or ReferencePolicy()
        if not isinstance(principal, ReferenceAsker):
            raise InvalidArgument(
                f"retrieve expects a ReferenceAsker, got {type(principal).__name__}"
            )
        if not isinstance(query, str):
            raise InvalidArgument(f"query must be a string, got {query!r}")
        if isinstance(now_tick, bool) or not isinstance(now_tick, int):
            raise InvalidArgument(f"now_tick must be an integer, got {now_tick!r}")
        degraded: list[str] = []

        query_vector: list[float] | None = None
        if policy.mode != "lexical":
            try:
                query_vector = np.asarray(
                    self.embedder.embed([query])[0], dtype=np.float32
                ).tolist()
            except Exception:  # as in the reference: a failed embedder degrades the answer
                degraded.append("dense")
        search_lexical = policy.mode != "dense"
        query_counts = Counter(tokenize(query))
        query_terms = sorted(query_counts)
        query_norm = 0.0
        if query_vector is not None:
            query_norm = math.sqrt(sum(x * x for x in query_vector))

        entries = self._chunks.get(principal.tenant, [])

        # Pass 1: who may see what, and the BM25 statistics of what they may see.
        visible: list[bool] = []
        eligible: list[bool] = []
        n_eligible = 0
        total_length = 0
        df: Counter[str] = Counter()
        for entry in entries:
            chunk = entry.chunk
            sees = (
                chunk.tenant == principal.tenant
                and entry.clearance <= principal.clearance
                and (chunk.barrier is None or chunk.barrier in principal.barriers)
            )
            fresh = (
                policy.max_stale_ticks is None
                or now_tick - chunk.updated_tick <= policy.max_stale_ticks
            )
            visible.append(sees)
            eligible.append(sees and fresh)
            if sees and fresh:
                n_eligible += 1
                total_length += entry.length
                for term in query_terms:
                    if term in entry.terms:
                        df[term] += 1
        avgdl = total_length / n_eligible if n_eligible else 0.0
        k1, b = self.bm25.k1, self.bm25.b
        idf = {
            term: math.log(1.0 + (n_eligible - df[term] + 0.5) / (df[term] + 0.5))
            for term in query_terms
        }

        # Pass 2: score every chunk, count every match once.
        lexical: list[ScoredChunk] = []
        dense: list[ScoredChunk] = []
        considered = hidden = stale = 0
        for entry, sees, ok in zip(entries, visible, eligible, strict=True):
            matched = False
            if search_lexical:
                score = 0.0
                for term in query_terms:
                    tf = entry.terms.get(term, 0)
                    if tf == 0:
                        continue
                    matched = True
                    if ok:
                        norm = k1 * (1.0 - b + b * entry.length / avgdl)
                        score += query_counts[term] * idf[term] * (tf * (k1 + 1.0)) / (tf + norm)
                if ok and score > 0.0:
                    lexical.append(ScoredChunk(entry.chunk, score))
            if query_vector is not None:
                cosine = 0.0
                if query_norm > 0.0 and entry.norm > 0.0:
                    dot = sum(q * d for q, d in zip(query_vector, entry.vector, strict=True))
                    cosine = dot / (query_norm * entry.norm)
                if cosine > 0.0:
                    matched = True
                    if ok:
                        dense.append(ScoredChunk(entry.chunk, cosine))
            if matched:
                considered += 1
                if not sees:
                    hidden += 1
                elif not ok:
                    stale += 1

        lexical = sorted(lexical, key=_sort_key)[: policy.candidate_limit]
        dense = sorted(dense, key=_sort_key)[: policy.candidate_limit]

        # Later stages: a few candidates, shared with the reference.
        if policy.mode == "hybrid":
            candidates = reciprocal_rank_fusion(
                [ranking for ranking in (lexical, dense) if ranking],
                k=policy.rrf_k,
                limit=policy.candidate_limit,
            )
        elif policy.mode == "lexical":
            candidates = lexical
        else:
            candidates = dense
        final = candidates[: policy.result_limit]
        if not policy.enable_rerank:
            degraded.append("rerank")
        else:
            try:
                final = rerank(
                    query,
                    candidates,
                    reranker=self.reranker,
                    limit=policy.result_limit,
                    min_score=policy.rerank_min_score,
                )
            except Exception:  # as in the reference: a failed reranker is shed
                degraded.append("rerank")
        return RetrievalResult(
            chunks=tuple(final),
            degraded=tuple(degraded),
            considered=considered,
            excluded_by_entitlement=hidden,
            excluded_by_freshness=stale,
        )
