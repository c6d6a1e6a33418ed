"""Grounding invariants: a claim rests on a retrieved chunk or on nothing.

The kit ingests a corpus, retrieves, withholds the hits of some documents, and asks the
adapter to ground claims against what is left: copies of retrieved and withheld texts,
words picked across the corpus, and words no document holds. Only the retrieved set may
back a claim, however much the system has indexed.
"""

from __future__ import annotations

import math
from typing import Any

from ragward.conformance.answer_diff import aligned, fail_with_diff
from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import Hit, Support
from ragward.conformance.text_strategies import (
    FOREIGN,
    VOCABULARY,
    GroundCase,
    ground_cases,
    load,
    policy_for,
    terms,
)

__all__: list[str] = []

# Words that no grounding rule should count as evidence on their own.
_FUNCTION_WORDS = frozenset({"the", "of", "a", "an", "and", "or", "is", "to", "in"})
# Words of the generated texts that every grounding rule counts as content: whole tokens
# (no hyphen, no digit run of a longer token) of the kit's vocabulary.
_CONTENT = frozenset(
    w for w in VOCABULARY if w.isalpha() and w.isascii() and w not in _FUNCTION_WORDS
)


def _retrieved(system: Any, case: GroundCase) -> tuple[Hit, ...]:
    corpus = case.corpus
    load(system, corpus.docs)
    caps = system.capabilities
    policy = policy_for(corpus, caps.modes, True, caps)
    result = system.retrieve(corpus.query, corpus.asker, 0, policy)
    return tuple(hit for hit in result.hits if hit.doc_id not in case.withheld)


def _ground(
    system: Any, claims: tuple[str, ...], retrieved: tuple[Hit, ...], min_overlap: float
) -> tuple[Support, ...]:
    supports: tuple[Support, ...] = system.ground(claims, retrieved, min_overlap)
    if len(supports) != len(claims) or any(
        s.claim != c for s, c in zip(supports, claims, strict=False)
    ):
        raise Violation(
            f"ground returned verdicts for {[s.claim for s in supports]!r}, "
            f"asked about {list(claims)!r}"
        )
    return supports


@invariant("GRD-001", cases=ground_cases, requires=("grounding",))
def support_from_retrieved(factory: Factory, case: GroundCase) -> None:
    """a claim is only ever supported by a retrieved chunk

    ``ground`` returns one verdict per claim, in the order asked, and every supported
    claim names as its evidence the ``chunk_id`` of one of the retrieved hits it was
    given — never a chunk the system has indexed but did not retrieve for this answer,
    and never no chunk at all."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    ids = {hit.chunk_id for hit in retrieved}
    for support in _ground(system, case.claims, retrieved, case.min_overlap):
        if support.supported and support.chunk_id not in ids:
            raise Violation(
                f"claim {support.claim!r} supported by {support.chunk_id!r}, "
                f"not one of the retrieved {sorted(ids)}"
            )


@invariant("GRD-002", cases=ground_cases, requires=("grounding",))
def invented_unsupported(factory: Factory, case: GroundCase) -> None:
    """invented claims stay unsupported

    A claim none of whose content words (alphanumeric runs, case-folded, function
    words such as "the" and "of" left out) occurs in any retrieved text is unsupported,
    at every ``min_overlap`` — including claims copied from documents that are indexed
    but were not retrieved, and invented claims padded with function words the retrieved
    texts do contain, and those function words alone (a claim with no content word at all,
    which nothing could back). A grounder that searches the whole corpus, counts stopwords
    as evidence, or reads an empty set of content words as fully covered, fails here."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    seen = frozenset().union(*(terms(hit.text) for hit in retrieved))
    # Invented words padded with the function words the retrieved texts hold, at a low
    # threshold: counted as evidence, the glue alone would carry them past it.
    glue = " ".join(sorted(_FUNCTION_WORDS & seen))
    padded = tuple(f"{glue} {word}" for word in FOREIGN if glue and word not in seen)
    verdicts = _ground(system, case.claims, retrieved, case.min_overlap)
    if glue:
        verdicts += _ground(system, (glue, *padded[:2]), retrieved, 0.3)
    for support in verdicts:
        if support.supported and not ((terms(support.claim) - _FUNCTION_WORDS) & seen):
            raise Violation(
                f"claim {support.claim!r} supported by {support.chunk_id!r}, yet none of its "
                "content words occurs in any retrieved text"
            )


@invariant("GRD-003", cases=ground_cases, requires=("grounding",))
def verbatim_supported(factory: Factory, case: GroundCase) -> None:
    """a claim copied from a retrieved chunk is supported at min_overlap=1

    Each retrieved text that holds a content word, offered verbatim as a claim, is
    supported even at ``min_overlap=1.0``, by some retrieved chunk: a chunk always backs
    its own words. (Texts of function words only are left out; they back nothing.)"""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    claims = tuple(
        dict.fromkeys(hit.text for hit in retrieved if terms(hit.text) - _FUNCTION_WORDS)
    )
    ids = {hit.chunk_id for hit in retrieved}
    for support in _ground(system, claims, retrieved, 1.0):
        if not support.supported or support.chunk_id not in ids:
            raise Violation(
                f"retrieved text {support.claim!r} offered as a claim came back "
                f"supported={support.supported} by {support.chunk_id!r} at min_overlap=1.0"
            )


