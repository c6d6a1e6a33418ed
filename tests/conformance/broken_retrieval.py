"""Broken implementations with one retrieval defect each: filtering, namespaces, versions,
ties, citations, rerank, barriers, freshness, limits.

Part of the catalogue of :mod:`tests.conformance.broken`.
"""

from __future__ import annotations

from dataclasses import replace

from ragward.analysis import PLAIN, EnglishAnalyzer
from ragward.conformance.records import Asker, Doc, Policy, Result, Span
from ragward.engines.reference import ReferenceSystem, result_of
from ragward.engines.reference_records import reference_asker, reference_policy, section_of
from ragward.reference import (
    AuthorizedRetriever,
    FirstStage,
    ReferenceAsker,
    RetrievalResult,
    ScoredChunk,
    reciprocal_rank_fusion,
    rerank,
)

__all__ = [
    "BarriersIgnored",
    "DepthInChunks",
    "FreshnessIgnored",
    "OlderVersionAccepted",
    "PostFilter",
    "QuestionsNotStemmed",
    "RerankInjects",
    "SharedNamespace",
    "StaleVersions",
    "UnstableTies",
    "WhitespaceCitations",
]


def _citation(doc_id: str, version: int, section: str, start: int, end: int) -> str:
    return f"{doc_id}@v{version}#{section}[{start}:{end}]"


