"""The authorized hybrid retriever: entitlement as a true pre-filter."""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from ragward.analysis import PLAIN, Analyzer, PlainAnalyzer
from ragward.errors import InvalidArgument, VersionConflict
from ragward.reference.candidates import lexical_stage, top_candidates
from ragward.reference.chunking import Chunk, Chunking, chunk_document
from ragward.reference.dense import DenseScan, Floats, Vectors, check_vectors
from ragward.reference.documents import ReferenceAsker, ReferenceDoc, classification_rank
from ragward.reference.embedding import Embedder, HashEmbedder
from ragward.reference.fusion_methods import fuse
from ragward.reference.grounding import GroundingChecker, LexicalOverlapChecker
from ragward.reference.lexical import BM25Params, count_matched
from ragward.reference.namespace import BOTH, DENSE, LEXICAL, Namespace, View
from ragward.reference.policy import MODES, ReferencePolicy
from ragward.reference.ranking import ScoredChunk, cut
from ragward.reference.rerank import (
    LexicalOverlapReranker,
    Reranker,
    overlap_scores,
    reads_index_terms,
)
from ragward.reference.stage import FirstStage, Remembered, StageSource
from ragward.reference.text import TokenCounter, estimate_tokens, tokenize

__all__ = [
    "MODES",
    "AuthorizedRetriever",
    "FirstStage",
    "ReferencePolicy",
    "RetrievalResult",
    "StageSource",
]

#: Every live retriever (by id: a retriever compares by value and has no hash), so that
#: a fork never copies one in the middle of a call.
_RETRIEVERS: weakref.WeakValueDictionary[int, AuthorizedRetriever] = weakref.WeakValueDictionary()
_HELD_AT_FORK: list[AuthorizedRetriever] = []


def _before_fork() -> None:
    # Wait for calls in flight: the child gets each index between two calls, never
    # half-written, and no lock held by a thread it does not have.
    _HELD_AT_FORK[:] = list(_RETRIEVERS.values())
    for retriever in _HELD_AT_FORK:
        retriever._lock.acquire()


def _after_fork() -> None:
    # In the parent and in the child alike, the forking thread holds these locks.
    for retriever in reversed(_HELD_AT_FORK):
        retriever._lock.release()
    _HELD_AT_FORK.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork, after_in_child=_after_fork
    )


@dataclass(frozen=True)
class RetrievalResult:
    """Ranked chunks plus the audit record of how they were chosen.

    The counts are audit data, never for the end user: ``considered`` is the number of
    distinct chunks of the tenant's namespace that matched the query in a searched index;
    of those, ``excluded_by_entitlement`` were not visible to the asker and
    ``excluded_by_freshness`` were visible but stale. Each chunk is counted once.
    """

    chunks: tuple[ScoredChunk, ...]
    degraded: tuple[str, ...] = ()
    considered: int = 0
    excluded_by_entitlement: int = 0
    excluded_by_freshness: int = 0

    @classmethod
    def made(
        cls,
        chunks: tuple[ScoredChunk, ...],
        degraded: tuple[str, ...],
        considered: int,
        excluded_by_entitlement: int,
        excluded_by_freshness: int,
    ) -> RetrievalResult:
        """``RetrievalResult(chunks, degraded, considered, ...)``, its fields set as the
        frozen ``__init__`` sets them, in a third of the time (one per answer)."""
        result = object.__new__(cls)
        result.__dict__.update(
            chunks=chunks,
            degraded=degraded,
            considered=considered,
            excluded_by_entitlement=excluded_by_entitlement,
            excluded_by_freshness=excluded_by_freshness,
        )
        return result

    @property
    def citations(self) -> tuple[str, ...]:
        """The citation of each returned chunk, in rank order."""
        return tuple(scored.chunk.citation() for scored in self.chunks)

    @property
    def eligible_matches(self) -> int:
        """Matching chunks inside the asker's eligible view."""
        return self.considered - self.excluded_by_entitlement - self.excluded_by_freshness


def _check_asked(queries: Sequence[str], principal: ReferenceAsker, now_tick: int) -> None:
    """Refuse, in one line, what no question can be asked with."""
    if not isinstance(principal, ReferenceAsker):
        raise InvalidArgument(f"retrieve expects a ReferenceAsker, got {type(principal).__name__}")
    for query in queries:
        if not isinstance(query, str):
            raise InvalidArgument(f"query must be a string, got {query!r}")
    if isinstance(now_tick, bool) or not isinstance(now_tick, int):
        raise InvalidArgument(f"now_tick must be an integer, got {now_tick!r}")


