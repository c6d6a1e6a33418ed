"""The reference, seen through the conformance kit's door.

:class:`ReferenceSystem` adapts :class:`ragward.reference.AuthorizedRetriever` and its
companions to :class:`ragward.conformance.RetrievalSystem`; the kit checks the reference
through this adapter exactly as it checks any other implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial
from operator import attrgetter, itemgetter
from typing import cast

from ragward.analysis import ANALYZERS, PLAIN, analyzer_named
from ragward.conformance import records
from ragward.conformance.contract import Capabilities, HitKey, Listing
from ragward.engines.reference_records import (
    hit_of,
    reference_asker,
    reference_doc,
    reference_policy,
    scored_of,
)
from ragward.errors import InvalidArgument, VersionConflict
from ragward.models.identity import model_identity
from ragward.models.registry import embedder_named, reranker_named
from ragward.reference import (
    AuthorizedRetriever,
    Chunk,
    Chunking,
    Claim,
    FirstStage,
    GroundingChecker,
    GroundingReport,
    HashEmbedder,
    LexicalOverlapChecker,
    ReferencePolicy,
    RetrievalResult,
    ScoredChunk,
    assemble_context,
    chunk_document,
    cut,
    estimate_tokens,
    reciprocal_rank_fusion,
)
from ragward.reference.counters import counter_named
from ragward.reference.finishing import StageTable
from ragward.reference.grounding import reaches

__all__ = [
    "ReferenceSystem",
    "reference_factory",
    "result_of",
]

_CAPABILITIES = Capabilities(
    modes=("hybrid", "lexical", "dense"),
    rerank_toggle=True,
    policy_knobs=True,
    chunking=True,
    assembly=True,
    grounding=True,
    fusion=True,
    document_limits=True,
    fusion_methods=records.FUSION_METHODS,
    fusion_weights=True,
    analyzer="plain",
)


class HitMemo:
    """The kit's hits made from one stage's scored chunks, kept for the next setting that
    returns them: by the identity of each ``ScoredChunk`` (one per chunk and score in a stage:
    fusion and rerank remember theirs) and, for each chunk, the first hit made of it.
    Entries keep what their key is the id of, so no other object can take that id while
    they live."""

    def __init__(self) -> None:
        self.by_scored: dict[int, tuple[ScoredChunk, records.Hit]] = {}
        self.by_chunk: dict[int, tuple[Chunk, records.Hit]] = {}

    def hits(self, chunks: Sequence[ScoredChunk]) -> tuple[records.Hit, ...]:
        by_scored, by_chunk = self.by_scored, self.by_chunk
        ids = list(map(id, chunks))
        try:
            return tuple(map(_SECOND, map(by_scored.__getitem__, ids)))
        except KeyError:  # some not made yet: make them, each once
            pass
        for key, scored in zip(ids, chunks, strict=True):
            if key in by_scored:
                continue
            chunk = scored.chunk
            first = by_chunk.get(id(chunk))
            if first is None:
                hit = hit_of(scored)
                by_chunk[id(chunk)] = (chunk, hit)
            else:  # a copy of the chunk's first hit with this score: nothing recomputed
                hit = _rescored(first[1], scored.score)
            by_scored[key] = (scored, hit)
        return tuple(map(_SECOND, map(by_scored.__getitem__, ids)))


_SECOND = itemgetter(1)
_CHUNK_ID = attrgetter("chunk_id")
_DOC_ID = attrgetter("doc_id")
_VERSION = attrgetter("doc_version")


def _narrowed(stage: FirstStage, which: str, policy: ReferencePolicy) -> tuple[ScoredChunk, ...]:
    """The stage's ``which`` ranking cut at the policy's candidate limit: the stage's own
    tuple where the cut keeps all of it, and one tuple per limit (kept in the stage's
    memo), so that finishes under one limit fuse the same rankings."""
    key = ("narrowed", which, policy.candidate_limit, policy.limit_unit)
    known: tuple[ScoredChunk, ...] | None = stage.memo.get(key)
    if known is None:
        ranking: tuple[ScoredChunk, ...] = getattr(stage, which)
        kept = cut(ranking, policy.candidate_limit, policy.limit_unit)
        known = stage.memo[key] = ranking if len(kept) == len(ranking) else tuple(kept)
    return known


def _supports(
    claims: tuple[str, ...], best: tuple[tuple[float, str | None], ...], min_overlap: float
) -> tuple[records.Support, ...]:
    """Each claim's verdict at ``min_overlap`` from its best overlap and chunk."""
    supports = []
    for text, (overlap, chunk_id) in zip(claims, best, strict=True):
        ok = chunk_id is not None and reaches(overlap, min_overlap)
        supports.append(records.Support(text, ok, chunk_id if ok else None))
    return tuple(supports)


