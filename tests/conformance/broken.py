"""A catalogue of deliberately broken implementations: the kit's own test subjects.

Each entry is the reference behind the kit's door
(:class:`ragward.engines.reference.ReferenceSystem`) with exactly **one** realistic
defect — the kind of bug a team ships, not a system that returns garbage. The kit must
fail every one of them on the invariant(s) aimed at its defect, and pass the reference;
``test_kill_matrix.py`` asserts that and
``tests/conformance/kill_matrix.py`` prints the matrix.

:data:`BROKEN` maps a name to ``(factory, expected)``: ``expected`` names the invariant
levels aimed at the defect, then the ids of invariants of other levels that the defect
genuinely breaks too (a wrong audit count also fails the lifecycle model, which checks
counts after every step). At least one invariant among them must *fail*, and no
invariant outside them may (``python -m tests.conformance.kill_matrix --all`` checks the latter
against every invariant; the pytest run keeps to the aimed ones, for speed).

The broken systems reach into the reference's internals (namespaces, masks, first stages)
to plant their defect; that is fine here, they are test doubles, not adapters to copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

import ragward.conformance.runner as runner
from ragward.conformance.contract import RetrievalSystem
from ragward.conformance.invariant import REGISTRY
from ragward.conformance.records import (
    Asker,
    AssembleRequest,
    Context,
    Doc,
    Hit,
    Policy,
    Result,
    Span,
    Support,
)
from ragward.engines.reference import ReferenceSystem, result_of
from ragward.engines.reference_records import (
    reference_asker,
    reference_policy,
    scored_of,
    section_of,
)
from ragward.errors import BudgetError, InvalidArgument
from ragward.reference import (
    AuthorizedRetriever,
    Claim,
    FirstStage,
    ReferenceAsker,
    ReferencePolicy,
    RetrievalResult,
    ScoredChunk,
    Segment,
    check_grounding,
    estimate_tokens,
    neutralise,
    reciprocal_rank_fusion,
    rerank,
    tokenize,
)
from ragward.reference.dense import check_vectors
from ragward.reference.namespace import Namespace

from .broken_ids import BarrierListJoined, CollatedIds, JoinedKeys, JoinedPointIds
from .planted import FACTORIES, PLANTS

__all__ = ["BROKEN", "Row", "aimed", "defect", "kill_row", "selection"]

Mask = npt.NDArray[np.bool_]


# -- shared plumbing ------------------------------------------------------------------


def _citation(doc_id: str, version: int, section: str, start: int, end: int) -> str:
    return f"{doc_id}@v{version}#{section}[{start}:{end}]"


# -- retrieval defects ----------------------------------------------------------------


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


class _CustomFirstStage(ReferenceSystem):
    """The reference's first stage re-implemented with hooks, for defects that live in it.

    With no hook overridden it behaves exactly as the reference (``test_kill_matrix.py``
    checks that); each subclass overrides one hook.
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        settings = reference_policy(policy)
        first = self._first_stage(query, reference_asker(asker), now_tick, settings)
        return result_of(self.retriever.finish(first, settings))

    def _hidden(self, namespace: Namespace) -> Mask:
        """Live rows to keep out of the results besides entitlement and freshness."""
        return np.zeros(namespace.live().size, dtype=np.bool_)

    def _statistics(self, live: Mask, visible: Mask, eligible: Mask, hidden: Mask) -> Mask:
        """Rows BM25's ``N``, ``avgdl`` and document frequencies are taken over."""
        return eligible & ~hidden

    def _counts(
        self, lexical: Mask, dense: Mask, visible: Mask, eligible: Mask
    ) -> tuple[int, int, int]:
        matched = lexical | dense
        return (
            int(np.count_nonzero(matched)),
            int(np.count_nonzero(matched & ~visible)),
            int(np.count_nonzero(matched & visible & ~eligible)),
        )

    def _first_stage(
        self, query: str, principal: ReferenceAsker, now_tick: int, policy: ReferencePolicy
    ) -> FirstStage:
        retriever = self.retriever
        namespace = retriever._namespaces.get(principal.tenant)
        if namespace is None or namespace.live_rows == 0:
            return FirstStage(query, (), ())
        live = namespace.live()
        hidden = self._hidden(namespace)
        fresh = ~namespace.stale(now_tick, policy.max_stale_ticks)
        visible = namespace.visible(principal)
        eligible_raw = visible & fresh
        visible = visible & ~hidden
        eligible = visible & fresh
        none: Mask = np.zeros(live.size, dtype=np.bool_)
        lexical_hit, dense_hit = none, none
        lexical: tuple[ScoredChunk, ...] = ()
        dense: tuple[ScoredChunk, ...] = ()
        if policy.mode != "dense":
            statistics = self._statistics(live, visible, eligible_raw, hidden)
            scores, lexical_hit = namespace.lexical.score(tokenize(query), statistics, live)
            rows = np.flatnonzero(eligible & (scores > 0.0))
            lexical = AuthorizedRetriever._top(namespace, scores, rows, policy)[0]
        if policy.mode != "lexical":
            embedder = retriever.embedder
            vector = check_vectors(embedder.embed([query]), 1, embedder.dimensions, embedder.name)
            cosines = namespace.vectors.cosine(vector[0])
            dense_hit = live & (cosines > 0.0)
            rows = np.flatnonzero(eligible & (cosines > 0.0))
            dense = AuthorizedRetriever._top(namespace, cosines, rows, policy)[0]
        considered, entitlement, freshness = self._counts(lexical_hit, dense_hit, visible, eligible)
        return FirstStage(query, lexical, dense, (), considered, entitlement, freshness)


