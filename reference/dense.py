"""Exact dense search: cosine of the query against every row of a vector matrix."""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument

__all__ = ["DenseScan", "VectorIndex", "check_vectors"]

Floats = npt.NDArray[np.float64]
Vectors = npt.NDArray[np.float32]

#: Rows per thread below which a scan stays on one core (thread start-up would dominate).
_ROWS_PER_THREAD = 32_768
#: Bytes a block of queries' products and scores may take in :meth:`VectorIndex.scan_many`.
_SCAN_BLOCK_BYTES = 64 << 20
_ADD_BLOCK = 4096  # rows whose norms one step of VectorIndex.add computes
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def check_vectors(vectors: object, rows: int, dimensions: int, embedder: str) -> Floats:
    """``vectors`` as a float64 matrix of shape ``(rows, dimensions)`` with finite values.

    An embedder that answers with the wrong shape or with NaNs is caught here, before any
    index is touched.
    """
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.shape != (rows, dimensions):
        raise InvalidArgument(
            f"embedder {embedder!r} returned shape {matrix.shape} for {rows} texts; "
            f"expected ({rows}, {dimensions})"
        )
    if not np.isfinite(matrix).all():
        raise InvalidArgument(f"embedder {embedder!r} returned a non-finite value")
    return np.ascontiguousarray(matrix)


