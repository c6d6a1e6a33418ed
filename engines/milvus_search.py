"""How the Milvus adapter asks: the asker's view as a filter expression, the reference's
tokens as text, the three searches and the audit counts, each one Milvus call.

Lexical mode is a search of the BM25 field; dense mode a range search (``radius=0``:
cosine > 0, as the reference's dense index); hybrid is ``hybrid_search`` fused by
``RRFRanker(k=rrf_k)``: ``sum(1 / (k + rank))`` with ranks from 1, ragward's RRF exactly.
Milvus Lite returns a BM25 hit's score negated (``distance = -score``, best first) where
Milvus returns the score itself; :class:`Searcher` is told which.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragward.conformance.records import Policy
from ragward.engines.common import IndexRow, View
from ragward.engines.milvus_client import literal

__all__ = ["TOPK_MAX", "Searcher", "terms_text", "view_filter"]

#: Milvus' largest ``limit`` (its ``topk``): the audit counts ask for at most this many.
TOPK_MAX = 16384

# Every stored field a hit needs (not the text under BM25, not the vectors).
_FIELDS = [
    "chunk_id",
    "tenant",
    "doc_id",
    "version",
    "start_char",
    "end_char",
    "section",
    "text",
    "level",
    "barrier",
    "tick",
]

#: What the audit counts read of a match: its identity and labels, not its text.
_LABELS = ["chunk_id", "tenant", "level", "barrier", "tick"]

Scored = list[tuple[IndexRow, float]]


def view_filter(view: View) -> str:
    """The asker's eligible view as a Milvus boolean expression (on scalar fields only)."""
    parts = [f"tenant == {literal(view.tenant)}", f"level <= {view.max_level}"]
    if view.barriers:
        listed = ", ".join(literal(b) for b in view.barriers)
        parts.append(f"(barrier is null or barrier in [{listed}])")
    else:
        parts.append("barrier is null")
    if view.min_tick is not None:
        parts.append(f"tick >= {view.min_tick}")
    return " and ".join(parts)


def terms_text(terms: Sequence[str]) -> str:
    """The reference's tokens as text Milvus Lite's ``standard`` analyzer (``\\w+``,
    lower-cased; it has no whitespace tokenizer) reads back unchanged: it would split
    ``trf-3318`` in two, ``trf_3318`` it keeps whole (a reference token never holds
    ``_``)."""
    return " ".join(term.replace("-", "_") for term in terms)


def _row(entity: dict[str, Any]) -> IndexRow:
    return IndexRow.stored({**entity, "start": entity["start_char"], "end": entity["end_char"]})


def _labels(entity: dict[str, Any]) -> IndexRow:
    """A match as the counts see it: its labels, the rest left empty."""
    blank = {"doc_id": "", "version": 0, "start": 0, "end": 0, "section": "", "text": ""}
    return IndexRow.stored({**blank, **entity})


#: A range search: cosine > 0, as the reference's dense index.
_DENSE = {"metric_type": "COSINE", "params": {"radius": 0.0}}


@dataclass(frozen=True)
class Searcher:
    """The searches of one client; ``negated_bm25``: the server hands BM25 back as
    ``-score`` (Milvus Lite 3)."""

    client: Any
    m: Any
    negated_bm25: bool

    def lexical(
        self, name: str, text: str, where: str, limit: int, *, labels: bool = False
    ) -> Scored:
        """The BM25 search; ``labels``: the matches' labels only (for the counts)."""
        found = self.client.search(
            name,
            data=[text],
            anns_field="sparse",
            limit=limit,
            filter=where,
            output_fields=_LABELS if labels else _FIELDS,
            search_params={"metric_type": "BM25"},
        )
        sign = -1.0 if self.negated_bm25 else 1.0
        read = _labels if labels else _row
        return [(read(hit["entity"]), sign * float(hit["distance"])) for hit in found[0]]

    def dense(
        self, name: str, vector: tuple[float, ...], where: str, limit: int, *, labels: bool = False
    ) -> Scored:
        """The cosine range search; ``labels``: the matches' labels only."""
        found = self.client.search(
            name,
            data=[list(vector)],
            anns_field="dense",
            limit=limit,
            filter=where,
            output_fields=_LABELS if labels else _FIELDS,
            search_params=_DENSE,
        )
        read = _labels if labels else _row
        return [(read(hit["entity"]), float(hit["distance"])) for hit in found[0]]

    def hybrid(
        self, name: str, text: str, vector: tuple[float, ...] | None, where: str, policy: Policy
    ) -> Scored:
        """``hybrid_search`` over the legs the query has (the BM25 one when it has a term,
        the dense one when it has a direction), each filtered by ``where``."""
        request, limit = self.m.AnnSearchRequest, policy.candidate_limit
        legs = []
        if text:
            bm25 = {"metric_type": "BM25"}
            legs.append(
                request(data=[text], anns_field="sparse", param=bm25, limit=limit, expr=where)
            )
        if vector is not None:
            data = [list(vector)]
            legs.append(
                request(data=data, anns_field="dense", param=_DENSE, limit=limit, expr=where)
            )
        if not legs:
            return []
        # Milvus' RRF is 1 / (k + rank) with ranks from 1: k is ragward's rrf_k.
        ranker = self.m.RRFRanker(policy.rrf_k)
        found = self.client.hybrid_search(
            name, legs, ranker=ranker, limit=limit, output_fields=_FIELDS
        )
        return [(_row(hit["entity"]), float(hit["distance"])) for hit in found[0]]

    def counts(
        self, name: str, text: str, vector: tuple[float, ...] | None, view: View
    ) -> tuple[int, int, int]:
        """Chunks of the asker's tenant matching in a searched index, found by the engine,
        and how many of them the view leaves out (not entitled; entitled but stale)."""
        where = f"tenant == {literal(view.tenant)}"
        total = self.client.query(name, filter=where, output_fields=["count(*)"])
        limit = min(int(total[0]["count(*)"]), TOPK_MAX)
        if limit == 0:
            return 0, 0, 0
        matched: dict[str, IndexRow] = {}
        if text:
            for row, _ in self.lexical(name, text, where, limit, labels=True):
                matched[row.chunk_id] = row
        if vector is not None:
            for row, _ in self.dense(name, vector, where, limit, labels=True):
                matched[row.chunk_id] = row
        hidden = sum(1 for row in matched.values() if not view.visible(row))
        stale = sum(1 for row in matched.values() if view.visible(row) and not view.admits(row))
        return len(matched), hidden, stale
