"""Grounding invariants: a claim rests on a retrieved chunk or on nothing.

The kit ingests a corpus, retrieves, withholds the hits of some documents, and asks the
adapter to ground claims against what is left: copies of retrieved and withheld texts,
words picked across the corpus, and words no document holds. Only the retrieved set may
back a claim, however much the system has indexed.
"""

from __future__ import annotations

from typing import Any

from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import Hit, Support
from ragward.conformance.text_strategies import (
    GroundCase,
    ground_cases,
    load,
    policy_for,
    terms,
)

__all__: list[str] = []

# Words that no grounding rule should count as evidence on their own.
_FUNCTION_WORDS = frozenset({"the", "of", "a", "an", "and", "or", "is", "to", "in"})


def _retrieved(system: Any, case: GroundCase) -> tuple[Hit, ...]:
    corpus = case.corpus
    load(system, corpus.docs)
    result = system.retrieve(
        corpus.query, corpus.asker, 0, policy_for(corpus, system.capabilities.modes)
    )
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


@invariant(
    "GRD-001",
    "grounding",
    "a claim is only ever supported by a retrieved chunk",
    case_type=GroundCase,
    cases=ground_cases,
    requires=("grounding",),
)
def support_from_retrieved(factory: Factory, case: GroundCase) -> None:
    """``ground`` returns one verdict per claim, in the order asked, and every supported
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


@invariant(
    "GRD-002",
    "grounding",
    "invented claims stay unsupported",
    case_type=GroundCase,
    cases=ground_cases,
    requires=("grounding",),
)
def invented_unsupported(factory: Factory, case: GroundCase) -> None:
    """A claim none of whose words (alphanumeric runs, case-folded) occurs in any
    retrieved text is unsupported, at every ``min_overlap`` — including claims copied
    from documents that are indexed but were not retrieved. A grounder that searches the
    whole corpus, or supports a claim for its stopwords, fails here."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    seen = frozenset().union(*(terms(hit.text) for hit in retrieved))
    for support in _ground(system, case.claims, retrieved, case.min_overlap):
        if support.supported and not (terms(support.claim) & seen):
            raise Violation(
                f"claim {support.claim!r} supported by {support.chunk_id!r}, yet none of its "
                "words occurs in any retrieved text"
            )


@invariant(
    "GRD-003",
    "grounding",
    "a claim copied from a retrieved chunk is supported at min_overlap=1",
    case_type=GroundCase,
    cases=ground_cases,
    requires=("grounding",),
)
def verbatim_supported(factory: Factory, case: GroundCase) -> None:
    """Each retrieved text that holds a content word, offered verbatim as a claim, is
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


@invariant(
    "GRD-004",
    "grounding",
    "the verdict does not depend on the order of the retrieved set",
    case_type=GroundCase,
    cases=ground_cases,
    requires=("grounding",),
)
def order_free(factory: Factory, case: GroundCase) -> None:
    """Grounding the same claims against the retrieved hits reversed, or rotated by one,
    gives the same verdicts citing the same chunks: when two chunks back a claim equally
    well the tie is broken by the chunks themselves, not by their position."""
    system: Any = factory()
    retrieved = _retrieved(system, case)
    first = _ground(system, case.claims, retrieved, case.min_overlap)
    for other in (retrieved[::-1], retrieved[1:] + retrieved[:1]):
        again = _ground(system, case.claims, other, case.min_overlap)
        if again != first:
            raise Violation(f"reordering the retrieved hits changed {first} into {again}")