def _check_key(verb: str, tenant: object, doc_id: object) -> None:
    """Refuse a key that names no document: ``delete(None, None)`` is a caller's mistake,
    not a document that happens to be absent."""
    for name, value in (("tenant", tenant), ("doc_id", doc_id)):
        if not isinstance(value, str):
            raise InvalidArgument(f"{verb} expects {name} as a string, got {type(value).__name__}")


def _plus(counts: tuple[int, int, int], more: tuple[int, int, int]) -> tuple[int, int, int]:
    """Audit counts of disjoint sets of rows, added."""
    return (counts[0] + more[0], counts[1] + more[1], counts[2] + more[2])


def _degraded(policy: ReferencePolicy, vector: npt.NDArray[np.float64] | None) -> tuple[str, ...]:
    """``("dense",)`` where the policy reads the dense index and the question has no vector
    (its embedder failed)."""
    return ("dense",) if policy.mode != "lexical" and vector is None else ()


@dataclass
class AuthorizedRetriever:
    """Hybrid retrieval that never ranks a chunk the asker may not see.

    Three enforcement points: the tenant selects the namespace searched (other tenants'
    chunks are never read); clearance and barriers, then the freshness contract, form an
    eligibility mask applied *before* any ranking, so an ineligible chunk never takes a
    candidate slot, never changes how many results come back and never moves a score
    (BM25's ``N``, ``avgdl`` and document frequencies are taken over the eligible view).

    >>> r = AuthorizedRetriever()
    >>> _ = r.ingest(ReferenceDoc("d1", "acme", "Hold", "Payment PMT-7 is held for screening."))
    >>> [s.chunk.chunk_id for s in r.retrieve("PMT-7", ReferenceAsker("u1", "acme")).chunks]
    ['d1::1']
    """

    embedder: Embedder = field(default_factory=HashEmbedder)
    reranker: Reranker = field(default_factory=LexicalOverlapReranker)
    chunking: Chunking = field(default_factory=Chunking)
    bm25: BM25Params = field(default_factory=BM25Params)
    token_counter: TokenCounter = estimate_tokens
    grounding: GroundingChecker = field(default_factory=LexicalOverlapChecker)
    analyzer: Analyzer = PLAIN
    #: Chunks embedded, and of them those longer than the embedder reads (where it says
    #: its ``input_limit`` and ``input_tokens``): :meth:`truncation`.
    _embedded: list[int] = field(
        default_factory=lambda: [0, 0], init=False, repr=False, compare=False
    )
    _namespaces: dict[str, Namespace] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.analyzer, Analyzer):
            raise InvalidArgument(
                f"analyzer must have a name and a terms(text) method, got {self.analyzer!r}"
            )
        _RETRIEVERS[id(self)] = self

    # -- writes -----------------------------------------------------------------------

    def ingest(self, document: ReferenceDoc) -> tuple[Chunk, ...]:
        """Upsert ``document``: its chunks replace every chunk of its previous version.

        The version must be newer than any version ever ingested under the same
        ``(tenant, doc_id)``, deleted ones included; otherwise
        :class:`~ragward.errors.VersionConflict` is raised and nothing changes.
        """
        if not isinstance(document, ReferenceDoc):
            raise InvalidArgument(f"ingest expects a ReferenceDoc, got {type(document).__name__}")
        with self._lock:
            namespace = self._namespace(document.tenant)
            namespace.check_version(document)
        # Chunk and embed outside the lock: a failure here leaves the index untouched.
        chunks, roles = self._chunks(document)
        vectors = self._vectors([c for c, r in zip(chunks, roles, strict=True) if r & DENSE])
        with self._lock:
            namespace.upsert(document, chunks, *self._rows(chunks, roles, vectors, 0), roles)
        return tuple(chunks)

    def ingest_many(
        self, documents: Iterable[ReferenceDoc], *, batch_size: int = 256
    ) -> tuple[tuple[Chunk, ...] | None, ...]:
        """Upsert ``documents`` (any iterable, read once) in order, embedding their chunks
        in batches.

        Each document is applied as :meth:`ingest` applies it; a document whose version is
        not newer (than one ingested before, or earlier in ``documents``) is refused and
        gives None in its place. The embedder sees ``batch_size`` chunk texts per call,
        which is what lets a neural model run at its own speed.
        """
        documents = list(documents)  # read once: a generator has no second pass
        for document in documents:
            if not isinstance(document, ReferenceDoc):
                raise InvalidArgument(
                    f"ingest expects a ReferenceDoc, got {type(document).__name__}"
                )
        pending = [(document, *self._chunks(document)) for document in documents]
        embedded = [
            c
            for _, chunks, roles in pending
            for c, r in zip(chunks, roles, strict=True)
            if r & DENSE
        ]
        parts = [
            self._vectors(embedded[start : start + batch_size])
            for start in range(0, len(embedded), batch_size)
        ]
        vectors = np.concatenate(parts) if parts else np.zeros((0, self.embedder.dimensions))
        out: list[tuple[Chunk, ...] | None] = []
        offset = 0
        with self._lock:
            for document, chunks, roles in pending:
                tokens, mine = self._rows(chunks, roles, vectors, offset)
                offset += sum(1 for r in roles if r & DENSE)
                try:
                    self._namespace(document.tenant).upsert(document, chunks, tokens, mine, roles)
                except VersionConflict:
                    out.append(None)
                    continue
                out.append(tuple(chunks))
        return tuple(out)

    def _chunks(self, document: ReferenceDoc) -> tuple[list[Chunk], list[int]]:
        """The chunks of ``document`` and which index reads each."""
        chunking = self.chunking
        chunks = chunk_document(
            document,
            max_tokens=chunking.max_tokens,
            overlap_tokens=chunking.overlap_tokens,
            token_counter=self.token_counter,
        )
        if chunking.lexical_max_tokens is None:
            return chunks, [BOTH] * len(chunks)
        wide = chunk_document(
            document,
            max_tokens=chunking.lexical_max_tokens,
            overlap_tokens=chunking.lexical_overlap_tokens,
            token_counter=self.token_counter,
            id_prefix="L",
        )
        return [*chunks, *wide], [DENSE] * len(chunks) + [LEXICAL] * len(wide)

    def truncation(self) -> tuple[int, int, int] | None:
        """``(truncated, embedded, limit)``: how many chunks the embedder cut at its input
        limit, of how many it embedded; None when the embedder does not say its limit."""
        limit = getattr(self.embedder, "input_limit", None)
        if not isinstance(limit, int) or getattr(self.embedder, "input_tokens", None) is None:
            return None
        return self._embedded[1], self._embedded[0], limit

    def _vectors(self, chunks: Sequence[Chunk]) -> Vectors:
        texts = [c.search_text for c in chunks]
        limit = getattr(self.embedder, "input_limit", None)
        count = getattr(self.embedder, "input_tokens", None)
        if isinstance(limit, int) and count is not None:
            cut = sum(1 for text in texts if count(text) > limit)
            with self._lock:
                self._embedded[0] += len(texts)
                self._embedded[1] += cut
        checked = check_vectors(
            self.embedder.embed(texts), len(texts), self.embedder.dimensions, self.embedder.name
        )
        # As the index holds them (float32): the same numbers, in half the bytes while the
        # rows wait to be indexed.
        return checked.astype(np.float32)

    def _rows(
        self, chunks: Sequence[Chunk], roles: Sequence[int], vectors: Floats | Vectors, offset: int
    ) -> tuple[list[list[str]], Floats | Vectors]:
        """Tokens and vectors of every row: none for a row one index does not read."""
        # One string per distinct term, shared by every row: a token then costs its list
        # slot (8 bytes) instead of a string of its own (some 55), which made the tokens
        # of a large document weigh 14 times its text while they waited to be indexed.
        shared: dict[str, str] = {}
        terms = self.analyzer.terms
        tokens = [
            [shared.setdefault(t, t) for t in terms(c.search_text)] if r & LEXICAL else []
            for c, r in zip(chunks, roles, strict=True)
        ]
        dense = [i for i, r in enumerate(roles) if r & DENSE]
        if len(dense) == len(chunks) and offset == 0 and len(vectors) == len(chunks):
            return tokens, vectors  # every row's vector, in order: no copy
        rows = np.zeros((len(chunks), self.embedder.dimensions), dtype=np.float32)
        rows[dense] = vectors[offset : offset + len(dense)]
        return tokens, rows

    def delete(self, tenant: str, doc_id: str) -> bool:
        """Remove a document from results, counts and statistics; False if not present."""
        _check_key("delete", tenant, doc_id)
        with self._lock:
            namespace = self._namespaces.get(tenant)
            return namespace is not None and namespace.delete(doc_id)

    def version_of(self, tenant: str, doc_id: str) -> int | None:
        """Newest version ever ingested under ``(tenant, doc_id)``, or None."""
        _check_key("version_of", tenant, doc_id)
        with self._lock:
            namespace = self._namespaces.get(tenant)
            return None if namespace is None else namespace.version_of(doc_id)

    def _namespace(self, tenant: str) -> Namespace:
        namespace = self._namespaces.get(tenant)
        if namespace is None:
            namespace = Namespace(tenant, self.bm25, self.embedder.dimensions, self.analyzer)
            self._namespaces[tenant] = namespace
        return namespace

    # -- reads ------------------------------------------------------------------------

    @staticmethod
    def visible(principal: ReferenceAsker, chunk: Chunk) -> bool:
        """Whether ``principal`` is entitled to ``chunk`` (freshness aside)."""
        return (
            chunk.tenant == principal.tenant
            and classification_rank(chunk.classification) <= principal.clearance
            and (chunk.barrier is None or chunk.barrier in principal.barriers)
        )

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
        if policy.mode == "lexical" and not policy.enable_rerank:
            answer = self._lexical_answer(query, principal, now_tick, policy)
            if answer is not None:
                return answer
        first = self.first_stages([query], principal, now_tick=now_tick, policy=policy)[0]
        return self.finish(first, policy)

    def _lexical_answer(
        self, query: str, principal: ReferenceAsker, now_tick: int, policy: ReferencePolicy
    ) -> RetrievalResult | None:
        """What ``finish(first_stage(...))`` answers under a lexical policy without rerank,
        without the first stage in between (BM25 alone is the hot path of a lexical-only
        deployment: its plumbing was a seventh of a question's time); None where that way
        does not apply (no rows yet, or a split chunking), and the general way answers."""
        _check_asked((query,), principal, now_tick)
        with self._lock:
            namespace = self._namespaces.get(principal.tenant)
            if namespace is None or namespace.live_rows == 0 or namespace.split_roles:
                return None
            view = namespace.view(principal, now_tick, policy.max_stale_ticks)
            live = namespace.live()
            _, counts, lexical, others, _ = lexical_stage(
                namespace, view, live, live, query, policy
            )
            if others.size:
                counts = _plus(
                    counts, count_matched(np.unique(others), live, view.visible, view.eligible)
                )
        return RetrievalResult.made(
            tuple(cut(lexical, policy.result_limit, policy.limit_unit)), ("rerank",), *counts
        )

    def retrieve_many(
        self,
        queries: Iterable[str],
        principal: ReferenceAsker,
        *,
        now_tick: int = 0,
        policy: ReferencePolicy | None = None,
    ) -> list[RetrievalResult]:
        """Answer each of ``queries`` (any iterable, read once) for ``principal`` at
        ``now_tick`` under ``policy``: what :meth:`retrieve` answers one by one, with the
        checks, the lock, the asker's view and its masks taken once."""
        policy = policy or ReferencePolicy()
        return [
            self.finish(first, policy)
            for first in self.first_stages(queries, principal, now_tick=now_tick, policy=policy)
        ]

    def first_stage(
        self,
        query: str,
        principal: ReferenceAsker,
        *,
        now_tick: int = 0,
        policy: ReferencePolicy | None = None,
    ) -> FirstStage:
        """The lexical and dense rankings over the eligible view, each cut at
        ``policy.candidate_limit``, with the audit counts."""
        return self.first_stages([query], principal, now_tick=now_tick, policy=policy)[0]

    def first_stages(
        self,
        queries: Iterable[str],
        principal: ReferenceAsker,
        *,
        now_tick: int = 0,
        policy: ReferencePolicy | None = None,
    ) -> list[FirstStage]:
        """:meth:`first_stage` of each of ``queries`` (any iterable, read once), the view
        taken once."""
        queries = list(queries)  # read once: a generator has no length
        policy = policy or ReferencePolicy()
        _check_asked(queries, principal, now_tick)
        vectors: list[npt.NDArray[np.float64] | None] = [None] * len(queries)
        if policy.mode != "lexical":
            vectors = self._query_vectors(queries)
        with self._lock:
            namespace = self._namespaces.get(principal.tenant)
            if namespace is None or namespace.live_rows == 0:
                return [
                    FirstStage(query, (), (), _degraded(policy, vector))
                    for query, vector in zip(queries, vectors, strict=True)
                ]
            view = namespace.view(principal, now_tick, policy.max_stale_ticks)
            live = namespace.live()
            # Under a split chunking each index reads, and counts, its own rows only.
            lexical_rows = namespace.read_by(LEXICAL) if namespace.split_roles else live
            dense_rows = namespace.read_by(DENSE) if namespace.split_roles else live
            readers = (live, lexical_rows, dense_rows)
            stages: list[FirstStage] = []
            # the dense scans of a block of questions from one matrix product
            block = namespace.vectors.queries_per_scan()
            for start in range(0, len(queries), block):
                asked = queries[start : start + block]
                given = vectors[start : start + block]
                scans = namespace.vectors.scan_many(given)
                stages.extend(
                    self._first_stage_in(namespace, view, readers, query, vector, policy, scan)
                    for query, vector, scan in zip(asked, given, scans, strict=True)
                )
            return stages

    def _query_vectors(self, queries: Sequence[str]) -> list[npt.NDArray[np.float64] | None]:
        """Each question's vector, or None where the embedder failed (the answer is then
        degraded, not failed). One call per question: a model may round a question
        differently in a padded batch, and a batch must answer as one by one does."""
        embedder = self.embedder
        vectors: list[npt.NDArray[np.float64] | None] = []
        for query in queries:
            try:
                vectors.append(
                    check_vectors(embedder.embed([query]), 1, embedder.dimensions, embedder.name)[0]
                )
            except Exception:  # a failed embedder degrades the answer, it does not fail it
                vectors.append(None)
        return vectors

    def _first_stage_in(
        self,
        namespace: Namespace,
        view: View,
        readers: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_]],
        query: str,
        query_vector: npt.NDArray[np.float64] | None,
        policy: ReferencePolicy,
        scan: DenseScan | None = None,
    ) -> FirstStage:
        """One question's first stage in ``view`` (the caller holds the lock); ``readers``
        mark the live rows, and those the lexical and the dense index read; ``scan`` is
        the question's dense scan where the caller took it (with others')."""
        degraded = _degraded(policy, query_vector)
        live, lexical_rows, dense_rows = readers
        visible, eligible = view.visible, view.eligible
        # Rows matched by BM25 (the rows it scored, with their audit counts, and the other
        # rows holding a query term) and by the dense scan (as a mask).
        scored: npt.NDArray[np.integer[Any]] | None = None
        others: npt.NDArray[np.integer[Any]] | None = None
        counts = (0, 0, 0)
        lexical: tuple[ScoredChunk, ...] = ()
        dense: tuple[ScoredChunk, ...] = ()
        lexical_ranked: list[int] = []
        dense_ranked: list[int] = []
        if policy.mode != "dense":
            scored, counts, lexical, others, lexical_ranked = lexical_stage(
                namespace, view, live, lexical_rows, query, policy
            )
        if query_vector is not None:
            # One BLAS pass, made exact where a sign or a place depends on it.
            if scan is None:
                scan = namespace.vectors.scan(query_vector)
            scores = scan.scores
            dense_matched = live & dense_rows & (scores > 0.0)
            rows = np.flatnonzero(eligible & dense_rows & (scores > 0.0))
            dense, dense_ranked = self._top(namespace, scores, rows, policy, scan.settle)
            for matched_rows in (scored, others):
                if matched_rows is not None:
                    dense_matched[matched_rows[live[matched_rows]]] = True
            hidden = dense_matched & ~visible
            counts = (
                int(np.count_nonzero(dense_matched)),
                int(np.count_nonzero(hidden)),
                int(np.count_nonzero(dense_matched & visible & ~eligible)),
            )
        elif others is not None and others.size:
            # Scored rows are distinct, and disjoint from the other rows holding a query
            # term (which repeat, one term after another): their counts add up.
            counts = _plus(counts, count_matched(np.unique(others), live, visible, eligible))
        source = StageSource(namespace, (lexical, dense), (lexical_ranked, dense_ranked))
        return FirstStage.made(query, lexical, dense, degraded, counts, source)

    #: The best eligible rows of one index (:func:`.candidates.top_candidates`), called as
    #: a method: the planted post-filter defect (tools/mutants.py) patches that call.
    _top = staticmethod(top_candidates)

    def rerank_scores(self, first: FirstStage, chunks: Sequence[Chunk]) -> Sequence[float]:
        """The reranker's scores of ``chunks``, candidates of ``first``, for its question.

        The lexical-overlap reranker counts the question's terms in each chunk's search
        text; the lexical index holds those counts (and each chunk's length) already, from
        the same text tokenized the same way, so they are read from its postings for the
        chunks' rows instead of tokenizing every chunk again (the same integers, then the
        same arithmetic: the same floats). Any other reranker, a chunk without a known
        row, a namespace compacted since the stage or one whose lexical index reads other
        chunks: the reranker is asked.
        """
        reranker, source = self.reranker, first.source
        # The index's terms are the reranker's only when both cut text the plain way.
        plain = isinstance(self.analyzer, PlainAnalyzer)
        if source is not None and chunks and plain and reads_index_terms(reranker):
            with self._lock:
                namespace = source.namespace
                if namespace.compactions == source.compactions and not namespace.split_roles:
                    try:
                        rows = source.rows(chunks)
                    except KeyError:  # not a candidate of this stage: ask the reranker
                        pass
                    else:
                        terms = sorted(set(tokenize(first.query)))
                        found = namespace.lexical.counts(terms, rows)
                        lengths = namespace.lexical.lengths()[rows]
                        return overlap_scores(len(terms), found, lengths)
        return reranker.score(first.query, chunks)

    def finish(self, first: FirstStage, policy: ReferencePolicy | None = None) -> RetrievalResult:
        """Fuse (in hybrid mode), rerank and cut a :class:`FirstStage` to the result."""
        policy = policy or ReferencePolicy()
        degraded = list(first.degraded)
        if policy.mode == "hybrid":
            rankings = (first.lexical, first.dense)
            # Fusion reads the rankings' chunks, positions and scores only: the same
            # rankings fuse to the same candidates. A tuple is known by its identity (it
            # cannot change), anything else by its chunks and scores; the entry keeps the
            # rankings, so no id in its key can be taken by another object while it lives.
            key = (
                "fused",
                policy.limit_unit,
                policy.rrf_k,
                policy.fusion,
                policy.dense_weight,
                policy.candidate_limit,
                tuple(
                    id(r) if type(r) is tuple else tuple((id(s.chunk), s.score) for s in r)
                    for r in rankings
                ),
            )
            known = first.memo.get(key)
            if known is None:
                fused = fuse(
                    *rankings,
                    method=policy.fusion,
                    k=policy.rrf_k,
                    dense_weight=policy.dense_weight,
                    documents=policy.limit_unit == "documents",
                )
                known = first.memo[key] = (
                    rankings,
                    cut(fused, policy.candidate_limit, policy.limit_unit),
                )
            candidates: Sequence[ScoredChunk] = known[1]
        else:
            candidates = first.lexical if policy.mode == "lexical" else first.dense
        final: list[ScoredChunk]
        if not policy.enable_rerank:
            degraded.append("rerank")
            final = cut(candidates, policy.result_limit, policy.limit_unit)
        else:
            try:
                remembered = Remembered(
                    self.reranker,
                    first.reranked.setdefault(id(self.reranker), {}),
                    partial(self.rerank_scores, first),
                )
                final = cut(
                    remembered.rerank(first.query, candidates, policy.rerank_min_score),
                    policy.result_limit,
                    policy.limit_unit,
                )
            except Exception:  # a failed reranker is shed, as under latency pressure
                degraded.append("rerank")
                final = cut(candidates, policy.result_limit, policy.limit_unit)
        return RetrievalResult.made(
            tuple(final),
            tuple(degraded),
            first.considered,
            first.excluded_by_entitlement,
            first.excluded_by_freshness,
        )
