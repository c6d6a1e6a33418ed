"""Okapi BM25 over postings, with every statistic taken over a caller-given row mask.

Scores follow Robertson & Zaragoza (2009), "The Probabilistic Relevance Framework: BM25
and Beyond", with the Lucene IDF ``ln(1 + (N - df + 0.5) / (df + 0.5))``, which is
positive for every ``df``, and a query term counted as often as it occurs in the query.

``N``, ``avgdl`` and each ``df`` are computed over the rows the caller marks eligible, so a
row outside that set cannot move any score: this is what makes the statistics of an
authorized search depend on the asker's view alone.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument
from ragward.reference.columns import Column

__all__ = [
    "KERNEL",
    "BM25Index",
    "BM25Params",
    "Buffers",
    "Gathered",
    "LexicalTop",
    "Masks",
    "TermScores",
    "count_matched",
]

Rows = npt.NDArray[np.int32]
Counts = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]

_NO_ROWS: Rows = np.zeros(0, dtype=np.int32)
#: Makes a named tuple from a tuple of its fields, as its ``_make`` does, in C.
_NEW_TUPLE = tuple.__new__
_NO_COUNTS: Counts = np.zeros(0, dtype=np.float32)
#: The low 32 bits of a posting packed in an int: its count.
_LOW = (1 << 32) - 1

_NO_FLOATS: Floats = np.zeros(0)

_bm25_top: Callable[..., tuple[int, list[int], list[float], tuple[int, int, int]]] | None
try:  # the compiled kernel, when the C extension was built (it is optional)
    from ragward.reference._kernels import bm25_top as _bm25_top
except ImportError:  # the numpy path: the same floats, without a C compiler at install
    _bm25_top = None

#: Whether :meth:`Gathered.top` runs the compiled kernel (tests switch it off to compare).
KERNEL = {"enabled": _bm25_top is not None}


@dataclass(frozen=True)
class BM25Params:
    """``k1`` saturates term frequency; ``b`` sets how much length normalisation applies."""

    k1: float = 1.5
    b: float = 0.75

    def __post_init__(self) -> None:
        if isinstance(self.k1, bool) or not (
            isinstance(self.k1, int | float) and math.isfinite(self.k1) and self.k1 >= 0
        ):
            raise InvalidArgument(f"BM25Params.k1 must be a finite number >= 0, got {self.k1!r}")
        if isinstance(self.b, bool) or not (
            isinstance(self.b, int | float) and 0.0 <= self.b <= 1.0
        ):
            raise InvalidArgument(f"BM25Params.b must be in [0, 1], got {self.b!r}")


class TermScores(NamedTuple):
    """One query term under one view: its eligible rows, each one's share of the score,
    and the live rows outside the view that hold it (counted as matched, never scored).
    A tuple, as the compiled kernel reads it."""

    rows: Rows
    shares: Floats
    others: Rows


#: A term no row of the namespace holds.
_ABSENT = TermScores(_NO_ROWS, _NO_FLOATS, _NO_ROWS)
#: What the views' budget counts for remembering that a term is absent.
_ABSENT_COST = 64


#: A float64 scratch of zeros, one per row, and an int32 buffer one place longer.
Buffers = tuple[Floats, Rows]


@dataclass(frozen=True)
class Masks:
    """The row masks of one view that a lexical first stage reads: ``rankable``, the rows
    BM25 may rank; ``live``, ``visible`` and ``eligible``, for the audit counts; and the
    four packed in a byte per row (bits 1, 2, 4, 8), as the compiled kernel reads them
    (made once per view, :meth:`of`)."""

    rankable: Mask
    live: Mask
    visible: Mask
    eligible: Mask
    classes: npt.NDArray[np.uint8]
    #: The class every row has, or -1 (then the kernel reads each row's).
    uniform: int = -1

    @classmethod
    def of(cls, rankable: Mask, live: Mask, visible: Mask, eligible: Mask) -> Masks:
        classes = rankable.astype(np.uint8)
        for bit, mask in ((2, live), (4, visible), (8, eligible)):
            classes |= mask.view(np.uint8) * np.uint8(bit)
        first = int(classes[0]) if classes.size else -1
        uniform = first if classes.size and not np.any(classes != first) else -1
        return cls(rankable, live, visible, eligible, classes, uniform)


class LexicalTop(NamedTuple):
    """What :meth:`Gathered.top` found: ``scored``, every row with a score; ``rows`` and
    ``scores``, the best rankable ones in ``(-score, row)`` order, ties with the last
    place included; ``counts``, the audit counts of the scored rows (considered, hidden,
    stale)."""

    scored: npt.NDArray[np.integer[Any]]
    rows: list[int]
    scores: list[float]
    counts: tuple[int, int, int]


class Gathered(NamedTuple):
    """A query's postings under one view (:meth:`BM25Index.gather`): ``terms``, one
    :class:`TermScores` per distinct query term, in sorted order (a term no eligible row
    holds has no rows); ``others``, the live rows outside the view holding a query term
    (matched, never scored), possibly repeated; ``n_rows``, the rows of the namespace."""

    terms: list[TermScores]
    others: Rows
    n_rows: int

    @classmethod
    def of(cls, rows: list[Rows], shares: list[Floats], others: Rows, n_rows: int) -> Gathered:
        """Postings given as parallel lists of each term's rows and shares."""
        terms = [TermScores(r, s, _NO_ROWS) for r, s in zip(rows, shares, strict=True)]
        return cls(terms, others, n_rows)

    @property
    def rows(self) -> list[Rows]:
        """Each term's eligible rows."""
        return [term.rows for term in self.terms]

    @property
    def shares(self) -> list[Floats]:
        """Each term's shares of the score, one per row of :attr:`rows`."""
        return [term.shares for term in self.terms]

    def scores(self) -> Floats:
        """Every row's score: its shares summed in order from 0.0."""
        if not self.terms:
            return np.zeros(self.n_rows)
        # bincount adds in input order: each row's sum runs over the terms in sorted order
        # from 0.0, the same in every process and wherever the row sits.
        # (with weights, bincount's result is float64)
        return cast(
            Floats,
            np.bincount(
                np.concatenate(self.rows),
                weights=np.concatenate(self.shares),
                minlength=self.n_rows,
            ),
        )

    def top(self, limit: int, buffers: Buffers, masks: Masks) -> LexicalTop:
        """The ``limit`` best rows ``masks.rankable`` marks, by ``(-score, row)``, with every
        row tied with the last place (ties by chunk_id are the caller's: see
        :func:`~ragward.reference.ranking.break_ties`), every row scored, and the audit
        counts of the rows scored (:func:`count_matched`).

        The compiled kernel does it in one pass over the hits and one over the rows they
        reach, whatever the size of the namespace; numpy sums the same shares in the same
        order (:meth:`scores`) and gives the same floats. ``buffers`` are the namespace's
        (:meth:`BM25Index.buffers`); ``scored`` may be a view of them, good until the next
        query.
        """
        limit = min(limit, self.n_rows)  # the kernel sizes its heap by the limit
        if KERNEL["enabled"] and _bm25_top is not None:
            scratch, touched = buffers
            count, rows, scores, counts = _bm25_top(
                self.terms, scratch, masks.classes, limit, touched, masks.uniform
            )
            # made as a plain tuple is (the named tuple's own __new__ is Python code)
            return _NEW_TUPLE(LexicalTop, (touched[:count], rows, scores, counts))
        every = self.scores()
        scored = np.flatnonzero(every != 0.0)  # a mask: 6x faster than of the floats
        candidates = scored[masks.rankable[scored]]
        values = every[candidates]
        if candidates.size > limit:
            if limit:
                last = np.partition(values, values.size - limit)[values.size - limit]
            else:
                last = np.inf
            keep = values >= last
            candidates, values = candidates[keep], values[keep]
        order = np.argsort(-values, kind="stable")  # candidates ascend: ties by row
        return LexicalTop(
            scored,
            candidates[order].tolist(),
            values[order].tolist(),
            count_matched(scored, masks.live, masks.visible, masks.eligible),
        )

    def matched(self, live: Mask) -> Mask:
        """The ``live`` rows holding a query term, visible or not."""
        matched = np.zeros(self.n_rows, dtype=np.bool_)
        for term in self.terms:
            matched[term.rows] = True
        matched[self.others] = True
        matched &= live
        return matched


