"""The harness's immutable records: a labelled dataset as the evals see it.

Documents, askers and hits are the conformance kit's records (the evals reach every
implementation through the kit's contract); this module adds what only labelled
evaluation needs: queries asked by a principal, graded judgements, labelled claims with
their gold evidence, and the dataset that holds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ragward.conformance.records import Asker, Doc

__all__ = ["Dataset", "Evidence", "LabelledClaim", "Qrels", "Query"]

#: Graded judgements of one split: query id -> document id -> relevance grade.
Qrels = Mapping[str, Mapping[str, int]]


@dataclass(frozen=True)
class Query:
    """One labelled question, asked by ``asker`` at ``now_tick``."""

    query_id: str
    text: str
    asker: Asker
    now_tick: int = 0
    max_stale_ticks: int | None = None


@dataclass(frozen=True)
class Evidence:
    """A gold passage judged for a claim: ``text`` is a verbatim slice of document
    ``doc_id`` (latest version in the asker's tenant), starting at ``start``."""

    doc_id: str
    start: int
    text: str


@dataclass(frozen=True)
class LabelledClaim:
    """A claim labelled supported or not *for its asker*.

    ``query`` is what is retrieved to check it end to end (the claim itself by default);
    ``evidence`` is the gold context the label was judged against; ``kind`` says what sort
    of claim it is (``verbatim``, ``paraphrase``, ``fabrication``, ``invisible``,
    ``superseded``, ``contradicted``, ``no-evidence``, ...), so figures can be broken down.
    """

    claim_id: str
    text: str
    supported: bool
    asker: Asker
    query: str
    split: str = "test"
    now_tick: int = 0
    evidence: tuple[Evidence, ...] = ()
    kind: str = ""


@dataclass(frozen=True)
class Dataset:
    """A labelled set: every document version in ingest order, the queries, the graded
    judgements of each split and the labelled claims."""

    name: str
    docs: tuple[Doc, ...]
    queries: Mapping[str, Query]
    qrels: Mapping[str, Qrels]
    claims: tuple[LabelledClaim, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)

    def split_queries(self, split: str) -> tuple[Query, ...]:
        """The queries judged in ``split``, in query-file order."""
        judged = self.qrels[split]
        return tuple(q for qid, q in self.queries.items() if qid in judged)

    def split_claims(self, split: str) -> tuple[LabelledClaim, ...]:
        """The claims of ``split``, in file order."""
        return tuple(c for c in self.claims if c.split == split)