def row_dots(matrix: Vectors, vector: Vectors) -> Vectors:
    """``matrix[i] . vector`` for every row, each summed the same way wherever it sits.

    ``einsum`` reduces every row with the same loop; a BLAS matrix-vector product blocks
    rows and can round a row's sum differently depending on its position, which would
    give two chunks with the same text different scores. A large matrix is cut into one
    block of rows per core, each reduced by ``einsum`` in its own thread (numpy lets go of
    the GIL there), so a row's sum is still the same loop wherever its block starts.
    """
    rows = matrix.shape[0]
    threads = min(_CORES, rows // _ROWS_PER_THREAD)
    if threads < 2:
        dots: Vectors = np.einsum("ij,j->i", matrix, vector)
        return dots
    out = np.empty(rows, dtype=matrix.dtype)
    bounds = np.linspace(0, rows, threads + 1).astype(int).tolist()

    def reduce(begin: int, end: int) -> None:
        np.einsum("ij,j->i", matrix[begin:end], vector, out=out[begin:end])

    # Threads started per call, not a pool: a pool's threads would not survive a fork.
    workers = [
        threading.Thread(target=reduce, args=(begin, end))
        for begin, end in itertools.pairwise(bounds[1:])
    ]
    for worker in workers:
        worker.start()
    reduce(bounds[0], bounds[1])
    for worker in workers:
        worker.join()
    return out


class VectorIndex:
    """Vectors of one namespace, one float32 row per chunk, with their norms.

    Vectors are held in float32, as vector engines hold them: half the memory of float64
    and half the bytes a scan reads. A row's dot product with the query is summed in
    float32 by :func:`row_dots` (the cosine is then taken in float64); the default hashing
    embedder's small integer vectors stay exact. Rows live in a matrix grown by doubling,
    so appends cost amortised O(rows appended) and a read never copies the matrix; norms
    are computed once per row, on append, from the float32 values the index holds.
    """

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._data: Vectors = np.zeros((16, dimensions), dtype=np.float32)
        self._norm_data: Floats = np.zeros(16)
        self.size = 0
        # Over every row ever added (a deleted row only loosens them): the least nonzero
        # norm, the largest magnitude, and whether every value is an integer.
        self._least_norm = math.inf
        self._largest = 0.0
        self._integral = True

    def add(self, vectors: Floats | Vectors) -> None:
        """Append rows already checked by :func:`check_vectors`."""
        needed = self.size + vectors.shape[0]
        if needed > self._data.shape[0]:
            capacity = max(needed, 2 * self._data.shape[0])
            data = np.zeros((capacity, self.dimensions), dtype=np.float32)
            data[: self.size] = self._data[: self.size]
            norms = np.zeros(capacity)
            norms[: self.size] = self._norm_data[: self.size]
            self._data, self._norm_data = data, norms
        self._data[self.size : needed] = vectors
        # In blocks of rows: the float64 copies a block needs stay small, where copies of
        # a large document's every row peaked at several times its text.
        for start in range(self.size, needed, _ADD_BLOCK):
            self._add_norms(start, min(needed, start + _ADD_BLOCK))
        self.size = needed

    def _add_norms(self, start: int, end: int) -> None:
        held = self._data[start:end].astype(np.float64)
        norms = np.sqrt(np.einsum("ij,ij->i", held, held))
        nonzero = norms[norms > 0.0]
        if nonzero.size:
            self._least_norm = min(self._least_norm, float(nonzero.min()))
        self._largest = max(self._largest, float(np.abs(held).max()))
        self._integral = self._integral and bool((np.round(held) == held).all())
        # A zero vector's norm is held as infinity: its dot product is 0, and 0 / inf = 0.
        norms[norms == 0.0] = np.inf
        self._norm_data[start:end] = norms

    def matrix(self) -> Vectors:
        """All rows (a view, not a copy)."""
        return self._data[: self.size]

    def cosine(self, query: Floats) -> Floats:
        """Cosine of ``query`` with every row; 0 where either vector is zero."""
        single: Vectors = np.ascontiguousarray(query, dtype=np.float32)
        query_norm = _norm(single)
        scores: Floats = np.zeros(self.size)
        if query_norm == 0.0 or self.size == 0:
            return scores
        dots = row_dots(self.matrix(), single)
        np.divide(dots, self._norm_data[: self.size] * query_norm, out=scores)
        return scores

    def scan(self, query: Floats) -> DenseScan:
        """Cosines of ``query`` with every row from one BLAS pass, each within a proven
        bound of :meth:`cosine`'s, to be made exact where they decide anything
        (:class:`DenseScan`)."""
        single: Vectors = np.ascontiguousarray(query, dtype=np.float32)
        query_norm = _norm(single)
        slack = self._slack(single, query_norm)
        if slack is None:
            return DenseScan(self, single, query_norm, self.cosine(query), 0.0)
        if query_norm == 0.0 or self.size == 0:
            return DenseScan(self, single, query_norm, np.zeros(self.size), 0.0)
        return self._scanned(single, query_norm, slack, self.matrix() @ single)

    def _scanned(self, query: Vectors, query_norm: float, slack: float, dots: Vectors) -> DenseScan:
        """The scan of ``query`` from its BLAS dot products with every row."""
        scores: Floats = np.zeros(self.size)
        np.divide(dots, self._norm_data[: self.size] * query_norm, out=scores)
        scan = DenseScan(self, query, query_norm, scores, slack)
        if slack > 0.0:
            # The sign of every score decides whether its row counts as matched.
            scan.settle(np.flatnonzero(np.abs(scores) <= slack))
        return scan

    def queries_per_scan(self) -> int:
        """How many queries :meth:`scan_many` takes in one matrix product: their float32
        products and float64 scores within :data:`_SCAN_BLOCK_BYTES`."""
        return max(1, _SCAN_BLOCK_BYTES // (12 * max(1, self.size)))

    def scan_many(self, queries: Sequence[Floats | None]) -> list[DenseScan | None]:
        """:meth:`scan` of each of ``queries`` (None for None), the dot products of a block
        of queries taken in one matrix product: the matrix is read once per block instead
        of once per query. Each product lies within the same bound of :meth:`cosine`'s
        (any order of summing does, :meth:`_slack`), and each scan is settled as
        :meth:`scan` settles it; a query outside the bound is scanned alone, as there."""
        scans: list[DenseScan | None] = [None] * len(queries)
        batched: list[tuple[int, Vectors, float, float]] = []
        for number, query in enumerate(queries):
            if query is None:
                continue
            single: Vectors = np.ascontiguousarray(query, dtype=np.float32)
            query_norm = _norm(single)
            slack = self._slack(single, query_norm)
            if slack is None or query_norm == 0.0 or self.size == 0 or len(queries) == 1:
                scans[number] = self.scan(query)
            else:
                batched.append((number, single, query_norm, slack))
        block = self.queries_per_scan()
        for start in range(0, len(batched), block):
            part = batched[start : start + block]
            stacked = np.stack([single for _, single, _, _ in part])
            products = stacked @ self.matrix().T  # a row of products per query
            for (number, single, query_norm, slack), dots in zip(part, products, strict=True):
                scans[number] = self._scanned(single, query_norm, slack, dots)
        return scans

    def exact(self, rows: npt.NDArray[np.intp], query: Vectors, query_norm: float) -> Floats:
        """:meth:`cosine` at ``rows`` only: the same float32 :func:`row_dots` sum per row
        (its loop does not depend on where a row sits, so a copy of the rows sums alike)."""
        dots = row_dots(self._data[rows], query)
        out: Floats = dots / (self._norm_data[rows] * query_norm)
        return out

    def _slack(self, query: Vectors, query_norm: float) -> float | None:
        """How far a BLAS cosine may lie from :meth:`cosine`'s, or None where no useful
        bound holds (tiny or huge values: fall back to the exact scan).

        Any order of summing ``n`` float32 products, fused or not, lies within
        ``gamma_n * sum |m_i q_i|`` of the exact dot product (``gamma_n = n u / (1 - n u)``,
        ``u = 2**-24``; Higham, *Accuracy and Stability of Numerical Algorithms*, 3.1),
        plus ``n * 2**-150`` where products underflow. Both the BLAS sum and
        :func:`row_dots`' sum do, so they differ by at most twice that, and
        ``sum |m_i q_i| <= |m| |q|`` (Cauchy-Schwarz): on the cosine scale,
        ``2 gamma_n + 2 n 2**-150 / (|m| |q|)`` over every row. Integer vectors whose
        partial sums stay below ``2**24`` sum exactly in any order: no slack at all.
        """
        n = self.dimensions
        largest = float(np.abs(query).max()) if query.size else 0.0
        if largest * self._largest * n >= 2.0**100:
            return None
        if (
            self._integral
            and largest * self._largest * n <= 2.0**24
            and bool((np.round(query) == query).all())
        ):
            return 0.0
        if query_norm == 0.0 or self._least_norm == math.inf:
            return 0.0  # every score is 0: a zero vector's products are exactly zero
        if query_norm * self._least_norm < 2.0**-60:
            return None
        unit = 2.0**-24
        gamma = n * unit / (1.0 - n * unit)
        underflow = n * 2.0**-150 / (query_norm * self._least_norm)
        # Widened a little for the float64 norms and division, exact to far better.
        return 2.0 * (gamma + underflow) * (1.0 + 2.0**-20)


def _norm(vector: Vectors) -> float:
    held = vector.astype(np.float64)
    return float(np.sqrt(np.einsum("i,i->", held, held)))


class DenseScan:
    """A query's cosines with every row of a :class:`VectorIndex`, each within ``slack``
    of the exact :meth:`VectorIndex.cosine`, and exact where :meth:`settle` has made it so.

    One BLAS matrix-vector product reads the matrix at the machine's full rate, but it
    rounds a row's sum depending on where the row sits. So its scores only choose: every
    score near zero is made exact when the scan is made (its sign decides whether the row
    counts as matched), and :meth:`settle` makes exact every row that may place among a
    ranking's best. What a ranking and the audit counts read is then exactly what the
    exact scan gives, bit for bit; the rest of the rows only had to lose.
    """

    def __init__(
        self, index: VectorIndex, query: Vectors, query_norm: float, scores: Floats, slack: float
    ) -> None:
        self._index = index
        self._query = query
        self._query_norm = query_norm
        self.scores = scores
        self.slack = slack

    def settle(self, rows: npt.NDArray[np.intp], limit: int | None = None) -> None:
        """Make exact every score among ``rows`` that may be one of their ``limit`` best
        (all of them without a limit).

        The ``limit``-th largest score ``t`` among ``rows`` has ``limit`` rows at least as
        large, each within ``slack`` of its exact score, so the ``limit``-th largest exact
        score is at least ``t - slack``; a row whose exact score reaches it has a score at
        least ``t - 2 slack``. Those rows are made exact; every other row's exact score,
        and its score, is below every placing row's, so a ranking of the mixed scores is
        the ranking of the exact ones, ties included.
        """
        if self.slack == 0.0 or rows.size == 0:
            return
        if limit is not None and rows.size > limit:
            values = self.scores[rows]
            last = float(np.partition(values, rows.size - limit)[rows.size - limit])
            rows = rows[values >= last - 2.0 * self.slack]
        self.scores[rows] = self._index.exact(rows, self._query, self._query_norm)