def count_matched(
    rows: npt.NDArray[np.integer[Any]], live: Mask, visible: Mask, eligible: Mask
) -> tuple[int, int, int]:
    """Of distinct ``rows``: how many are ``live``, how many of those not ``visible``, and
    how many ``visible`` but not ``eligible`` (the audit counts of the rows matched)."""
    rows = rows[live[rows]]
    seen = visible[rows]
    return (
        int(rows.size),
        int(rows.size - np.count_nonzero(seen)),
        int(np.count_nonzero(seen & ~eligible[rows])),
    )


class BM25Index:
    """Postings of one namespace: for each term, the rows holding it and how often.

    Rows are appended as chunks arrive and are never renumbered here; a deleted row stays
    in its postings and is masked out by the caller (the namespace compacts from time to
    time). A posting is 8 bytes: an int32 row and a float32 count (exact for any count
    below 2**24). Appends go to one typed buffer per term, frozen into arrays on the next
    read of the term.
    """

    def __init__(self, params: BM25Params | None = None) -> None:
        self.params = params or BM25Params()
        # Per term, pairs (row, count) one after the other in one int32 buffer: one
        # object per term of the vocabulary, most of which a corpus holds once or twice
        # (a term held once keeps its one pair packed in an int, see :meth:`add`).
        self._pending: dict[str, array[int] | int] = {}
        self._frozen: dict[str, tuple[Rows, Counts]] = {}
        # Token counts as int32: half the bytes of floats, and read as float64 they are the
        # same numbers (every count is an integer far below 2**53).
        self._lengths = Column(np.int32)
        self.cached_bytes = 0
        self.postings = 0
        self._buffers: Buffers = (np.zeros(0), np.zeros(1, dtype=np.int32))

    def add(self, row: int, tokens: list[str]) -> None:
        """Index ``tokens`` (a chunk's terms, in order) under ``row``; rows come in order."""
        if row != self._lengths.size:
            raise AssertionError(f"rows must be appended in order: got {row}")
        self._lengths.extend([len(tokens)])
        counted = Counter(tokens)
        self.postings += len(counted)
        pending_of = self._pending
        for term, frequency in counted.items():
            pending = pending_of.get(term)
            if pending is None:
                # A term's first posting is one int, (row << 32) | count: most terms of a
                # large vocabulary are held once, and an int takes half an array's bytes.
                pending_of[term] = row << 32 | frequency
            elif isinstance(pending, int):
                pending_of[term] = array("i", (pending >> 32, pending & _LOW, row, frequency))
            else:
                pending.append(row)
                pending.append(frequency)

    def _postings(self, term: str) -> tuple[Rows, Counts]:
        pending = self._pending.pop(term, None)
        frozen = self._frozen.get(term)
        if pending is not None:
            if isinstance(pending, int):
                pending = array("i", (pending >> 32, pending & _LOW))
            pairs = np.frombuffer(pending, dtype=np.int32).reshape(-1, 2)
            rows = pairs[:, 0].copy()
            counts = pairs[:, 1].astype(np.float32)
            if frozen is not None:
                rows = np.concatenate((frozen[0], rows))
                counts = np.concatenate((frozen[1], counts))
            frozen = (rows, counts)
            self._frozen[term] = frozen
        if frozen is None:
            return _NO_ROWS, _NO_COUNTS
        return frozen

    def counts(self, terms: Sequence[str], rows: Sequence[int]) -> npt.NDArray[np.int64]:
        """How often each of ``terms`` occurs in each of ``rows``: one row of counts per
        term, found by binary search in the term's postings (rows ascend in them)."""
        wanted = np.asarray(rows, dtype=np.int32)
        out = np.zeros((len(terms), wanted.size), dtype=np.int64)
        for number, term in enumerate(terms):
            held, counts = self._postings(term)
            if not held.size:
                continue
            at = np.minimum(np.searchsorted(held, wanted), held.size - 1)
            found = held[at] == wanted
            out[number, found] = counts[at[found]]
        return out

    def lengths(self) -> Rows:
        """Token count of every row."""
        lengths: Rows = self._lengths.view()
        return lengths

    def forget_views(self) -> None:
        """Drop the budget held by cached views (the namespace calls this on every write,
        when it drops the views themselves)."""
        self.cached_bytes = 0

    def score(
        self,
        query_tokens: list[str],
        eligible: Mask,
        live: Mask,
        memo: dict[str, Any] | None = None,
    ) -> tuple[Floats, Mask]:
        """BM25 of every row for the query, statistics over ``eligible`` rows only.

        Returns ``(scores, matched)``: ``scores`` is zero outside ``eligible`` rows that share
        a query term; ``matched`` marks the ``live`` rows that share a query term, visible or
        not (the audit counts need them). :meth:`gather` says what ``memo`` keeps.
        """
        found = self.gather(query_tokens, eligible, live, memo)
        return found.scores(), found.matched(live)

    def gather(
        self,
        query_tokens: list[str],
        eligible: Mask,
        live: Mask,
        memo: dict[str, Any] | None = None,
    ) -> Gathered:
        """The postings of the query's terms under ``eligible``: each eligible row holding a
        term with its share of the row's score, and the other live rows holding one.

        ``memo`` keeps what depends on ``eligible`` alone from one call to the next: ``N``,
        ``avgdl``, and for each term (at each query frequency asked) its eligible rows with
        their share of the score (what bm25s computes once at indexing, here once per
        view). The caller passes the same dict only while ``eligible`` and the postings are
        unchanged. What the views cache, over all of them until the next write, is bounded
        by the bytes of the postings themselves (:attr:`budget`); a term whose rows are all
        eligible shares its postings' rows and caches its shares alone.
        Work is proportional to the postings of the query's terms, plus one pass over the
        row masks per view.
        """
        memo = {} if memo is None else memo
        if "n_eligible" not in memo:
            memo["n_eligible"] = n_eligible = int(np.count_nonzero(eligible))
            # Lengths are integers summed in int64, so this sum is exact and avgdl is
            # independent of row order.
            memo["avgdl"] = float(self.lengths()[eligible].sum()) / max(n_eligible, 1)
            memo["terms"] = {}
            # Every live row eligible: no term has rows outside the view.
            memo["complete"] = not np.any(live & ~eligible)
        cache: dict[tuple[str, int], TermScores] = memo["terms"]
        # Sorted so that each row's sum is accumulated in the same order in every process.
        # (Counted in a plain loop: a dozen terms count faster than a Counter is made.)
        frequency: dict[str, int] = {}
        for token in query_tokens:
            frequency[token] = frequency.get(token, 0) + 1
        keys = sorted(frequency.items())
        try:  # every term scored before in this view: the lookups run in C
            terms = list(map(cache.__getitem__, keys))
        except KeyError:  # a term this view has not scored yet
            terms = [
                known
                if (known := cache.get(key)) is not None
                else self._term(key, eligible, live, memo)
                for key in keys
            ]
        if memo["complete"]:
            return _NEW_TUPLE(Gathered, (terms, _NO_ROWS, eligible.size))
        others = [term.others for term in terms if term.others.size]
        return Gathered(terms, np.concatenate(others) if others else _NO_ROWS, eligible.size)

    def _term(
        self, key: tuple[str, int], eligible: Mask, live: Mask, memo: dict[str, Any]
    ) -> TermScores:
        """One term's scores under the view of ``memo``, kept there while the views'
        budget allows (a term no row holds is remembered too)."""
        term, query_frequency = key
        rows, counts = self._postings(term)
        if rows.size:
            known = self._term_scores(query_frequency, rows, counts, eligible, live, memo)
            cost = known.shares.nbytes + known.others.nbytes
            cost += 0 if known.rows is rows else known.rows.nbytes
        else:
            known, cost = _ABSENT, _ABSENT_COST
        if self.cached_bytes + cost <= self.budget:
            memo["terms"][key] = known
            self.cached_bytes += cost
        return known

    def buffers(self, rows: int) -> Buffers:
        """What :meth:`Gathered.top` works in, kept between queries (the caller holds the
        retriever's lock): a float64 buffer of ``rows`` zeros, which it leaves zero again,
        and an int32 buffer of ``rows + 1`` places for the rows reached."""
        if self._buffers[0].size != rows:
            self._buffers = (np.zeros(rows), np.zeros(rows + 1, dtype=np.int32))
        return self._buffers

    @property
    def budget(self) -> int:
        """How many bytes the views may cache between two writes: as many as the postings
        take (8 bytes each), and 4 KiB."""
        return 8 * self.postings + 4096

    def _term_scores(
        self,
        query_frequency: int,
        rows: Rows,
        counts: Counts,
        eligible: Mask,
        live: Mask,
        memo: dict[str, Any],
    ) -> TermScores:
        """One term's eligible rows with their share of the score, and its other live rows."""
        keep = eligible[rows]
        if keep.all():  # the usual case: the asker sees every row holding the term
            others = _NO_ROWS
        else:
            others = rows[~keep & live[rows]]
            counts, rows = counts[keep], rows[keep]
        df = rows.size
        if df == 0:
            return TermScores(rows, _NO_FLOATS, others)
        n_eligible, avgdl = memo["n_eligible"], memo["avgdl"]
        k1, b = self.params.k1, self.params.b
        frequencies = counts.astype(np.float64)
        idf = math.log(1.0 + (n_eligible - df + 0.5) / (df + 0.5))
        norm = k1 * (1.0 - b + b * self.lengths()[rows] / avgdl)
        shares: Floats = query_frequency * idf * (frequencies * (k1 + 1.0)) / (frequencies + norm)
        return TermScores(rows, shares, others)