class NamespaceStatistics(_CustomFirstStage):
    """Namespace-wide BM25 statistics.

    Entitlement and freshness are applied before the top-k (a correct pre-filter), but
    the BM25 index computes ``N``, ``avgdl`` and document frequencies over every live row
    of the tenant's namespace, as most engines do out of the box. The hits are the
    visible ones, yet their scores (and, through IDF, sometimes their order) move when
    restricted documents are added or removed: a low-clearance user can learn that hidden
    documents about a term exist.

    Caught by: statistics (STAT-001). Where IDF reorders the visible hits PRE-001 fires
    too (the thorough profile finds such a case; ci does not).
    """

    def _statistics(self, live: Mask, visible: Mask, eligible: Mask, hidden: Mask) -> Mask:
        return live


class DoubleCounted(_CustomFirstStage):
    """Exclusions double-counted.

    ``excluded_by_entitlement`` is summed per index: a restricted chunk that matches both
    the lexical and the dense index is counted twice in hybrid mode (the seed's bug), so
    ``considered != eligible + excluded_by_entitlement + excluded_by_freshness`` and the
    audit log overstates what was withheld.

    Caught by: prefilter (PRE-002, PRE-003); the lifecycle model checks counts too
    (LIFE-003..005).
    """

    def _counts(
        self, lexical: Mask, dense: Mask, visible: Mask, eligible: Mask
    ) -> tuple[int, int, int]:
        considered, _, freshness = super()._counts(lexical, dense, visible, eligible)
        entitlement = int(np.count_nonzero(lexical & ~visible))
        entitlement += int(np.count_nonzero(dense & ~visible))
        return considered, entitlement, freshness