def _listing_of(result: records.Result, top: int) -> Listing:
    hits = tuple(result.hits)
    return Listing(tuple((h.chunk_id, h.doc_id, h.version) for h in hits), hits[:top])


def _a_share(threshold: object) -> bool:
    """Whether ``threshold`` is a share the lexical check accepts (a number in (0, 1])."""
    return (
        not isinstance(threshold, bool)
        and isinstance(threshold, int | float)
        and 0.0 < threshold <= 1.0
    )


def _hit_memo(stage: FirstStage) -> HitMemo:
    memo: HitMemo | None = stage.memo.get("hits")
    if memo is None:
        memo = stage.memo["hits"] = HitMemo()
    return memo


#: How many converted policies an adapter keeps (then it starts again).
_POLICIES_KEPT = 1 << 10

#: How many grounded hits an adapter keeps converted (then it starts again).
_GROUNDED_KEPT = 1 << 16


def result_of(result: RetrievalResult, memo: HitMemo | None = None) -> records.Result:
    """The kit's result for a reference result; ``memo`` (a stage's) keeps the hits made
    for the next setting finished from the stage."""
    hits = tuple(map(hit_of, result.chunks)) if memo is None else memo.hits(result.chunks)
    return records.Result(
        hits=hits,
        considered=result.considered,
        excluded_by_entitlement=result.excluded_by_entitlement,
        excluded_by_freshness=result.excluded_by_freshness,
        degraded=result.degraded,
    )


def _rescored(hit: records.Hit, score: float) -> records.Hit:
    """``hit`` with ``score``: its fields copied as they are (what ``dataclasses.replace``
    gives, in a third of the time of the frozen ``__init__``)."""
    fresh = object.__new__(records.Hit)
    fields = fresh.__dict__
    fields.update(hit.__dict__)
    fields["score"] = score
    return fresh


