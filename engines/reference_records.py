"""The kit's records as the reference's, and back: the one place each is converted.

The conformance kit and the reference may not import each other, so each has its own
records (``Doc`` and :class:`~ragward.reference.ReferenceDoc`, ``Asker`` and
:class:`~ragward.reference.ReferenceAsker`, ``Policy`` and
:class:`~ragward.reference.ReferencePolicy`, ``Hit`` and
:class:`~ragward.reference.ScoredChunk`); whatever needs one as the other (the
reference's adapter, the engines' chunking, the benchmarks, the tests) converts here.
"""

from __future__ import annotations

from dataclasses import fields

from ragward.conformance.records import Asker, Doc, Hit, Policy
from ragward.reference import Chunk, ReferenceAsker, ReferenceDoc, ReferencePolicy, ScoredChunk

__all__ = [
    "hit_of",
    "kit_asker",
    "kit_doc",
    "reference_asker",
    "reference_doc",
    "reference_policy",
    "scored_of",
    "section_of",
]


#: The fields of a document, named alike in both records.
_DOC_FIELDS = tuple(f.name for f in fields(Doc))


def reference_doc(doc: Doc) -> ReferenceDoc:
    """The reference's document for the kit's (checked as it is made)."""
    return ReferenceDoc(**{name: getattr(doc, name) for name in _DOC_FIELDS})


def kit_doc(document: ReferenceDoc) -> Doc:
    """The kit's record of a reference document."""
    return Doc(**{name: getattr(document, name) for name in _DOC_FIELDS})


def reference_asker(asker: Asker) -> ReferenceAsker:
    """The reference's principal for the kit's asker."""
    return ReferenceAsker(
        asker.user_id, asker.tenant, asker.max_classification, tuple(asker.barriers)
    )


def kit_asker(principal: ReferenceAsker) -> Asker:
    """The kit's asker for a reference principal."""
    return Asker(
        principal.user_id, principal.tenant, principal.max_classification, principal.barriers
    )


def reference_policy(policy: Policy) -> ReferencePolicy:
    """The reference's retrieval policy for the kit's policy: every field passed, so no
    default of :class:`~ragward.reference.ReferencePolicy` is ever used."""
    return ReferencePolicy(
        max_stale_ticks=policy.max_stale_ticks,
        enable_rerank=policy.rerank,
        rerank_min_score=policy.rerank_min_score,
        candidate_limit=policy.candidate_limit,
        result_limit=policy.result_limit,
        rrf_k=policy.rrf_k,
        mode=policy.mode,
        limit_unit=policy.limit_unit,
        fusion=policy.fusion,
        dense_weight=policy.dense_weight,
    )


def hit_of(scored: ScoredChunk) -> Hit:
    """The kit's hit for a scored chunk, its fields set as the frozen ``__init__`` sets
    them, in a quarter of the time (a grid makes one per chunk it returns)."""
    chunk = scored.chunk
    hit = object.__new__(Hit)
    hit.__dict__.update(
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        version=chunk.doc_version,
        start=chunk.start_char,
        end=chunk.end_char,
        text=chunk.text,
        score=scored.score,
        citation=chunk.citation(),
    )
    return hit


def section_of(citation: str, doc_id: str, version: int) -> str:
    """The section of a reference citation ``doc_id@vN#section[start:end]``: what lies
    after the hit's own ``doc_id@vN#`` and before the last ``[`` ("body" for a citation
    of another form). Read after the known prefix, not at the first ``#``: a ``doc_id``
    may hold ``#`` or ``@v`` itself."""
    head = f"{doc_id}@v{version}#"
    rest = citation[len(head) :] if citation.startswith(head) else ""
    return rest[: rest.rfind("[")] if "[" in rest else "body"


def scored_of(hit: Hit, tenant: str = "") -> ScoredChunk:
    """The reference's scored chunk for the kit's hit: its text, place and section, in
    ``tenant``, public and never updated (what assembly and grounding read of it)."""
    chunk = Chunk(
        chunk_id=hit.chunk_id,
        doc_id=hit.doc_id,
        tenant=tenant,
        text=hit.text,
        section=section_of(hit.citation, hit.doc_id, hit.version),
        start_char=hit.start,
        end_char=hit.end,
        classification="public",
        barrier=None,
        doc_version=hit.version,
        updated_tick=0,
    )
    return ScoredChunk(chunk, hit.score)