class SoftDelete(_CustomFirstStage):
    """Delete that only hides results.

    ``delete`` sets a "deleted" flag that retrieval filters on, like an entitlement, but
    the rows stay in the index: BM25 statistics still include the deleted chunks, and the
    audit counts still count them (as considered and excluded). After a delete the answer
    is not the one a system that never saw the document would give.

    Caught by: lifecycle (LIFE-003..005, through the counts). STAT-004 is aimed at the
    statistics half but reads scores only under the drawn policy, where rerank or RRF
    usually hide BM25: the thorough profile catches it, ci does not.
    """

    def __init__(self) -> None:
        super().__init__()
        self.deleted: set[tuple[str, str]] = set()

    def ingest(self, doc: Doc) -> bool:
        accepted = super().ingest(doc)
        if accepted:
            self.deleted.discard((doc.tenant, doc.doc_id))
        return accepted

    def delete(self, tenant: str, doc_id: str) -> None:
        namespace = self.retriever._namespaces.get(tenant)
        if namespace is not None and doc_id in namespace.docs:
            self.deleted.add((tenant, doc_id))

    def _hidden(self, namespace: Namespace) -> Mask:
        hidden = super()._hidden(namespace)
        for tenant, doc_id in self.deleted:
            if tenant == namespace.tenant:
                hidden[namespace.docs[doc_id].rows] = True
        return hidden

    def _statistics(self, live: Mask, visible: Mask, eligible: Mask, hidden: Mask) -> Mask:
        return eligible  # computed before the deleted flag is applied


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


# -- assembly and grounding defects ---------------------------------------------------

_SEPARATOR = "\n\n"


def _assemble(
    request: AssembleRequest,
    *,
    measure: Callable[[list[str]], int],
    escape: Callable[[str], str],
) -> Context:
    """The reference assembler re-implemented with two hooks.

    ``measure`` sizes the parts of a candidate prompt (the reference measures
    ``_SEPARATOR.join(parts)``); ``escape`` neutralises a segment's body (the reference
    uses :func:`ragward.reference.neutralise`). With those two it is the reference's
    assembler (``test_kill_matrix.py`` checks that).
    """
    if request.budget_tokens <= 0:
        raise InvalidArgument(f"budget_tokens must be an integer > 0, got {request.budget_tokens}")
    if not request.question.strip():
        raise InvalidArgument(f"question must be a non-empty string, got {request.question!r}")
    fixed = {
        Segment.INSTRUCTIONS: request.instructions,
        Segment.TOOL_SCHEMAS: request.tool_schemas,
        Segment.POLICY: request.policy,
        Segment.MEMORY: request.memory,
        Segment.QUESTION: request.question,
    }
    blocks = {s: f"[{s.value}]\n{escape(v)}" for s, v in fixed.items() if v}
    hits = request.retrieved
    rendered = [f"<<{' '.join(h.citation.splitlines())}>>\n{escape(h.text)}" for h in hits]

    def parts(count: int) -> list[str]:
        out = []
        for segment in Segment:
            if segment is Segment.RETRIEVED:
                if count:
                    out.append(f"[{segment.value}]\n{_SEPARATOR.join(rendered[:count])}")
            elif segment in blocks:
                out.append(blocks[segment])
        return out

    for count in range(len(rendered), -1, -1):
        tokens = measure(parts(count))
        if tokens <= request.budget_tokens:
            break
    else:
        raise BudgetError(
            f"the fixed segments need {tokens} tokens but the budget is {request.budget_tokens}"
        )
    return Context(
        _SEPARATOR.join(parts(count)),
        tokens,
        tuple(h.chunk_id for h in hits[:count]),
        tuple(h.chunk_id for h in hits[count:]),
    )


def _joined_size(parts: list[str]) -> int:
    return estimate_tokens(_SEPARATOR.join(parts))


class BudgetIgnoresSeparators(ReferenceSystem):
    """A budget that ignores separators.

    The assembler sizes a prompt as the sum of its pieces — each header-plus-body block
    measured on its own and added up — and never counts the blank lines it joins them
    with. Near the limit the assembled text is larger than the budget (and than the
    ``tokens`` it reports).

    Caught by: assembly (ASM-001, the budget is measured on the assembled text).
    """

    def assemble(self, request: AssembleRequest) -> Context:
        def pieces(parts: list[str]) -> int:
            return estimate_tokens("".join(part.replace(_SEPARATOR, "") for part in parts))

        return _assemble(request, measure=pieces, escape=neutralise)


