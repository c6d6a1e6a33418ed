"""Provenance invariants: citations resolve to the exact text, chunking is faithful.

A hit's ``(doc_id, version, start, end)`` must point at exactly the text it carries, in
the asker's tenant's copy of the document and in the version that is live. Where an
adapter exposes its chunker, the spans it cuts are checked against a model of the
document's ``## `` sections: verbatim, covering every word, bounded in size, overlapping
and advancing as promised, never straddling a heading.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import Doc, Hit, Span
from ragward.conformance.text_strategies import (
    ChunkCase,
    CorpusCase,
    chunk_cases,
    corpus_cases,
    latest,
    load,
    policy_for,
)

__all__: list[str] = []

_HEADING = re.compile(r"##[ \t]+\S.*", re.DOTALL)
_WORD = re.compile(r"\S+")


def _unresolved(hit: Hit, held: dict[tuple[str, str], Doc], tenant: str) -> str | None:
    """Why ``hit`` does not resolve in ``tenant``'s live documents, or None if it does."""
    doc = held.get((tenant, hit.doc_id))
    if doc is None:
        return f"hit {hit.chunk_id!r} cites doc {hit.doc_id!r}, which tenant {tenant!r} lacks"
    if hit.version != doc.version:
        return f"hit {hit.chunk_id!r} cites {hit.doc_id}@v{hit.version}, live is v{doc.version}"
    if not 0 <= hit.start <= hit.end <= len(doc.text):
        return f"hit {hit.chunk_id!r} span [{hit.start}:{hit.end}] outside the doc"
    actual = doc.text[hit.start : hit.end]
    if actual != hit.text:
        return (
            f"hit {hit.chunk_id!r} text {hit.text!r} != {hit.doc_id}@v{doc.version}"
            f"[{hit.start}:{hit.end}] = {actual!r}"
        )
    if hit.citation and not (
        hit.citation.startswith(f"{hit.doc_id}@v{hit.version}#")
        and hit.citation.endswith(f"[{hit.start}:{hit.end}]")
    ):
        return f"hit {hit.chunk_id!r} citation {hit.citation!r} disagrees with its fields"
    return None


def _check_hits(factory: Factory, case: CorpusCase) -> list[Hit]:
    system = factory()
    load(system, case.docs)
    caps = system.capabilities
    result = system.retrieve(case.query, case.asker, 0, policy_for(case, caps.modes, True, caps))
    held = latest(case.docs)
    for hit in result.hits:
        problem = _unresolved(hit, held, case.asker.tenant)
        if problem:
            raise Violation(problem)
    return list(result.hits)


@invariant("PROV-001", cases=corpus_cases)
def citations_resolve(factory: Factory, case: CorpusCase) -> None:
    """every citation resolves to the hit's exact text

    Every hit's citation resolves: in the asker's tenant's copy of document ``doc_id``
    at version ``version``, ``text[start:end]`` is exactly the hit's text — whatever
    newlines, runs of spaces, tabs, non-breaking spaces or headings the source holds, and
    even when another tenant holds a different document under the same ``doc_id``. A
    non-empty ``citation`` must read ``doc_id@vN#section[start:end]`` with those fields.
    A splitter that re-joins words with single spaces, or counts offsets on a normalised
    text, fails here."""
    _check_hits(factory, case)


@invariant("PROV-002", cases=lambda: corpus_cases(reversion=True), requires=("versions",))
def reversioned_citations_resolve(factory: Factory, case: CorpusCase) -> None:
    """citations of a re-versioned document resolve to the new version

    After a document is re-ingested under higher versions, every hit from it cites the
    newest version and resolves to that version's text; a chunk, offset or text kept
    from an older version fails. The query is drawn from the words of every version, so
    stale chunks would match it."""
    _check_hits(factory, case)


def _chunk(factory: Factory, case: ChunkCase) -> tuple[tuple[Span, ...], Callable[[str], int]]:
    system: Any = factory()
    spans: tuple[Span, ...] = system.chunk(case.doc, case.max_tokens, case.overlap_tokens)
    if system.capabilities.assembly:
        return spans, system.count_tokens
    return spans, lambda text: (len(text) + 3) // 4


def _regions(text: str) -> list[tuple[int, int, int]]:
    """``(region_start, body_start, end)`` per section: a region runs from its heading
    line (or the document start) to the next heading line; the body follows the heading."""
    starts: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        if _HEADING.fullmatch(line):
            starts.append((offset, offset + len(line)))
        offset += len(line) + 1
    bounds = [(0, 0), *starts]
    return [
        (start, body, bounds[i + 1][0] if i + 1 < len(bounds) else len(text))
        for i, (start, body) in enumerate(bounds)
    ]


def _region_of(position: int, regions: list[tuple[int, int, int]]) -> int:
    return max(i for i, (start, _, _) in enumerate(regions) if start <= position)