@invariant("GRD-004", cases=ground_cases, requires=("grounding",))
def order_free(factory: Factory, case: GroundCase) -> None:
    """the verdict does not depend on the order of the retrieved set

    Grounding the same claims against the retrieved hits reversed, or rotated by one,
    gives the same verdicts citing the same chunks: when two chunks back a claim equally
    well the tie is broken by the chunks themselves, not by their position."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    first = _ground(system, case.claims, retrieved, case.min_overlap)
    for other in (retrieved[::-1], retrieved[1:] + retrieved[:1]):
        again = _ground(system, case.claims, other, case.min_overlap)
        if again != first:
            rows = [
                (f"claim {one.claim!r}", f"{_verdict(one)} -> {_verdict(two)}")
                for one, two in zip(first, again, strict=True)
                if one != two
            ]
            fail_with_diff(
                "reordering the retrieved hits changed the verdicts",
                f"{len(case.claims)} claims grounded at min_overlap={case.min_overlap!r} against "
                f"{[h.chunk_id for h in retrieved]}, then against {[h.chunk_id for h in other]}",
                aligned(rows),
            )


def _verdict(support: Support) -> str:
    if support.supported:
        return f"supported by {support.chunk_id!r}"
    return "unsupported" + (f" (cites {support.chunk_id!r})" if support.chunk_id else "")


@invariant("GRD-005", cases=ground_cases, requires=("grounding",))
def best_citation(factory: Factory, case: GroundCase) -> None:
    """a claim cites the retrieved chunk that backs it best, ties to the smaller chunk_id

    Each retrieved text, offered verbatim as a claim at a low ``min_overlap`` (0.2, so
    that other chunks pass too), cites a chunk holding every content word of the claim —
    the best overlap, which its own chunk reaches — and, of chunks with that very text,
    the one with the smallest ``chunk_id``; whatever the order the hits are given in. A
    grounder that cites the first chunk passing the threshold fails here."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    by_id = {hit.chunk_id: hit for hit in retrieved}
    claims = tuple(dict.fromkeys(hit.text for hit in retrieved if terms(hit.text) & _CONTENT))
    for order in (retrieved, retrieved[::-1]):
        for support in _ground(system, claims, order, 0.2):
            cited = by_id.get(support.chunk_id or "")
            if not support.supported or cited is None:
                raise Violation(
                    f"retrieved text {support.claim!r} offered as a claim came back "
                    f"supported={support.supported} by {support.chunk_id!r} at min_overlap=0.2"
                )
            missing = sorted((terms(support.claim) & _CONTENT) - terms(cited.text))
            if missing:
                raise Violation(
                    f"claim {support.claim!r} cites {cited.chunk_id!r}, which lacks {missing}, "
                    "though a retrieved chunk holds all of its words"
                )
            twins = [h.chunk_id for h in retrieved if h.text == cited.text]
            if cited.chunk_id != min(twins):
                raise Violation(
                    f"claim {support.claim!r} cites {cited.chunk_id!r}; the identical "
                    f"{min(twins)!r} backs it as well and has the smaller chunk_id"
                )


@invariant("GRD-006", cases=ground_cases, requires=("grounding",))
def threshold_inclusive(factory: Factory, case: GroundCase) -> None:
    """min_overlap is inclusive: an overlap exactly at it supports, just below does not

    A claim made of ``k`` content words of one retrieved chunk and ``m`` words no
    retrieved text holds has a best overlap of exactly ``k / (k + m)``. Grounded at
    ``min_overlap = k / (k + m)`` it is supported; at the next float above, it is not.
    A threshold compared the wrong way, or with a tolerance, fails here."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    seen = frozenset().union(*(terms(hit.text) for hit in retrieved))
    foreign = [w for w in FOREIGN if w not in seen]
    for index, hit in enumerate(retrieved[:3]):
        words = sorted(terms(hit.text) & _CONTENT)[: 1 + index % 3]
        extra = foreign[: 1 + (len(hit.text) + index) % 2]
        if not words or not extra:
            continue
        claim = " ".join(words + extra)
        share = len(words) / (len(words) + len(extra))
        (at,) = _ground(system, (claim,), retrieved, share)
        (above,) = _ground(system, (claim,), retrieved, math.nextafter(share, 2.0))
        if not at.supported or above.supported:
            raise Violation(
                f"claim {claim!r} (best overlap {len(words)}/{len(words) + len(extra)}) came "
                f"back supported={at.supported} at min_overlap={share!r} and "
                f"supported={above.supported} just above it"
            )
