"""What every engine adapter shares: chunks as index rows, the asker's view as a filter,
hits in the kit's records, and the factory keywords the evals pass.

An engine adapter translates; it does not re-implement retrieval beside the engine. So the
pieces here are the ones that are *not* the engine's job and must be the same for every
engine, to make their verdicts and their figures comparable with the reference's: the
chunker (the reference's, so every engine indexes the same spans), the embedder (through
:mod:`ragward.models.registry`: the hash embedder for the kit, MiniLM for the evals), and
the order of a ranking's ties (``(-score, chunk_id)``, applied to what the engine
returned, never used to fetch more than the engine was asked for).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragward.conformance.records import Asker, Doc, Hit, Policy
from ragward.engines.reference_records import reference_doc
from ragward.errors import InvalidArgument
from ragward.models.identity import model_identity
from ragward.models.registry import embedder_named
from ragward.reference import Chunking, Embedder, HashEmbedder, chunk_document
from ragward.reference.documents import TICK_MAX
from ragward.reference.text import tokenize

__all__ = [
    "LEVELS",
    "IndexRow",
    "Settings",
    "View",
    "ingest_newer",
    "ranked",
    "settings_of",
]

#: Classification names to the integers an engine filters on (a range: ``<= max``).
LEVELS: dict[str, int] = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}


@dataclass(frozen=True)
class IndexRow:
    """One chunk as an engine stores it: identity, provenance, labels, text and vector.

    ``search_text`` is what the lexical and dense indexes read (title, heading and text,
    as the reference indexes); ``text`` is the exact span the hit cites. ``terms`` are the
    reference's tokens of ``search_text``, for engines that take pre-tokenised text.
    ``vector`` is None when the embedder gave a zero vector (a text with no token under
    the hash embedder): such a chunk has no direction, so it is left out of the dense
    index rather than stored as a vector no cosine is defined for.
    """

    chunk_id: str
    tenant: str
    doc_id: str
    version: int
    start: int
    end: int
    section: str
    text: str
    search_text: str
    level: int
    barrier: str | None
    tick: int
    terms: tuple[str, ...]
    vector: tuple[float, ...] | None

    @classmethod
    def stored(cls, fields: Mapping[str, Any], terms: tuple[str, ...] = ()) -> IndexRow:
        """A row read back from an engine's stored fields (its payload or columns), with
        no search text or vector: what a hit and a count need."""
        return cls(
            chunk_id=fields["chunk_id"],
            tenant=fields["tenant"],
            doc_id=fields["doc_id"],
            version=fields["version"],
            start=fields["start"],
            end=fields["end"],
            section=fields["section"],
            text=fields["text"],
            search_text="",
            level=fields["level"],
            barrier=fields["barrier"],
            tick=fields["tick"],
            terms=terms,
            vector=None,
        )

    def hit(self, score: float) -> Hit:
        """This row returned with ``score``, its citation in the reference's form."""
        return Hit(
            chunk_id=self.chunk_id,
            doc_id=self.doc_id,
            version=self.version,
            start=self.start,
            end=self.end,
            text=self.text,
            score=float(score),
            citation=f"{self.doc_id}@v{self.version}#{self.section}[{self.start}:{self.end}]",
        )


@dataclass(frozen=True)
class View:
    """The asker's eligible view as an engine filter: own tenant, classification at most
    ``max_level``, barrier none or one of ``barriers``, updated at or after ``min_tick``
    (None: no freshness contract). Engines filter on these *before* ranking."""

    tenant: str
    max_level: int
    barriers: tuple[str, ...]
    min_tick: int | None

    @classmethod
    def of(cls, asker: Asker, now_tick: int, policy: Policy) -> View:
        if asker.max_classification not in LEVELS:
            raise InvalidArgument(
                f"Asker.max_classification must be one of {', '.join(LEVELS)}, "
                f"got {asker.max_classification!r}"
            )
        stale = policy.max_stale_ticks
        return cls(
            asker.tenant,
            LEVELS[asker.max_classification],
            tuple(sorted(set(asker.barriers))),
            # Kept inside int64, as the reference compares: an edge below every tick an
            # engine holds is an SQL literal it can parse (-2**63 is not one, in DataFusion
            # or as PostgreSQL's bigint), and admits the same rows.
            None if stale is None else max(now_tick - stale, -TICK_MAX),
        )

    def admits(self, row: IndexRow) -> bool:
        """Whether ``row`` is inside the view (for counts an engine cannot filter itself)."""
        return self.visible(row) and (self.min_tick is None or row.tick >= self.min_tick)

    def visible(self, row: IndexRow) -> bool:
        """Whether ``row`` is entitled (tenant, classification, barrier), stale or not."""
        return (
            row.tenant == self.tenant
            and row.level <= self.max_level
            and (row.barrier is None or row.barrier in self.barriers)
        )