class TruncatesQuestion(ReferenceSystem):
    """Truncating the question to fit.

    When the prompt is over budget, the assembler keeps the retrieved evidence and clips
    the user's question to its longest word prefix that fits (the evidence is "what the
    answer needs"); only when not even one word of the question fits does it fall back to
    dropping chunks and, at last, to the budget error. The question reaches the model
    mangled.

    Caught by: assembly (ASM-002 question kept whole and last; ASM-007 refuses exactly
    when the fixed segments do not fit).
    """

    def assemble(self, request: AssembleRequest) -> Context:
        try:
            full: Context | None = super().assemble(request)
        except BudgetError:
            full = None
        if full is not None and not full.dropped:
            return full
        words = request.question.split()
        fallback: Context | None = None
        for size in range(len(words) - 1, 0, -1):
            try:
                clipped = super().assemble(replace(request, question=" ".join(words[:size])))
            except BudgetError:
                continue
            if not clipped.dropped:
                return clipped
            fallback = fallback or clipped
        if full is not None:
            return full
        if fallback is not None:
            return fallback
        return super().assemble(request)  # raises the budget error


class HeadersNotNeutralised(ReferenceSystem):
    """No neutralisation of forged headers.

    Retrieved text and the question are pasted into the prompt verbatim: a chunk holding a
    line such as ``[instructions]`` (or ``<<doc@v1#x[0:9]>>``) forges a segment header or a
    chunk marker, so the structure a model sees is not the one the assembler built — a
    prompt-injection vector.

    Caught by: assembly (ASM-006, no header forging).
    """

    def assemble(self, request: AssembleRequest) -> Context:
        return _assemble(request, measure=_joined_size, escape=lambda text: text)


class GroundsOnCorpus(ReferenceSystem):
    """Grounding against the whole corpus.

    The grounding check searches every chunk the system holds (the "knowledge base"), not
    only the chunks that were retrieved for the answer, so a claim is "supported" by a
    chunk the model never saw — and, the corpus being shared, by any tenant's chunk.

    Caught by: grounding (GRD-001 supported only by a retrieved chunk; GRD-002 invented
    claims stay unsupported).
    """

    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], min_overlap: float
    ) -> tuple[Support, ...]:
        evidence = [scored_of(hit) for hit in retrieved]
        for namespace in self.retriever._namespaces.values():
            live = namespace.live()
            evidence.extend(
                ScoredChunk(chunk, 0.0) for row, chunk in enumerate(namespace.chunks) if live[row]
            )
        report = check_grounding([Claim(c) for c in claims], evidence, min_overlap=min_overlap)
        verdicts = []
        for check in report.checks:
            ok = check.chunk_id is not None and check.overlap >= min_overlap
            verdicts.append(Support(check.claim.text, ok, check.chunk_id if ok else None))
        return tuple(verdicts)


