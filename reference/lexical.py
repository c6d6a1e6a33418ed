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
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument
from ragward.reference.columns import Column

__all__ = ["BM25Index", "BM25Params"]

Rows = npt.NDArray[np.int32]
Counts = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]

_NO_ROWS: Rows = np.zeros(0, dtype=np.int32)
_NO_COUNTS: Counts = np.zeros(0, dtype=np.float32)


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


@dataclass(frozen=True)
class _TermScores:
    """One term under one view: its eligible rows, each one's share of the score, and the
    live rows outside the view that hold it (counted as matched, never scored)."""

    rows: Rows
    shares: Floats
    others: Rows


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
        # object per term of the vocabulary, most of which a corpus holds once or twice.
        self._pending: dict[str, array[int]] = {}
        self._frozen: dict[str, tuple[Rows, Counts]] = {}
        self._lengths = Column(np.float64)
        self.cached_bytes = 0
        self.postings = 0

    def add(self, row: int, tokens: list[str]) -> None:
        """Index ``tokens`` (a chunk's terms, in order) under ``row``; rows come in order."""
        if row != self._lengths.size:
            raise AssertionError(f"rows must be appended in order: got {row}")
        self._lengths.extend([len(tokens)])
        counted = Counter(tokens)
        self.postings += len(counted)
        for term, frequency in counted.items():
            pending = self._pending.get(term)
            if pending is None:
                pending = self._pending[term] = array("i")
            pending.append(row)
            pending.append(frequency)

    def _postings(self, term: str) -> tuple[Rows, Counts]:
        pending = self._pending.pop(term, None)
        frozen = self._frozen.get(term)
        if pending is not None:
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

    def lengths(self) -> Floats:
        """Token count of every row, as floats."""
        lengths: Floats = self._lengths.view()
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
        not (the audit counts need them).

        ``memo`` keeps what depends on ``eligible`` alone from one call to the next: ``N``,
        ``avgdl``, and for each term (at each query frequency asked) its eligible rows with
        their share of the score (what bm25s computes once at indexing, here once per
        view). The caller passes the same dict only while ``eligible`` and the postings are
        unchanged. What the views cache, over all of them until the next write, is bounded
        by the bytes of the postings themselves (:attr:`budget`); a term whose rows are all
        eligible shares its postings' rows and caches its shares alone.
        Work is proportional to the postings of the query's terms, plus one pass over the
        row masks.
        """
        n_rows = eligible.size
        memo = {} if memo is None else memo
        if "n_eligible" not in memo:
            memo["n_eligible"] = n_eligible = int(np.count_nonzero(eligible))
            # Lengths are integers, so this sum is exact and avgdl is independent of row order.
            memo["avgdl"] = float(self.lengths()[eligible].sum()) / max(n_eligible, 1)
            memo["terms"] = {}
        cache: dict[tuple[str, int], _TermScores] = memo["terms"]
        hits, shares, others = [], [], []
        # Sorted so that each row's sum is accumulated in the same order in every process.
        for term, query_frequency in sorted(Counter(query_tokens).items()):
            known = cache.get((term, query_frequency))
            if known is None:
                rows, counts = self._postings(term)
                if not rows.size:
                    continue
                known = self._term_scores(query_frequency, rows, counts, eligible, live, memo)
                cost = known.shares.nbytes + known.others.nbytes
                cost += 0 if known.rows is rows else known.rows.nbytes
                if self.cached_bytes + cost <= self.budget:
                    cache[term, query_frequency] = known
                    self.cached_bytes += cost
            hits.append(known.rows)
            shares.append(known.shares)
            others.append(known.others)
        if not hits:
            return np.zeros(n_rows), np.zeros(n_rows, dtype=np.bool_)
        hit = np.concatenate(hits)
        # bincount adds in input order: each row's sum runs over the terms in sorted order
        # from 0.0, the same in every process and wherever the row sits.
        # (with weights, bincount's result is float64)
        scores = cast(Floats, np.bincount(hit, weights=np.concatenate(shares), minlength=n_rows))
        # Every share is positive, so the scored rows are those with a score; marking
        # them from the scores is one pass over the rows instead of one write per posting.
        if hit.size > n_rows // 8:
            matched = scores > 0.0
        else:
            matched = np.zeros(n_rows, dtype=np.bool_)
            matched[hit] = True
        matched[np.concatenate(others)] = True
        matched &= live
        return scores, matched

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
    ) -> _TermScores:
        """One term's eligible rows with their share of the score, and its other live rows."""
        keep = eligible[rows]
        if keep.all():  # the usual case: the asker sees every row holding the term
            others = _NO_ROWS
        else:
            others = rows[~keep & live[rows]]
            counts, rows = counts[keep], rows[keep]
        df = rows.size
        if df == 0:
            return _TermScores(rows, np.zeros(0), others)
        n_eligible, avgdl = memo["n_eligible"], memo["avgdl"]
        k1, b = self.params.k1, self.params.b
        frequencies = counts.astype(np.float64)
        idf = math.log(1.0 + (n_eligible - df + 0.5) / (df + 0.5))
        norm = k1 * (1.0 - b + b * self.lengths()[rows] / avgdl)
        shares: Floats = query_frequency * idf * (frequencies * (k1 + 1.0)) / (frequencies + norm)
        return _TermScores(rows, shares, others)
