"""What the content modules declare: askers, documents with marked facts, questions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

CLASSIFICATIONS: tuple[str, ...] = ("public", "internal", "confidential", "restricted")


@dataclass(frozen=True)
class Asker:
    """A principal of the set; ``role`` is for the data card only."""

    user_id: str
    tenant: str
    max_classification: str
    barriers: tuple[str, ...] = ()
    role: str = ""

    def sees(self, tenant: str, classification: str, barrier: str | None) -> bool:
        """Whether this asker may see a document with these attributes."""
        return (
            tenant == self.tenant
            and CLASSIFICATIONS.index(classification)
            <= CLASSIFICATIONS.index(self.max_classification)
            and (barrier is None or barrier in self.barriers)
        )

    def as_json(self) -> dict[str, object]:
        return {
            "user_id": self.user_id,
            "tenant": self.tenant,
            "max_classification": self.max_classification,
            "barriers": sorted(self.barriers),
        }


@dataclass(frozen=True)
class FactInfo:
    """How a marked fact may be restated.

    ``paraphrase`` says the same thing in other words; ``distortion`` keeps the words and
    changes the fact (a near-miss fabrication); ``question`` would retrieve it. Each may
    hold ``{placeholders}`` filled from the version being rendered. ``private`` says the
    fact is stated in this document only, so it may back an ``invisible`` claim.
    """

    paraphrase: str | None = None
    distortion: str | None = None
    question: str | None = None
    private: bool = False


@dataclass(frozen=True)
class DocSpec:
    """One document of one tenant, with every version it went through.

    ``source`` is wrapped prose: ``## `` headings, paragraphs separated by blank lines,
    ``- `` list items; facts are marked ``[[key|sentence]]``. Each version is the source
    filled with that version's values, written at that version's tick (oldest first).
    """

    tenant: str
    doc_id: str
    title: str
    classification: str
    source: str
    versions: tuple[tuple[int, Mapping[str, str]], ...]
    barrier: str | None = None
    doc_type: str = "policy"
    facts: Mapping[str, FactInfo] = field(default_factory=dict)


@dataclass(frozen=True)
class QuerySpec:
    """A question asked by ``asker`` at ``now_tick``, with graded judgements by doc id.

    ``hidden`` names documents the asker may not see that match the question best (they
    are left out of the judgements; the data card counts them).
    """

    text: str
    asker: Asker
    judged: Mapping[str, int]
    now_tick: int
    kind: str
    max_stale_ticks: int | None = None
    hidden: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoEvidenceClaim:
    """A plausible claim stated nowhere in the set."""

    claim: str
    asker: Asker
    query: str | None = None


def doc(
    tenant: str,
    doc_id: str,
    title: str,
    classification: str,
    source: str,
    *,
    tick: int = 0,
    versions: tuple[tuple[int, Mapping[str, str]], ...] = (),
    barrier: str | None = None,
    doc_type: str = "policy",
    facts: Mapping[str, FactInfo] | None = None,
) -> DocSpec:
    """A :class:`DocSpec`; give ``tick`` for a single version, ``versions`` otherwise."""
    return DocSpec(
        tenant=tenant,
        doc_id=doc_id,
        title=title,
        classification=classification,
        source=source,
        versions=versions or ((tick, {}),),
        barrier=barrier,
        doc_type=doc_type,
        facts=facts or {},
    )


def fact(
    paraphrase: str | None = None,
    distortion: str | None = None,
    question: str | None = None,
    *,
    private: bool = False,
) -> FactInfo:
    """Shorthand for :class:`FactInfo`."""
    return FactInfo(paraphrase, distortion, question, private)


def ask(
    text: str,
    asker: Asker,
    judged: Mapping[str, int],
    *,
    kind: str,
    now: int = 1000,
    stale: int | None = None,
    hidden: tuple[str, ...] = (),
) -> QuerySpec:
    """Shorthand for :class:`QuerySpec`."""
    return QuerySpec(text, asker, dict(judged), now, kind, stale, hidden)
