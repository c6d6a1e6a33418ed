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
from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument
from ragward.reference.columns import Column

__all__ = ["BM25Index", "BM25Params"]

Rows = npt.NDArray[np.intp]
Floats = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


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


class BM25Index:
    """Postings of one namespace: for each term, the rows holding it and how often.

    Rows are appended as chunks arrive and are never renumbered here; a deleted row stays
    in its postings and is masked out by the caller (the namespace compacts from time to
    time). Appends go to lists that are frozen into arrays on the next read.
    """

    def __init__(self, params: BM25Params | None = None) -> None:
        self.params = params or BM25Params()
        self._pending: dict[str, tuple[list[int], list[float]]] = {}
        self._frozen: dict[str, tuple[Rows, Floats]] = {}
        self._lengths = Column(np.float64)

    def add(self, row: int, tokens: list[str]) -> None:
        """Index ``tokens`` (a chunk's terms, in order) under ``row``; rows come in order."""
        if row != self._lengths.size:
            raise AssertionError(f"rows must be appended in order: got {row}")
        self._lengths.extend([len(tokens)])
        for term, frequency in Counter(tokens).items():
            rows, frequencies = self._pending.setdefault(term, ([], []))
            rows.append(row)
            frequencies.append(float(frequency))

    def _postings(self, term: str) -> tuple[Rows, Floats]:
        pending = self._pending.pop(term, None)
        frozen = self._frozen.get(term)
        if pending is not None:
            rows = np.asarray(pending[0], dtype=np.intp)
            frequencies = np.asarray(pending[1], dtype=np.float64)
            if frozen is not None:
                rows = np.concatenate((frozen[0], rows))
                frequencies = np.concatenate((frozen[1], frequencies))
            frozen = (rows, frequencies)
            self._frozen[term] = frozen
        if frozen is None:
            return np.zeros(0, dtype=np.intp), np.zeros(0)
        return frozen

    def lengths(self) -> Floats:
        """Token count of every row, as floats."""
        lengths: Floats = self._lengths.view()
        return lengths

    def score(self, query_tokens: list[str], eligible: Mask, live: Mask) -> tuple[Floats, Mask]:
        """BM25 of every row for the query, statistics over ``eligible`` rows only.

        Returns ``(scores, matched)``: ``scores`` is zero outside ``eligible`` rows that share
        a query term; ``matched`` marks the ``live`` rows that share a query term, visible or
        not (the audit counts need them). Work is proportional to the postings of the query's
        terms plus one pass over the row masks.
        """
        n_rows = eligible.size
        scores = np.zeros(n_rows)
        matched = np.zeros(n_rows, dtype=np.bool_)
        n_eligible = int(np.count_nonzero(eligible))
        if n_eligible == 0 or not query_tokens:
            for term in sorted(set(query_tokens)):
                rows, _ = self._postings(term)
                matched[rows[live[rows]]] = True
            return scores, matched
        lengths = self.lengths()
        # Lengths are integers, so this sum is exact and avgdl is independent of row order.
        avgdl = float(lengths[eligible].sum()) / n_eligible
        k1, b = self.params.k1, self.params.b
        # Sorted so that each row's sum is accumulated in the same order in every process.
        for term, query_frequency in sorted(Counter(query_tokens).items()):
            rows, frequencies = self._postings(term)
            matched[rows[live[rows]]] = True
            keep = eligible[rows]
            rows, frequencies = rows[keep], frequencies[keep]
            df = rows.size
            if df == 0:
                continue
            idf = math.log(1.0 + (n_eligible - df + 0.5) / (df + 0.5))
            norm = k1 * (1.0 - b + b * lengths[rows] / avgdl)
            scores[rows] += (
                query_frequency * idf * (frequencies * (k1 + 1.0)) / (frequencies + norm)
            )
        return scores, matched
