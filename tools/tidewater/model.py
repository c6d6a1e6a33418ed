"""What the data files declare: askers, documents with marked facts, questions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tools.tidewater.fields import DataError

CLASSIFICATIONS: tuple[str, ...] = ("public", "internal", "confidential", "restricted")

#: The kinds of claim a marked fact can back, in the order they are drawn.
CLAIM_KINDS: tuple[str, ...] = ("verbatim", "paraphrase", "fabrication", "invisible", "superseded")


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
    origin: str = ""  # the data file it was read from, for messages


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


@dataclass(frozen=True)
class Family:
    """What one data file adds to the set: documents, questions, or both."""

    docs: tuple[DocSpec, ...] = ()
    questions: tuple[QuerySpec, ...] = ()


@dataclass(frozen=True)
class Roster:
    """The askers of the set, in the order of ``people.toml``, and by handle (``w-analyst``)."""

    askers: tuple[Asker, ...]
    by_handle: Mapping[str, Asker]

    def pick(self, handle: str, where: str) -> Asker:
        """The asker called ``handle``; an unknown handle is a :class:`DataError`."""
        if handle not in self.by_handle:
            raise DataError(f"{where}: no asker {handle!r} in people.toml")
        return self.by_handle[handle]