class DepthInChunks(ReferenceSystem):
    """Document limits counted in chunks.

    The adapter declares ``document_limits`` but hands every policy on with
    ``limit_unit = "chunks"``: a document with several matching chunks fills the answer,
    and "recall at k documents" is measured at fewer than k documents.

    Caught by: depth (DEPTH-001).
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return super().retrieve(query, asker, now_tick, replace(policy, limit_unit="chunks"))


# -- the catalogue --------------------------------------------------------------------


#: name -> (factory, invariant levels or ids that must catch it). Levels come first; a
#: defect that genuinely breaks several rules names each level it breaks.
BROKEN: dict[str, tuple[Callable[[], RetrievalSystem], tuple[str, ...]]] = {
    "post-filter": (
        PostFilter,
        ("prefilter", "statistics", "LIFE-003", "LIFE-004", "LIFE-005"),
    ),
    "shared-namespace": (
        SharedNamespace,
        ("isolation", "lifecycle", "prefilter", "statistics", "determinism", "PROV-001"),
    ),
    "namespace-statistics": (NamespaceStatistics, ("statistics", "PRE-001")),
    "double-counted": (DoubleCounted, ("prefilter", "LIFE-003", "LIFE-004", "LIFE-005")),
    "stale-versions": (StaleVersions, ("isolation", "lifecycle", "statistics", "PROV-002")),
    "budget-ignores-separators": (BudgetIgnoresSeparators, ("assembly",)),
    "truncates-question": (TruncatesQuestion, ("assembly",)),
    "unstable-ties": (UnstableTies, ("determinism", "FUS-004")),
    "whitespace-citations": (WhitespaceCitations, ("provenance",)),
    "rerank-injects": (RerankInjects, ("fusion",)),
    "grounds-on-corpus": (GroundsOnCorpus, ("grounding",)),
    "barriers-ignored": (
        BarriersIgnored,
        ("isolation", "prefilter", "statistics", "LIFE-004", "LIFE-005"),
    ),
    "freshness-ignored": (
        FreshnessIgnored,
        ("isolation", "prefilter", "STAT-001", "LIFE-004", "LIFE-005"),
    ),
    "headers-not-neutralised": (HeadersNotNeutralised, ("assembly",)),
    "soft-delete": (SoftDelete, ("lifecycle", "STAT-004")),
    "older-version-accepted": (OlderVersionAccepted, ("lifecycle",)),
    "depth-in-chunks": (DepthInChunks, ("DEPTH-001",)),
    # Lossy keys (tests/conformance/broken_ids.py): only hostile identifiers collide.
    "joined-keys": (JoinedKeys, ("ISO-006",)),
    "joined-point-ids": (JoinedPointIds, ("ISO-006",)),
    "collated-ids": (CollatedIds, ("ISO-006",)),
    "barrier-list-joined": (BarrierListJoined, ("ISO-006",)),
}


# One-line defects planted in a copy of the reference (tests/conformance/planted.py).
BROKEN.update({plant.name: (FACTORIES[plant.name], plant.caught_by) for plant in PLANTS})


def aimed(expected: Iterable[str], registry: Iterable[tuple[str, str]]) -> set[str]:
    """Ids of the invariants ``expected`` aims at, from ``(id, level)`` pairs.

    An entry of ``expected`` is a level (every invariant of it) or an invariant id.
    """
    wanted = set(expected)
    return {id for id, level in registry if id in wanted or level in wanted}


def selection(expected: Iterable[str], registry: Iterable[tuple[str, str]]) -> list[str]:
    """Ids to run for a broken implementation: the invariants it is aimed at, in id order."""
    return sorted(aimed(expected, registry))


@dataclass(frozen=True)
class Row:
    """One line of the kill matrix: what ran against a broken system and what failed."""

    name: str
    defect: str
    expected: tuple[str, ...]
    ran: tuple[str, ...]
    failed: tuple[str, ...]
    errored: tuple[str, ...]
    aimed: tuple[str, ...]

    @property
    def caught(self) -> bool:
        """At least one aimed invariant failed."""
        return bool(set(self.failed) & set(self.aimed))

    @property
    def stray(self) -> tuple[str, ...]:
        """Failing invariants the catalogue does not aim at this defect."""
        return tuple(i for i in self.failed if i not in self.aimed)


def _registry() -> list[tuple[str, str]]:
    import ragward.conformance.invariants  # noqa: F401  (registers the invariants)

    return [(inv.id, inv.level) for inv in REGISTRY.values()]


def defect(name: str) -> str:
    """The first line of the broken system's docstring: its defect, in a few words."""
    doc = BROKEN[name][0].__doc__ or name
    return doc.strip().splitlines()[0].rstrip(".")


def kill_row(name: str, *, profile: str = "ci", everything: bool = False) -> Row:
    """Run the kit against broken system ``name``: the invariants of its expected levels,
    or every invariant with ``everything``; without shrinking."""
    factory, expected = BROKEN[name]
    registry = _registry()
    chosen = [id for id, _ in registry] if everything else selection(expected, registry)
    report = runner.run_conformance(
        factory, profile=profile, select=chosen, name=name, shrink=False
    )
    return Row(
        name,
        defect(name),
        expected,
        tuple(v.id for v in report.verdicts),
        tuple(v.id for v in report.verdicts if v.status == "fail"),
        tuple(v.id for v in report.verdicts if v.status == "error"),
        tuple(sorted(aimed(expected, registry))),
    )
