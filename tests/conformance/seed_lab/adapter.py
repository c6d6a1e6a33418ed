"""The seed lab's reference solution behind the kit's contract: judged as it is.

:mod:`tests.conformance.seed_lab.solution` is a verbatim copy of the teaching solution
ragward was specified from (``SPEC.md`` lists where ragward is stricter than it). This
adapter is what a user of that solution would write to have it checked, and nothing
more: it translates the kit's records to the solution's calls and back, and declares
what the solution can be asked. It fixes nothing. Run the kit on it with::

    ragward conform --impl tests.conformance.seed_lab.adapter:factory

Mapping, verb by verb:

- ``ingest`` builds the solution's ``Document`` and calls
  ``AuthorizedRetriever.ingest`` (default chunking, 96/16 tokens). The solution never
  refuses a write, so the answer is always True — re-ingesting a document, in any
  version, *adds* its chunks to the indexes beside the old ones. ``versions`` is declared
  (documents carry a version, cited as ``@vN``, and re-ingesting is the solution's only
  way to update one), so the kit asks about upserts and finds what the solution does.
- ``delete``: the solution has no way to remove a document, so ``delete`` is declared
  unsupported (the invariants needing it are n/a) and the verb raises if called.
- ``retrieve`` maps the asker to a ``Principal`` and the policy to a
  ``RetrievalPolicy``: ``max_stale_ticks``, ``rerank`` (``enable_rerank``),
  ``candidate_limit`` and ``result_limit``. The solution always fuses both indexes with
  RRF at ``k = 60`` and reranks with no floor, so only ``hybrid`` is declared, with
  ``rerank_toggle`` but not ``policy_knobs`` (which would promise ``rrf_k`` and
  ``rerank_min_score`` too). Each returned ``Scored`` becomes a hit with the chunk's
  offsets, text, version and citation as the solution reports them; the audit counts
  are the solution's own ``considered`` / ``excluded_by_entitlement`` /
  ``excluded_by_freshness``, and ``degraded`` its ``degraded``.
- ``chunk`` is ``chunk_document``; ``assemble`` is ``assemble_context`` with
  ``estimate_tokens`` as ``count_tokens``; ``ground`` is ``check_grounding``; ``fuse``
  is ``reciprocal_rank_fusion``. The kit's hits become the solution's ``Scored`` chunks
  with the hit's id, document, version, offsets, text and score, and the section read
  back from the hit's citation, so each chunk cites exactly as the hit did (tenant,
  classification, barrier and tick are not part of a hit: placeholders the solution does
  not read there).
- ``check_grounding`` reports a supported claim by the *citation* of its evidence, not
  by chunk id: the adapter names the first retrieved hit carrying that citation, and a
  claim the solution supports without a citation (one with no content word) is reported
  supported with no chunk — as the solution says.
- ``fuse`` asks for every fused chunk (``limit`` = the number of distinct ids): the kit's
  verb has no cut, the solution's default keeps 10.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragward.conformance import Asker, Capabilities, Doc, Hit, Policy, Result
from ragward.conformance.records import AssembleRequest, Context, Span, Support

from . import solution as seed

__all__ = ["SeedLabSystem", "factory"]

CAPABILITIES = Capabilities(
    delete=False,
    versions=True,
    barriers=True,
    freshness=True,
    counts=True,
    scores=True,
    modes=("hybrid",),
    rerank_toggle=True,
    policy_knobs=False,
    chunking=True,
    assembly=True,
    grounding=True,
    fusion=True,
    document_limits=False,
)


def _document(doc: Doc) -> seed.Document:
    return seed.Document(
        doc.doc_id,
        doc.tenant,
        doc.title,
        doc.text,
        classification=doc.classification,
        barrier=doc.barrier,
        version=doc.version,
        updated_tick=doc.updated_tick,
    )


def _hit(scored: seed.Scored) -> Hit:
    chunk = scored.chunk
    return Hit(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        version=chunk.doc_version,
        start=chunk.start_char,
        end=chunk.end_char,
        text=chunk.text,
        score=scored.score,
        citation=chunk.citation(),
    )


def _section(hit: Hit) -> str:
    """The section named in ``hit.citation`` (``doc_id@vN#section[start:end]``)."""
    head = f"{hit.doc_id}@v{hit.version}#"
    tail = f"[{hit.start}:{hit.end}]"
    citation = hit.citation
    if citation.startswith(head) and citation.endswith(tail) and len(citation) >= len(head + tail):
        return citation[len(head) : len(citation) - len(tail)]
    _, _, rest = citation.partition("#")
    return rest[: rest.rfind("[")] if "[" in rest else "body"


def _scored(hit: Hit) -> seed.Scored:
    chunk = seed.Chunk(
        chunk_id=hit.chunk_id,
        doc_id=hit.doc_id,
        tenant="",
        text=hit.text,
        section=_section(hit),
        start_char=hit.start,
        end_char=hit.end,
        classification="public",
        barrier=None,
        doc_version=hit.version,
        updated_tick=0,
    )
    return seed.Scored(chunk, hit.score)


class SeedLabSystem:
    """One empty ``AuthorizedRetriever`` of the seed lab, behind the kit's contract."""

    capabilities = CAPABILITIES

    def __init__(self) -> None:
        self.retriever = seed.AuthorizedRetriever(bm25=seed.BM25Index(), vectors=seed.VectorIndex())

    def ingest(self, doc: Doc) -> bool:
        self.retriever.ingest(_document(doc))
        return True  # the solution accepts every write

    def delete(self, tenant: str, doc_id: str) -> None:
        raise NotImplementedError("the seed lab's solution cannot delete a document")

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        principal = seed.Principal(
            asker.user_id, asker.tenant, asker.max_classification, tuple(asker.barriers)
        )
        settings = seed.RetrievalPolicy(
            max_stale_ticks=policy.max_stale_ticks,
            enable_rerank=policy.rerank,
            candidate_limit=policy.candidate_limit,
            result_limit=policy.result_limit,
        )
        result = self.retriever.retrieve(query, principal, now_tick=now_tick, policy=settings)
        return Result(
            hits=tuple(_hit(s) for s in result.chunks),
            considered=result.considered,
            excluded_by_entitlement=result.excluded_by_entitlement,
            excluded_by_freshness=result.excluded_by_freshness,
            degraded=result.degraded,
        )

    def chunk(self, doc: Doc, max_tokens: int, overlap_tokens: int) -> tuple[Span, ...]:
        chunks = seed.chunk_document(
            _document(doc), max_tokens=max_tokens, overlap_tokens=overlap_tokens
        )
        return tuple(Span(c.chunk_id, c.section, c.start_char, c.end_char, c.text) for c in chunks)

    def assemble(self, request: AssembleRequest) -> Context:
        context = seed.assemble_context(
            budget_tokens=request.budget_tokens,
            instructions=request.instructions,
            tool_schemas=request.tool_schemas,
            policy=request.policy,
            memory=request.memory,
            question=request.question,
            retrieved=[_scored(hit) for hit in request.retrieved],
        )
        return Context(
            context.text, context.tokens, context.included_chunks, context.dropped_chunks
        )

    def count_tokens(self, text: str) -> int:
        return seed.estimate_tokens(text)

    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], min_overlap: float
    ) -> tuple[Support, ...]:
        report = seed.check_grounding(
            [seed.Claim(text) for text in claims],
            [_scored(hit) for hit in retrieved],
            min_overlap=min_overlap,
        )
        # The report splits the claims into supported and unsupported; a claim's verdict
        # is a function of its text, so it is looked up by text, in the order asked.
        by_citation: dict[str, str] = {}
        for hit in retrieved:
            by_citation.setdefault(_scored(hit).chunk.citation(), hit.chunk_id)
        verdicts: dict[str, tuple[bool, str | None]] = {
            claim.text: (False, None) for claim in report.unsupported
        }
        for claim in report.supported:
            cited = None if claim.citation is None else by_citation.get(claim.citation)
            verdicts[claim.text] = (True, cited)
        return tuple(Support(text, *verdicts[text]) for text in claims)

    def fuse(
        self, rankings: tuple[tuple[str, ...], ...], k: float
    ) -> tuple[tuple[str, float], ...]:
        lists: list[Sequence[seed.Scored]] = [
            [_scored(Hit(cid, "", 1, 0, 0, "", 0.0)) for cid in ranking] for ranking in rankings
        ]
        distinct = len({cid for ranking in rankings for cid in ranking})
        # The seed annotates k as an int; its arithmetic takes the kit's float k as is.
        fused = seed.reciprocal_rank_fusion(lists, k=k, limit=distinct)  # type: ignore[arg-type]
        return tuple((s.chunk.chunk_id, s.score) for s in fused)


def factory() -> SeedLabSystem:
    """A fresh, empty seed-lab system: the kit calls this once per example."""
    return SeedLabSystem()
