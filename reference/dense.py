"""Exact dense search: cosine of the query against every row of a vector matrix."""

from __future__ import annotations

import itertools
import os
import threading

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument

__all__ = ["VectorIndex", "check_vectors"]

Floats = npt.NDArray[np.float64]
Vectors = npt.NDArray[np.float32]

#: Rows per thread below which a scan stays on one core (thread start-up would dominate).
_ROWS_PER_THREAD = 32_768
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
    float32 (the cosine is then taken in float64); the default hashing embedder's small
    integer vectors stay exact. Rows live in a matrix grown by doubling, so appends cost
    amortised O(rows appended) and a read never copies the matrix; norms are computed once
    per row, on append, from the float32 values the index holds.
    """

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._data: Vectors = np.zeros((16, dimensions), dtype=np.float32)
        self._norm_data: Floats = np.zeros(16)
        self.size = 0

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
        held = self._data[self.size : needed].astype(np.float64)
        norms = np.sqrt(np.einsum("ij,ij->i", held, held))
        # A zero vector's norm is held as infinity: its dot product is 0, and 0 / inf = 0.
        norms[norms == 0.0] = np.inf
        self._norm_data[self.size : needed] = norms
        self.size = needed

    def matrix(self) -> Vectors:
        """All rows (a view, not a copy)."""
        return self._data[: self.size]

    def cosine(self, query: Floats) -> Floats:
        """Cosine of ``query`` with every row; 0 where either vector is zero."""
        single: Vectors = np.ascontiguousarray(query, dtype=np.float32)
        held = single.astype(np.float64)
        query_norm = float(np.sqrt(np.einsum("i,i->", held, held)))
        scores: Floats = np.zeros(self.size)
        if query_norm == 0.0 or self.size == 0:
            return scores
        dots = row_dots(self.matrix(), single)
        np.divide(dots, self._norm_data[: self.size] * query_norm, out=scores)
        return scores