@dataclass(frozen=True)
class Settings:
    """How an engine adapter indexes: the reference's chunking and an embedder."""

    chunking: Chunking
    embedder: Embedder

    def rows(self, doc: Doc) -> list[IndexRow]:
        """``doc`` cut into index rows, each with its vector (batched over the document)."""
        return self.rows_of_many([doc])

    def rows_by_version(self, docs: list[Doc]) -> dict[tuple[str, str, int], list[IndexRow]]:
        """:meth:`rows_of_many` of ``docs`` (a bad classification refused before anything
        is written), grouped by ``(tenant, doc_id, version)``: what a bulk ingest writes
        for each document it accepts."""
        grouped: dict[tuple[str, str, int], list[IndexRow]] = {}
        for row in self.rows_of_many(docs):
            grouped.setdefault((row.tenant, row.doc_id, row.version), []).append(row)
        return grouped

    def rows_of_many(self, docs: Iterable[Doc]) -> list[IndexRow]:
        """Every document of ``docs`` (any iterable, read once) cut into index rows,
        embedded in one batch."""
        docs = list(docs)  # read once: a generator has no second pass
        if any(d.classification not in LEVELS for d in docs):
            bad = next(d for d in docs if d.classification not in LEVELS)
            raise InvalidArgument(
                f"Doc.classification must be one of {', '.join(LEVELS)}, "
                f"got {bad.classification!r} (doc {bad.doc_id!r})"
            )
        pieces = []
        for doc in docs:
            chunking = self.chunking
            for chunk in chunk_document(
                reference_doc(doc),
                max_tokens=chunking.max_tokens,
                overlap_tokens=chunking.overlap_tokens,
            ):
                pieces.append((doc, chunk))
        if not pieces:
            return []
        texts = [chunk.search_text for _, chunk in pieces]
        vectors = np.asarray(self.embedder.embed(texts), dtype=np.float64)
        rows = []
        for (doc, chunk), vector in zip(pieces, vectors, strict=True):
            norm = float(np.linalg.norm(vector))
            rows.append(
                IndexRow(
                    chunk_id=chunk.chunk_id,
                    tenant=doc.tenant,
                    doc_id=doc.doc_id,
                    version=doc.version,
                    start=chunk.start_char,
                    end=chunk.end_char,
                    section=chunk.section,
                    text=chunk.text,
                    search_text=chunk.search_text,
                    level=LEVELS[doc.classification],
                    barrier=doc.barrier,
                    tick=doc.updated_tick,
                    terms=tuple(tokenize(chunk.search_text)),
                    vector=tuple(float(x) for x in vector) if norm > 0.0 else None,
                )
            )
        return rows

    def query_vector(self, query: str) -> tuple[float, ...] | None:
        """The query's vector, or None when it has no direction (no dense search then)."""
        vector = np.asarray(self.embedder.embed([query]), dtype=np.float64)[0]
        if float(np.linalg.norm(vector)) == 0.0:
            return None
        return tuple(float(x) for x in vector)

    @property
    def dimensions(self) -> int:
        return self.embedder.dimensions

    @property
    def model_identity(self) -> str:
        """The embedder as eval reports record it (:mod:`ragward.models.identity`)."""
        return f"embedder {model_identity(self.embedder)}"


def settings_of(
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
) -> Settings:
    """The factory keywords the evals pass (see :mod:`ragward.evals.systems`), as settings:
    unset ones keep the reference's defaults (its chunking, the 96-d hash embedder)."""
    defaults = Chunking()
    chunking = Chunking(
        defaults.max_tokens if max_tokens is None else max_tokens,
        defaults.overlap_tokens if overlap_tokens is None else overlap_tokens,
    )
    return Settings(chunking, HashEmbedder() if embedder is None else embedder_named(embedder))


def ranked(
    scored: Iterable[tuple[IndexRow, float]], limit: int, unit: str = "chunks"
) -> list[tuple[IndexRow, float]]:
    """What an engine returned, in ``(-score, chunk_id)`` order, cut at ``limit`` chunks or
    documents. Only reorders and cuts: it never adds a row the engine did not return."""
    order = sorted(scored, key=lambda pair: (-pair[1], pair[0].chunk_id))
    if unit == "chunks":
        return order[:limit]
    seen: set[str] = set()
    for position, (row, _) in enumerate(order):
        if row.doc_id not in seen and len(seen) == limit:
            return order[:position]
        seen.add(row.doc_id)
    return order


def ingest_newer(
    settings: Settings,
    versions: dict[tuple[str, str], int],
    docs: Iterable[Doc],
    write: Callable[[Doc, int | None, list[IndexRow]], None],
) -> tuple[bool, ...]:
    """The contract's ``ingest_many`` for an adapter that keeps its versions in memory,
    beside its engine: each document (any iterable, read once), in order, is accepted only
    when newer than the live version of its ``(tenant, doc_id)``; ``write(doc, previous,
    rows)`` stores an accepted one (``previous``: the version it replaces, or None) once
    ``versions`` holds it. Every document is chunked first, so a bad one writes nothing."""
    docs = list(docs)  # read once: a generator has no second pass
    by_version = settings.rows_by_version(docs)
    accepted = []
    for doc in docs:
        key = (doc.tenant, doc.doc_id)
        previous = versions.get(key)
        if previous is not None and doc.version <= previous:
            accepted.append(False)
            continue
        versions[key] = doc.version
        write(doc, previous, by_version.get((doc.tenant, doc.doc_id, doc.version), []))
        accepted.append(True)
    return tuple(accepted)
