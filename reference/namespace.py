"""One tenant's partition: its chunks, their entitlement columns and both indexes.

Every tenant gets its own namespace, so a search never reads another tenant's rows and
its cost does not grow with the number of tenants. Within a namespace, chunks are rows;
classification, barrier, freshness tick and liveness are numpy columns from which an
asker's eligibility mask is computed in one vectorised pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ragward.analysis import PLAIN, Analyzer
from ragward.errors import VersionConflict
from ragward.reference.chunking import Chunk
from ragward.reference.columns import Column
from ragward.reference.dense import VectorIndex
from ragward.reference.documents import CLASSIFICATIONS, TICK_MAX, ReferenceAsker, ReferenceDoc
from ragward.reference.lexical import BM25Index, BM25Params

__all__ = ["BOTH", "DENSE", "LEXICAL", "Namespace"]

Mask = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]

# Compact when dead rows outnumber live ones and there are at least this many.
_COMPACT_MIN_DEAD = 1024

#: Which indexes read a row (a chunk): both, by default; one, under a split chunking.
LEXICAL, DENSE, BOTH = 1, 2, 3


#: Views kept per namespace between writes; past this many the cache starts again.
_VIEWS_KEPT = 64


@dataclass
class View:
    """What one asker may read at one freshness threshold, between two writes.

    ``visible`` marks the live rows the asker is entitled to, ``eligible`` those of them
    that are fresh; ``memo`` holds what the lexical index derives from ``eligible`` alone
    (``N``, ``avgdl``, document frequencies), so that questions asked from the same view
    do not count them again.
    """

    visible: Mask
    eligible: Mask
    memo: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)  # one per document: without slots each holds a dict of ~300 bytes
class _DocState:
    version: int
    rows: range  # a version's chunks are appended together, and stay together
    deleted: bool = False  # a deleted document keeps its version as a tombstone


class Namespace:
    """Chunks of one tenant with their lexical and dense indexes."""

    def __init__(
        self, tenant: str, params: BM25Params, dimensions: int, analyzer: Analyzer = PLAIN
    ) -> None:
        self.tenant = tenant
        self.analyzer = analyzer  # what the lexical index's terms and questions go through
        self.lexical = BM25Index(params)
        self.vectors = VectorIndex(dimensions)
        self.chunks: list[Chunk] = []
        self.docs: dict[str, _DocState] = {}
        self._live = Column(np.bool_)
        self._clearance = Column(np.int8)
        self._barrier = Column(np.int32)
        self._tick = Column(np.int64)
        self._role = Column(np.int8)
        self.split_roles = False  # True once any row is read by one index only
        self.compactions = 0  # times the rows were numbered anew
        self._barrier_codes: dict[str, int] = {}
        self._dead = 0
        self._views: dict[tuple[object, ...], View] = {}
        # The same views by what the asker gave (classification, barriers as given,
        # freshness threshold): a question's view found with one lookup.
        self._asked: dict[tuple[object, ...], View] = {}

    @property
    def live_rows(self) -> int:
        return len(self.chunks) - self._dead

    def version_of(self, doc_id: str) -> int | None:
        """The newest version ever ingested for ``doc_id`` (deleted or not)."""
        state = self.docs.get(doc_id)
        return None if state is None else state.version

    def check_version(self, document: ReferenceDoc) -> None:
        current = self.version_of(document.doc_id)
        if current is not None and document.version <= current:
            raise VersionConflict(
                f"document {document.doc_id!r} of tenant {document.tenant!r} is already at "
                f"version {current}; refusing version {document.version} "
                "(an upsert must carry a newer version)"
            )

    def upsert(
        self,
        document: ReferenceDoc,
        chunks: list[Chunk],
        tokens: list[list[str]],
        vectors: Floats | npt.NDArray[np.float32],
        roles: list[int] | None = None,
    ) -> None:
        """Replace every chunk of ``document``'s previous version with ``chunks``.

        ``roles`` says which index reads each chunk (:data:`LEXICAL`, :data:`DENSE` or
        :data:`BOTH`, the default); a dense-only row has no tokens, a lexical-only row a
        zero vector. The caller holds the retriever's lock and has already checked the
        version, so the swap is atomic to readers.
        """
        self.check_version(document)
        state = self.docs.get(document.doc_id)
        first = len(self.chunks)
        self._append(chunks, tokens, vectors, roles or [BOTH] * len(chunks))
        if state is not None:
            self._kill(state.rows)
        self.docs[document.doc_id] = _DocState(document.version, range(first, len(self.chunks)))
        self._maybe_compact()

    def delete(self, doc_id: str) -> bool:
        """Remove the document's chunks; its version stays as a tombstone."""
        state = self.docs.get(doc_id)
        if state is None or state.deleted:
            return False
        self._kill(state.rows)
        state.rows = range(0)
        state.deleted = True
        self._maybe_compact()
        return True

    def _append(
        self,
        chunks: list[Chunk],
        tokens: list[list[str]],
        vectors: Floats | npt.NDArray[np.float32],
        roles: list[int],
    ) -> None:
        # Every column value is computed before the first write, so nothing here can fail
        # half-way through an upsert.
        self._forget_views()
        clearance = [CLASSIFICATIONS.index(c.classification) for c in chunks]
        barriers = [self._barrier_code(c.barrier) for c in chunks]
        ticks = [c.updated_tick for c in chunks]
        for chunk, chunk_tokens in zip(chunks, tokens, strict=True):
            self.lexical.add(len(self.chunks), chunk_tokens)
            self.chunks.append(chunk)
        self.vectors.add(vectors)
        self._live.extend([True] * len(chunks))
        self._clearance.extend(clearance)
        self._barrier.extend(barriers)
        self._tick.extend(ticks)
        self._role.extend(roles)
        self.split_roles = self.split_roles or any(role != BOTH for role in roles)

    def _barrier_code(self, barrier: str | None) -> int:
        if barrier is None:
            return 0
        return self._barrier_codes.setdefault(barrier, len(self._barrier_codes) + 1)

    def _forget_views(self) -> None:
        self._views.clear()
        self._asked.clear()
        self.lexical.forget_views()

    def _kill(self, rows: range) -> None:
        self._forget_views()
        self._live.view()[rows.start : rows.stop] = False
        self._dead += len(rows)

    def _maybe_compact(self) -> None:
        if self._dead < _COMPACT_MIN_DEAD or self._dead <= self.live_rows:
            return
        live = np.flatnonzero(self._live.view())
        fresh = Namespace(self.tenant, self.lexical.params, self.vectors.dimensions, self.analyzer)
        fresh._barrier_codes = self._barrier_codes
        remap = {int(old): new for new, old in enumerate(live)}
        roles = self._role.view()
        fresh._append(
            [self.chunks[i] for i in live],
            [
                self.analyzer.terms(self.chunks[i].search_text) if roles[i] & LEXICAL else []
                for i in live
            ],
            self.vectors.matrix()[live],
            [int(roles[i]) for i in live],
        )
        # Compaction keeps the order of the live rows, so a version's rows stay together.
        for state in self.docs.values():
            if state.rows:
                first = remap[state.rows.start]
                state.rows = range(first, first + len(state.rows))
        fresh.docs = self.docs
        fresh.compactions = self.compactions + 1
        self.__dict__.update(fresh.__dict__)

    def read_by(self, index: int) -> Mask:
        """Rows the lexical (:data:`LEXICAL`) or dense (:data:`DENSE`) index reads."""
        read: Mask = (self._role.view() & index) != 0
        return read

    def live(self) -> Mask:
        live: Mask = self._live.view()
        return live

    def visible(self, principal: ReferenceAsker) -> Mask:
        """Live rows ``principal`` is entitled to: clearance and barriers (tenant is ours)."""
        mask = self.live() & (self._clearance.view() <= principal.clearance)
        codes = [self._barrier_codes[b] for b in principal.barriers if b in self._barrier_codes]
        barrier = self._barrier.view()
        mask &= (barrier == 0) | np.isin(barrier, codes)
        return mask

    def view(self, principal: ReferenceAsker, now_tick: int, max_stale_ticks: int | None) -> View:
        """The asker's :class:`View` at ``now_tick``, kept until the next write.

        Two calls share a view when they would compute the same masks: same clearance,
        same barriers among those this namespace holds, same freshness threshold.
        """
        threshold = None if max_stale_ticks is None else self._threshold(now_tick, max_stale_ticks)
        asked = (principal.max_classification, principal.barriers, threshold)
        view = self._asked.get(asked)
        if view is not None:
            return view
        barriers = tuple(sorted(b for b in set(principal.barriers) if b in self._barrier_codes))
        key = (principal.clearance, barriers, threshold)
        view = self._views.get(key)
        if view is None:
            if len(self._views) >= _VIEWS_KEPT:
                self._forget_views()
            visible = self.visible(principal)
            view = View(visible, visible & ~self.stale(now_tick, max_stale_ticks))
            self._views[key] = view
        if len(self._asked) >= 4 * _VIEWS_KEPT:
            self._asked.clear()
        self._asked[asked] = view
        return view

    @staticmethod
    def _threshold(now_tick: int, max_stale_ticks: int | None) -> int | None:
        """The oldest fresh tick, as :meth:`stale` compares it (None: every row is fresh)."""
        oldest = None if max_stale_ticks is None else now_tick - max_stale_ticks
        return None if oldest is None else max(min(oldest, TICK_MAX + 1), -TICK_MAX)

    def stale(self, now_tick: int, max_stale_ticks: int | None) -> Mask:
        """Rows older than the freshness contract allows at ``now_tick``.

        A row is stale when ``now_tick - updated_tick > max_stale_ticks``, compared as
        ``updated_tick < now_tick - max_stale_ticks`` in Python integers, so no tick
        arithmetic can overflow the int64 column.
        """
        ticks = self._tick.view()
        if max_stale_ticks is None:
            return np.zeros(ticks.size, dtype=np.bool_)
        oldest_fresh = now_tick - max_stale_ticks
        if oldest_fresh > TICK_MAX:
            return np.ones(ticks.size, dtype=np.bool_)
        stale: Mask = ticks < max(oldest_fresh, -TICK_MAX)
        return stale