def _verbatim(spans: tuple[Span, ...], doc: Doc) -> None:
    for span in spans:
        if not 0 <= span.start <= span.end <= len(doc.text):
            raise Violation(f"span {span.chunk_id!r} [{span.start}:{span.end}] outside the doc")
        if doc.text[span.start : span.end] != span.text:
            raise Violation(
                f"span {span.chunk_id!r} text {span.text!r} != "
                f"doc[{span.start}:{span.end}] = {doc.text[span.start : span.end]!r}"
            )


@invariant("PROV-003", cases=chunk_cases, requires=("chunking",))
def chunks_verbatim_and_covering(factory: Factory, case: ChunkCase) -> None:
    """chunks are verbatim slices that lose no content

    Each span the chunker cuts is the verbatim slice ``doc.text[start:end]``, and no
    non-space character of the document is lost: every word (run of non-blanks) of every
    section body lies inside at least one span, and so does every word of a ``## ``
    heading's name unless its section has spans of its own (they carry the heading). A
    chunker that normalises whitespace, loses the first or last word of a section or
    document, or drops a section that is only a heading, fails here, whatever the line
    endings and the layout."""
    spans, _ = _chunk(factory, case)
    _verbatim(spans, case.doc)
    text = case.doc.text
    regions = _regions(text)
    carried = {_region_of(s.start, regions) for s in spans if s.end > s.start}
    for index, (start, body, end) in enumerate(regions):
        # the heading's name (after its "##" marker) when no span of the section carries it
        if body > start and index not in carried:
            for word in _WORD.finditer(text, start + 2, body):
                if not any(s.start <= word.start() and word.end() <= s.end for s in spans):
                    raise Violation(
                        f"heading word {word.group()!r} at {word.start()} lies in no chunk, "
                        "and its section has none"
                    )
        for word in _WORD.finditer(text, body, end):
            if not any(s.start <= word.start() and word.end() <= s.end for s in spans):
                raise Violation(f"word {word.group()!r} at {word.start()} lies in no chunk")


@invariant("PROV-004", cases=chunk_cases, requires=("chunking",))
def chunks_bounded(factory: Factory, case: ChunkCase) -> None:
    """a chunk exceeds max_tokens only when it is a single word

    A span's size, measured with the adapter's own ``count_tokens`` when it declares
    ``assembly`` (else ``ceil(chars / 4)``), never exceeds ``max_tokens`` unless the span
    is a single word that is longer than that on its own."""
    spans, count = _chunk(factory, case)
    for span in spans:
        size = count(span.text)
        if size > case.max_tokens and len(_WORD.findall(span.text)) != 1:
            raise Violation(
                f"span {span.chunk_id!r} has {size} tokens > max_tokens={case.max_tokens} "
                f"and {len(_WORD.findall(span.text))} words"
            )


@invariant("PROV-005", cases=chunk_cases, requires=("chunking",))
def chunks_overlap_and_advance(factory: Factory, case: ChunkCase) -> None:
    """consecutive chunks overlap by at most overlap_tokens and advance

    Within a section, taking spans in document order, each next span starts and ends
    strictly after the previous one (both ends advance, so no span repeats or nests in
    another), and the text they share is at most ``overlap_tokens`` tokens."""
    spans, count = _chunk(factory, case)
    _verbatim(spans, case.doc)
    regions = _regions(case.doc.text)
    ordered = sorted(spans, key=lambda s: (_region_of(s.start, regions), s.start, s.end))
    for prev, nxt in itertools.pairwise(ordered):
        if _region_of(prev.start, regions) != _region_of(nxt.start, regions):
            continue
        if not (nxt.start > prev.start and nxt.end > prev.end):
            raise Violation(
                f"span {nxt.chunk_id!r} [{nxt.start}:{nxt.end}] does not advance past "
                f"{prev.chunk_id!r} [{prev.start}:{prev.end}]"
            )
        if nxt.start < prev.end:
            shared = case.doc.text[nxt.start : prev.end]
            if count(shared) > case.overlap_tokens:
                raise Violation(
                    f"spans {prev.chunk_id!r} and {nxt.chunk_id!r} share {shared!r}: "
                    f"{count(shared)} tokens > overlap_tokens={case.overlap_tokens}"
                )


@invariant("PROV-006", cases=chunk_cases, requires=("chunking",))
def chunks_within_sections(factory: Factory, case: ChunkCase) -> None:
    """no chunk crosses a section heading

    No span straddles a ``## `` heading line: the start of every heading lies outside
    the interior of every span, so each chunk belongs to exactly one section (a span may
    begin with its own section's heading)."""
    spans, _ = _chunk(factory, case)
    regions = _regions(case.doc.text)
    for span in spans:
        if span.end > span.start and _region_of(span.start, regions) != _region_of(
            span.end - 1, regions
        ):
            inside = regions[_region_of(span.end - 1, regions)][0]
            raise Violation(
                f"span {span.chunk_id!r} [{span.start}:{span.end}] crosses the heading at {inside}"
            )