class ReferenceSystem:
    """One empty reference retriever behind the kit's contract.

    Besides the kit's verbs it offers the evals' staged retrieval
    (:class:`ragward.conformance.contract.StagedSystem`): :meth:`first_stage` computes both
    first-stage rankings once, :meth:`finish` turns them into the answer of any policy
    that differs only in mode, fusion, rerank or a smaller ``candidate_limit``.
    """

    capabilities = _CAPABILITIES

    def __init__(self, retriever: AuthorizedRetriever | None = None) -> None:
        self.retriever = retriever or AuthorizedRetriever()
        # the class's capabilities (a subclass may narrow them), with the analyzer named
        # where it is one of ragward's
        name = self.retriever.analyzer.name
        named = name if name in ANALYZERS else None
        if named != type(self).capabilities.analyzer:
            self.capabilities = replace(type(self).capabilities, analyzer=named)
        # The reference's chunk for each hit grounded lately, by the hit's identity (the
        # entry keeps the hit, so no other object takes its id): a grid grounds the same
        # top hits under every threshold and many settings.
        self._grounded: dict[int, tuple[records.Hit, ScoredChunk]] = {}
        self._policies: dict[records.Policy, ReferencePolicy] = {}
        self._overlaps: dict[
            tuple[tuple[str, ...], tuple[int, ...]],
            tuple[tuple[records.Hit, ...], tuple[tuple[float, str | None], ...]],
        ] = {}

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them (see
        :mod:`ragward.models.identity`)."""
        embedder = model_identity(self.retriever.embedder)
        return f"embedder {embedder}; reranker {model_identity(self.retriever.reranker)}"

    def ingest(self, doc: records.Doc) -> bool:
        try:
            self.retriever.ingest(reference_doc(doc))
        except VersionConflict:
            return False
        return True

    def ingest_many(self, docs: Iterable[records.Doc]) -> tuple[bool, ...]:
        """The evals' bulk verb: documents (any iterable, read once) in order, chunks
        embedded in batches."""
        done = self.retriever.ingest_many([reference_doc(doc) for doc in docs])
        return tuple(chunks is not None for chunks in done)

    def delete(self, tenant: str, doc_id: str) -> None:
        self.retriever.delete(tenant, doc_id)

    def retrieve(
        self, query: str, asker: records.Asker, now_tick: int, policy: records.Policy
    ) -> records.Result:
        result = self.retriever.retrieve(
            query, reference_asker(asker), now_tick=now_tick, policy=reference_policy(policy)
        )
        return result_of(result)

    def first_stage(
        self, query: str, asker: records.Asker, now_tick: int, policy: records.Policy
    ) -> FirstStage:
        """Both first-stage rankings, cut at ``policy.candidate_limit``, for any mode."""
        wide = reference_policy(policy)
        return self.retriever.first_stage(
            query, reference_asker(asker), now_tick=now_tick, policy=replace(wide, mode="hybrid")
        )

    def first_stages(
        self, queries: Iterable[str], asker: records.Asker, now_tick: int, policy: records.Policy
    ) -> list[FirstStage]:
        """:meth:`first_stage` of each of ``queries``: the asker's view taken once, the
        dense scans of a block of questions in one matrix product. A subclass that
        answers :meth:`first_stage` its own way gets it asked once per question."""
        if type(self).first_stage is not ReferenceSystem.first_stage:
            return [self.first_stage(query, asker, now_tick, policy) for query in queries]
        wide = reference_policy(policy)
        return self.retriever.first_stages(
            list(queries),
            reference_asker(asker),
            now_tick=now_tick,
            policy=replace(wide, mode="hybrid"),
        )

    def finish(self, stage: object, policy: records.Policy) -> records.Result:
        """The answer under ``policy`` from a :meth:`first_stage` taken with a policy whose
        ``candidate_limit`` is at least ``policy.candidate_limit``.

        Top-k by ``(-score, chunk_id)`` is prefix-consistent, and so is the cut at document
        depth, so cutting a wider ranking gives exactly the narrower one. The hits equal
        :meth:`retrieve`'s; the audit counts are the stage's (both indexes), which a
        lexical- or dense-only retrieve would not count the same way.
        """
        finished = self._finished(stage, policy)
        return result_of(finished, _hit_memo(cast(FirstStage, stage)))

    def finish_listings(
        self, stage: object, policies: Iterable[records.Policy], top: int
    ) -> tuple[Listing, ...]:
        """:meth:`finish` under each of ``policies``, as the grid reads it
        (:class:`ragward.conformance.contract.Listing`), every policy finished from one
        :class:`~ragward.reference.finishing.StageTable` of the stage: each hit's key made
        once per chunk of the stage, and the first ``top`` hits whole. A subclass that
        answers :meth:`finish` its own way gets its answers read."""
        if type(self).finish is not ReferenceSystem.finish:  # a subclass's own finish
            return tuple(_listing_of(self.finish(stage, policy), top) for policy in policies)
        if not isinstance(stage, FirstStage):
            raise InvalidArgument(f"finish expects a FirstStage, got {type(stage).__name__}")
        table: StageTable | None = stage.memo.get("table")
        if table is None:
            table = stage.memo["table"] = StageTable(stage)
            chunks = table.chunks
            stage.memo["keys"] = list(
                zip(
                    map(_CHUNK_ID, chunks), map(_DOC_ID, chunks), map(_VERSION, chunks), strict=True
                )
            )
            stage.memo["first hits"] = [None] * len(chunks)
        keys: list[HitKey] = stage.memo["keys"]
        # each position's first hit made; another score gives a copy with that score
        made: list[records.Hit | None] = stage.memo["first hits"]
        reranker = self.retriever.reranker
        score = partial(self.retriever.rerank_scores, stage)
        listings = []
        for policy in policies:
            finished = table.finish(self._policy_of(policy), reranker, score)
            places = finished.positions.tolist()
            heads = []
            for place, value in zip(places[:top], finished.scores[:top].tolist(), strict=True):
                hit = made[place]
                if hit is None:
                    hit = made[place] = hit_of(ScoredChunk(table.chunks[place], value))
                    self._ground_with(hit, ScoredChunk(table.chunks[place], value))
                elif hit.score != value or value == 0.0:  # (a zero may carry a sign)
                    hit = _rescored(hit, value)
                    self._ground_with(hit, ScoredChunk(table.chunks[place], value))
                heads.append(hit)
            listings.append(Listing(tuple(map(keys.__getitem__, places)), tuple(heads)))
        return tuple(listings)

    def _policy_of(self, policy: records.Policy) -> ReferencePolicy:
        """:func:`~ragward.engines.reference_records.reference_policy`, remembered: a grid
        asks the same few policies of every stage."""
        known = self._policies.get(policy)
        if known is None:
            if len(self._policies) >= _POLICIES_KEPT:
                self._policies.clear()
            known = self._policies[policy] = reference_policy(policy)
        return known

    def _finished(self, stage: object, policy: records.Policy) -> RetrievalResult:
        if not isinstance(stage, FirstStage):
            raise InvalidArgument(f"finish expects a FirstStage, got {type(stage).__name__}")
        narrow = reference_policy(policy)
        lexical = _narrowed(stage, "lexical", narrow) if narrow.mode != "dense" else ()
        dense = _narrowed(stage, "dense", narrow) if narrow.mode != "lexical" else ()
        return self.retriever.finish(stage.narrowed(lexical, dense), narrow)

    def chunk(
        self, doc: records.Doc, max_tokens: int, overlap_tokens: int
    ) -> tuple[records.Span, ...]:
        chunks = chunk_document(
            reference_doc(doc),
            max_tokens=max_tokens,
            overlap_tokens=overlap_tokens,
            token_counter=self.retriever.token_counter,
        )
        return tuple(
            records.Span(c.chunk_id, c.section, c.start_char, c.end_char, c.text) for c in chunks
        )

    def assemble(self, request: records.AssembleRequest) -> records.Context:
        context = assemble_context(
            budget_tokens=request.budget_tokens,
            instructions=request.instructions,
            question=request.question,
            tool_schemas=request.tool_schemas,
            policy=request.policy,
            memory=request.memory,
            retrieved=[scored_of(hit) for hit in request.retrieved],
            token_counter=self.retriever.token_counter,
        )
        return records.Context(
            context.text, context.tokens, context.included_chunks, context.dropped_chunks
        )

    def embedder_truncation(self) -> tuple[int, int, int] | None:
        """``(truncated, embedded, limit)``: chunks the embedder cut at its input limit
        (:meth:`AuthorizedRetriever.truncation`); the evals report it."""
        return self.retriever.truncation()

    def count_tokens(self, text: str) -> int:
        return self.retriever.token_counter(text)

    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[records.Hit, ...], min_overlap: float
    ) -> tuple[records.Support, ...]:
        checker = self.retriever.grounding
        if type(checker) is LexicalOverlapChecker and _a_share(min_overlap):
            # Its verdict is "best overlap reaches the threshold", the best found whatever
            # the threshold: found once per claims and hits, read under every threshold.
            return _supports(claims, self._best_overlaps(checker, claims, retrieved), min_overlap)
        report = self._checked(checker, claims, retrieved, min_overlap)
        verdicts = []
        for check in report.checks:
            ok = check.supported and check.chunk_id is not None
            verdicts.append(records.Support(check.claim.text, ok, check.chunk_id if ok else None))
        return tuple(verdicts)

    def ground_sweep(
        self,
        claims: tuple[str, ...],
        retrieved: tuple[records.Hit, ...],
        thresholds: Iterable[float],
    ) -> list[tuple[records.Support, ...]]:
        """:meth:`ground` under each of ``thresholds`` (the evals' sweep of
        ``grounding.min_overlap``), the best overlaps found once. A subclass that grounds
        its own way gets :meth:`ground` asked per threshold."""
        thresholds = list(thresholds)  # read once: a generator has no second pass
        checker = self.retriever.grounding
        if (
            type(self).ground is ReferenceSystem.ground
            and type(checker) is LexicalOverlapChecker
            and all(map(_a_share, thresholds))
        ):
            best = self._best_overlaps(checker, claims, retrieved)
            return [_supports(claims, best, threshold) for threshold in thresholds]
        return [self.ground(claims, retrieved, threshold) for threshold in thresholds]

    def _checked(
        self,
        checker: GroundingChecker,
        claims: tuple[str, ...],
        retrieved: tuple[records.Hit, ...],
        threshold: float,
    ) -> GroundingReport:
        report = checker.check(
            [Claim(text) for text in claims],
            [self._scored_for_grounding(hit) for hit in retrieved],
            threshold=threshold,
        )
        if len(report.checks) != len(claims):
            raise InvalidArgument(
                f"grounding checker {checker.name!r} returned {len(report.checks)} checks "
                f"for {len(claims)} claims"
            )
        return report

    def _best_overlaps(
        self, checker: GroundingChecker, claims: tuple[str, ...], retrieved: tuple[records.Hit, ...]
    ) -> tuple[tuple[float, str | None], ...]:
        """Each claim's best overlap with ``retrieved`` and the chunk giving it, kept by the
        claims and the hits' identities (the entry keeps the hits, so no id is reused)."""
        key = (claims, tuple(map(id, retrieved)))
        known = self._overlaps.get(key)
        if known is None:
            if len(self._overlaps) >= _GROUNDED_KEPT:
                self._overlaps.clear()
            report = self._checked(checker, claims, retrieved, 1.0)
            best = tuple((check.overlap, check.chunk_id) for check in report.checks)
            known = self._overlaps[key] = (retrieved, best)
        return known[1]

    def _scored_for_grounding(self, hit: records.Hit) -> ScoredChunk:
        known = self._grounded.get(id(hit))
        if known is None:
            return self._ground_with(hit, scored_of(hit))
        return known[1]

    def _ground_with(self, hit: records.Hit, scored: ScoredChunk) -> ScoredChunk:
        """Remember ``scored`` as what ``hit`` is grounded as: the reference's own chunk,
        for a hit this adapter made from it (no chunk rebuilt from the hit's fields)."""
        if len(self._grounded) >= _GROUNDED_KEPT:
            self._grounded.clear()
        self._grounded[id(hit)] = (hit, scored)
        return scored

    def fuse(
        self, rankings: tuple[tuple[str, ...], ...], k: float
    ) -> tuple[tuple[str, float], ...]:
        lists = [
            [scored_of(records.Hit(cid, "", 1, 0, 0, "", 0.0)) for cid in ranking]
            for ranking in rankings
        ]
        fused = reciprocal_rank_fusion(lists, k=k)
        return tuple((s.chunk.chunk_id, s.score) for s in fused)