class PostFilter(ReferenceSystem):
    """Post-filtering after top-k.

    Each first stage is ranked as an all-seeing principal of the same tenant would get it
    (clearance ``restricted``, inside every barrier), cut at ``candidate_limit``, and only
    then are the chunks the asker may not see removed — the classic "search, then filter"
    design. Restricted chunks that match the query better take candidate slots, so the
    asker gets fewer (or no) results, and the BM25 statistics include what the asker
    cannot see. The audit count is what was dropped from the candidate lists, not what
    matched.

    Caught by: prefilter (PRE-001..003) and statistics (STAT-001); the wrong counts also
    fail the lifecycle model (LIFE-003..005).
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        retriever = self.retriever
        principal = reference_asker(asker)
        settings = reference_policy(policy)
        namespace = retriever._namespaces.get(asker.tenant)
        barriers = tuple(sorted(namespace._barrier_codes)) if namespace is not None else ()
        auditor = ReferenceAsker("all-seeing", asker.tenant, "restricted", barriers)
        wide = retriever.first_stage(query, auditor, now_tick=now_tick, policy=settings)
        dropped: set[str] = set()

        def admit(ranking: tuple[ScoredChunk, ...]) -> tuple[ScoredChunk, ...]:
            kept = tuple(s for s in ranking if retriever.visible(principal, s.chunk))
            dropped.update(s.chunk.chunk_id for s in ranking)
            dropped.difference_update(s.chunk.chunk_id for s in kept)
            return kept

        first = FirstStage(
            query,
            admit(wide.lexical),
            admit(wide.dense),
            wide.degraded,
            considered=wide.considered,
            excluded_by_entitlement=len(dropped),
            excluded_by_freshness=wide.excluded_by_freshness,
        )
        return result_of(retriever.finish(first, settings))


class SharedNamespace(ReferenceSystem):
    """One shared namespace for every tenant.

    The index is keyed by ``doc_id`` alone: every document is written to one namespace and
    retrieval never checks the asker's tenant (the team relied on "tenants use disjoint
    ids"). One tenant sees another's chunks, the same ``doc_id`` in two tenants collides
    (the second is refused as "not newer", or a newer one overwrites the other tenant's
    document), and deleting in one tenant deletes in the other.

    Caught by: isolation (ISO-001..005, ISO-002 aimed squarely); it also breaks lifecycle,
    prefilter, statistics and determinism (another tenant's data changes results, counts
    and scores) and provenance (a hit resolves against the wrong tenant's text).
    """

    NAMESPACE = "default"

    def ingest(self, doc: Doc) -> bool:
        return super().ingest(replace(doc, tenant=self.NAMESPACE))

    def delete(self, tenant: str, doc_id: str) -> None:
        super().delete(self.NAMESPACE, doc_id)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return super().retrieve(query, replace(asker, tenant=self.NAMESPACE), now_tick, policy)


class StaleVersions(ReferenceSystem):
    """Stale versions left in the index.

    Each version is written under its own internal key (``doc_id::vN``) and mapped back
    to ``doc_id`` on the way out, so an upsert adds the new version without retiring the
    old one. Versions are still checked (an older one is refused) and delete removes every
    version; but after a re-version both versions' chunks are retrievable — superseded
    text, and after a reclassification the old, laxer classification.

    Caught by: isolation (ISO-004, ISO-005), lifecycle (LIFE-001, LIFE-002, LIFE-004,
    LIFE-005) and statistics (STAT-002); the re-versioned citation check PROV-002 too.
    """

    def __init__(self) -> None:
        super().__init__()
        self.latest: dict[tuple[str, str], int] = {}
        self.keys: dict[tuple[str, str], list[str]] = {}
        self.owner: dict[tuple[str, str], str] = {}

    def ingest(self, doc: Doc) -> bool:
        key = (doc.tenant, doc.doc_id)
        if doc.version <= self.latest.get(key, 0):
            return False
        internal = f"{doc.doc_id}::v{doc.version}"
        if not super().ingest(replace(doc, doc_id=internal)):
            return False
        self.latest[key] = doc.version
        self.keys.setdefault(key, []).append(internal)
        self.owner[(doc.tenant, internal)] = doc.doc_id
        return True

    def delete(self, tenant: str, doc_id: str) -> None:
        for internal in self.keys.pop((tenant, doc_id), []):
            super().delete(tenant, internal)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        result = super().retrieve(query, asker, now_tick, policy)
        hits = []
        for hit in result.hits:
            internal, _, number = hit.chunk_id.rpartition("::")
            doc_id = self.owner[(asker.tenant, internal)]
            citation = _citation(
                doc_id,
                hit.version,
                section_of(hit.citation, hit.doc_id, hit.version),
                hit.start,
                hit.end,
            )
            hits.append(
                replace(hit, chunk_id=f"{doc_id}::{number}", doc_id=doc_id, citation=citation)
            )
        return replace(result, hits=tuple(hits))


class UnstableTies(ReferenceSystem):
    """Unstable tie order.

    The final ranking is sorted by score alone with a stable sort over the candidates in
    ingestion order (what ``sorted(key=lambda h: -h.score)`` over an arrival-ordered list
    gives), so equal scores come back in the order documents happened to be ingested —
    and which of several tied chunks makes the ``result_limit`` cut depends on it too.

    Caught by: determinism (DET-001; DET-002 in the thorough profile); hybrid no longer
    follows RRF's tie order (FUS-004).
    """

    def __init__(self) -> None:
        super().__init__()
        self.arrival: dict[tuple[str, str], int] = {}

    def ingest(self, doc: Doc) -> bool:
        if not super().ingest(doc):
            return False
        namespace = self.retriever._namespaces[doc.tenant]
        for row in namespace.docs[doc.doc_id].rows:
            self.arrival[(doc.tenant, namespace.chunks[row].chunk_id)] = len(self.arrival)
        return True

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        wide = replace(policy, result_limit=max(policy.candidate_limit, policy.result_limit))
        result = super().retrieve(query, asker, now_tick, wide)
        order = sorted(result.hits, key=lambda h: self.arrival[(asker.tenant, h.chunk_id)])
        hits = sorted(order, key=lambda h: -h.score)[: policy.result_limit]
        return replace(result, hits=tuple(hits))


class WhitespaceCitations(ReferenceSystem):
    """Citations off by the whitespace.

    The chunker normalises whitespace — a chunk's words are re-joined with single spaces —
    and computes ``end`` as ``start`` plus the joined length (the seed's bug). Wherever the
    source has newlines, tabs or runs of spaces, the returned text is not
    ``document.text[start:end]`` and the citation points at the wrong span.

    Caught by: provenance (PROV-001, PROV-002 on hits; PROV-003, PROV-005 on chunks).
    """

    @staticmethod
    def _joined(text: str, start: int) -> tuple[str, int]:
        joined = " ".join(text.split())
        return joined, start + len(joined)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        result = super().retrieve(query, asker, now_tick, policy)
        hits = []
        for hit in result.hits:
            text, end = self._joined(hit.text, hit.start)
            citation = _citation(
                hit.doc_id,
                hit.version,
                section_of(hit.citation, hit.doc_id, hit.version),
                hit.start,
                end,
            )
            hits.append(replace(hit, text=text, end=end, citation=citation))
        return replace(result, hits=tuple(hits))

    def chunk(self, doc: Doc, max_tokens: int, overlap_tokens: int) -> tuple[Span, ...]:
        spans = super().chunk(doc, max_tokens, overlap_tokens)
        return tuple(
            replace(s, text=joined, end=end)
            for s in spans
            for joined, end in [self._joined(s.text, s.start)]
        )


class RerankInjects(ReferenceSystem):
    """Rerank that injects non-candidates.

    The reranker is fed the raw first-stage pool (a deeper pool, three times
    ``candidate_limit`` from each index, all eligible) instead of the fused top
    ``candidate_limit`` candidates. With rerank on, chunks that fusion had cut come back —
    nothing leaks across entitlement, but ``candidate_limit`` no longer bounds what the
    reranker can return and rerank is no longer a reorder/filter of the candidates.

    Caught by: fusion (FUS-005, rerank only reorders and filters the candidates).
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        if not policy.rerank:
            return super().retrieve(query, asker, now_tick, policy)
        settings = reference_policy(policy)
        deep = replace(settings, candidate_limit=3 * settings.candidate_limit)
        first = self.retriever.first_stage(
            query, reference_asker(asker), now_tick=now_tick, policy=deep
        )
        pool = reciprocal_rank_fusion([r for r in (first.lexical, first.dense) if r])
        final = rerank(
            query,
            pool,
            reranker=self.retriever.reranker,
            limit=settings.result_limit,
            min_score=settings.rerank_min_score,
        )
        return result_of(
            RetrievalResult(
                tuple(final),
                first.degraded,
                first.considered,
                first.excluded_by_entitlement,
                first.excluded_by_freshness,
            )
        )


class BarriersIgnored(ReferenceSystem):
    """Barriers ignored.

    The ingestion pipeline does not map the ``barrier`` field into the index (only
    classification is indexed), so a chunk behind an information barrier is visible to
    every principal of the tenant with enough clearance, inside the barrier or not.

    Caught by: isolation (ISO-001..005); the now-visible chunks also change ids, counts
    and scores (PRE-001..003, STAT-001) and fail the lifecycle model (LIFE-004, LIFE-005).
    """

    def ingest(self, doc: Doc) -> bool:
        return super().ingest(replace(doc, barrier=None))


class FreshnessIgnored(ReferenceSystem):
    """Freshness ignored.

    ``max_stale_ticks`` is accepted but never honoured: stale chunks are returned as if
    fresh and ``excluded_by_freshness`` is always 0.

    Caught by: isolation (ISO-001..005, stale chunks are outside the eligible view); the
    counts and scores are off too (PRE-001..003, STAT-001, LIFE-004, LIFE-005).
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return super().retrieve(query, asker, now_tick, replace(policy, max_stale_ticks=None))


class OlderVersionAccepted(ReferenceSystem):
    """Accepting an older version.

    Ingest is "last write wins": no version comparison, so an out-of-order (older or
    equal) write replaces newer data and is reported as accepted; a deleted document's
    tombstone does not stop an old version from coming back.

    Caught by: lifecycle (LIFE-002, LIFE-004, LIFE-005: an out-of-order write is refused
    and changes nothing).
    """

    def ingest(self, doc: Doc) -> bool:
        namespace = self.retriever._namespaces.get(doc.tenant)
        state = None if namespace is None else namespace.docs.get(doc.doc_id)
        if state is not None and doc.version <= state.version:
            state.version = doc.version - 1  # forget what was there: last write wins
        return super().ingest(doc)


class DepthInChunks(ReferenceSystem):
    """Document limits counted in chunks.

    The adapter declares ``document_limits`` but hands every policy on with
    ``limit_unit = "chunks"``: a document with several matching chunks fills the answer,
    and "recall at k documents" is measured at fewer than k documents.

    Caught by: depth (DEPTH-001).
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return super().retrieve(query, asker, now_tick, replace(policy, limit_unit="chunks"))


class QuestionsNotStemmed(ReferenceSystem):
    """The english analyzer on the index, not on the questions.

    Documents are stemmed and their stop words dropped, as declared (``analyzer =
    "english"``), but each question is split into plain lower-cased words: "payments"
    looks for a term the index no longer holds (it holds "payment"), and a stop word of
    the question finds nothing however often the documents say it. A one-sided analyzer
    is the classic way a stemmed index quietly loses recall.

    Caught by: STAT-005.
    """

    def __init__(self) -> None:
        super().__init__(AuthorizedRetriever(analyzer=EnglishAnalyzer()))

    def ingest(self, doc: Doc) -> bool:
        accepted = super().ingest(doc)  # its chunks analysed by the retriever's (english)
        namespace = self.retriever._namespaces.get(doc.tenant)
        if namespace is not None:
            namespace.analyzer = PLAIN  # what its questions go through: the defect
        return accepted
