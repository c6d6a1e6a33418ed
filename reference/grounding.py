"""Grounding: does each claim of an answer rest on a retrieved chunk?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from ragward.errors import InvalidArgument
from ragward.reference.ranking import ScoredChunk
from ragward.reference.text import content_terms

__all__ = [
    "Claim",
    "ClaimCheck",
    "GroundingChecker",
    "GroundingReport",
    "LexicalOverlapChecker",
    "check_grounding",
    "reaches",
]


@dataclass(frozen=True)
class Claim:
    """One statement of an answer; ``citation`` is filled in when it is supported."""

    text: str
    citation: str | None = None


@dataclass(frozen=True)
class ClaimCheck:
    """The best evidence found for a claim: its score (for the lexical check, the share
    of content words covered), the chunk that gave it, and the verdict."""

    claim: Claim
    overlap: float
    chunk_id: str | None
    citation: str | None
    supported: bool = False


@dataclass(frozen=True)
class GroundingReport:
    """Claims split into supported (each with a citation) and unsupported."""

    supported: tuple[Claim, ...]
    unsupported: tuple[Claim, ...]
    checks: tuple[ClaimCheck, ...] = ()

    @property
    def is_grounded(self) -> bool:
        """True when no claim is unsupported."""
        return not self.unsupported

    @property
    def coverage(self) -> float:
        """Share of claims supported (1.0 for no claims)."""
        claims = len(self.supported) + len(self.unsupported)
        return 1.0 if claims == 0 else len(self.supported) / claims


def reaches(overlap: float, min_overlap: float) -> bool:
    """Whether a claim's best ``overlap`` supports it at ``min_overlap``: reaching the
    threshold is enough (the one place the lexical check compares them).

    >>> reaches(0.5, 0.5), reaches(0.49, 0.5)
    (True, False)
    """
    return overlap >= min_overlap


def check_grounding(
    claims: Sequence[Claim],
    retrieved: Sequence[ScoredChunk],
    *,
    min_overlap: float = 0.6,
) -> GroundingReport:
    """Support each claim with the retrieved chunk sharing most of its content words.

    A claim's overlap with a chunk is the share of the claim's distinct content words
    (terms minus stopwords) that the chunk contains. A claim is supported, and cites that
    chunk, when its best overlap reaches ``min_overlap``; equal overlaps go to the smaller
    ``chunk_id``, so the verdict does not depend on the order of ``retrieved``. Only the
    retrieved set is searched: a claim nothing retrieved backs stays unsupported, and so
    does a claim with no content words at all, which nothing could back.

    >>> report = check_grounding([Claim("bananas are yellow")], [])
    >>> report.is_grounded, report.coverage
    (False, 0.0)
    """
    if isinstance(min_overlap, bool) or not isinstance(min_overlap, int | float):
        raise InvalidArgument(f"min_overlap must be a number in (0, 1], got {min_overlap!r}")
    if not 0.0 < min_overlap <= 1.0:
        raise InvalidArgument(f"min_overlap must be in (0, 1], got {min_overlap!r}")
    evidence = [(s.chunk, content_terms(s.chunk.text)) for s in retrieved]
    supported: list[Claim] = []
    unsupported: list[Claim] = []
    checks: list[ClaimCheck] = []
    for claim in claims:
        terms = content_terms(claim.text)
        best: tuple[float, str, str] | None = None
        if terms:
            for chunk, chunk_terms in evidence:
                overlap = len(terms & chunk_terms) / len(terms)
                if overlap > 0 and (
                    best is None or (-overlap, chunk.chunk_id) < (-best[0], best[1])
                ):
                    best = (overlap, chunk.chunk_id, chunk.citation())
        if best is not None and reaches(best[0], min_overlap):
            supported.append(replace(claim, citation=best[2]))
        else:
            unsupported.append(replace(claim, citation=None))
        checks.append(
            ClaimCheck(claim, best[0], best[1], best[2], reaches(best[0], min_overlap))
            if best is not None
            else ClaimCheck(claim, 0.0, None, None)
        )
    return GroundingReport(tuple(supported), tuple(unsupported), tuple(checks))


@runtime_checkable
class GroundingChecker(Protocol):
    """Decides, for each claim, whether a retrieved chunk supports it — lexical overlap by
    default; an entailment model, say, in a team's own stack.

    ``check`` returns a report whose ``checks`` hold one :class:`ClaimCheck` per claim, in
    the order given, each with its verdict and, when supported, the chunk it cites (one
    of ``retrieved``). ``threshold`` is the checker's own cut-off, the value a grid's
    ``grounding.min_overlap`` sweeps.
    """

    @property
    def name(self) -> str:
        """A stable name for reports."""
        ...

    def check(
        self, claims: Sequence[Claim], retrieved: Sequence[ScoredChunk], *, threshold: float
    ) -> GroundingReport:
        """The verdict on every claim, from ``retrieved`` alone."""
        ...


class LexicalOverlapChecker:
    """:func:`check_grounding` behind the :class:`GroundingChecker` protocol: a claim is
    supported when one chunk holds at least ``threshold`` of its content words."""

    name = "lexical-overlap"

    def check(
        self, claims: Sequence[Claim], retrieved: Sequence[ScoredChunk], *, threshold: float
    ) -> GroundingReport:
        return check_grounding(claims, retrieved, min_overlap=threshold)

    def __repr__(self) -> str:
        return "LexicalOverlapChecker()"