def reference_factory(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    reranker: str | None = None,
    grounding: GroundingChecker | None = None,
    lexical_max_tokens: int | None = None,
    lexical_overlap_tokens: int = 0,
    analyzer: str | None = None,
    token_counter: str | None = None,
) -> ReferenceSystem:
    """A fresh reference system: the factory ``ragward conform`` uses by default.

    The evals pass index settings by keyword (chunk size and overlap in tokens, an
    embedder name, a reranker name: see :mod:`ragward.models.registry`; a chunk size of
    the lexical index's own); unset ones keep the reference's defaults. ``grounding``
    replaces the lexical-overlap grounding check with a team's own
    :class:`~ragward.reference.GroundingChecker`. ``analyzer`` names how the lexical
    index and its questions cut text (:mod:`ragward.analysis`; ``plain`` when
    unset); ``token_counter`` what chunk sizes and context budgets count
    (:mod:`ragward.reference.counters`; ``chars4`` when unset).
    """
    defaults = Chunking()
    chunking = Chunking(
        defaults.max_tokens if max_tokens is None else max_tokens,
        defaults.overlap_tokens if overlap_tokens is None else overlap_tokens,
        lexical_max_tokens,
        lexical_overlap_tokens,
    )
    retriever = AuthorizedRetriever(
        embedder=HashEmbedder() if embedder is None else embedder_named(embedder),
        chunking=chunking,
        analyzer=PLAIN if analyzer is None else analyzer_named(analyzer),
        token_counter=estimate_tokens if token_counter is None else counter_named(token_counter),
    )
    if reranker is not None:
        retriever.reranker = reranker_named(reranker)
    if grounding is not None:
        retriever.grounding = grounding
    return ReferenceSystem(retriever)
