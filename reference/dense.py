"""Exact dense search: cosine of the query against every row of a vector matrix."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument

__all__ = ["VectorIndex", "check_vectors"]

Floats = npt.NDArray[np.float64]


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


def row_dots(matrix: Floats, vector: Floats) -> Floats:
    """``matrix[i] . vector`` for every row, each summed the same way wherever it sits.

    ``einsum`` reduces every row with the same loop; a BLAS matrix-vector product blocks
    rows and can round a row's sum differently depending on its position, which would
    give two chunks with the same text different scores.
    """
    dots: Floats = np.einsum("ij,j->i", matrix, vector)
    return dots


class VectorIndex:
    """Raw vectors of one namespace, one row per chunk, with their norms.

    Rows live in a matrix grown by doubling, so appends cost amortised O(rows appended)
    and a read never copies the matrix; norms are computed once per row, on append.
    """

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._data: Floats = np.zeros((16, dimensions))
        self._norm_data: Floats = np.zeros(16)
        self.size = 0

    def add(self, vectors: Floats) -> None:
        """Append rows already checked by :func:`check_vectors`."""
        needed = self.size + vectors.shape[0]
        if needed > self._data.shape[0]:
            capacity = max(needed, 2 * self._data.shape[0])
            data = np.zeros((capacity, self.dimensions))
            data[: self.size] = self._data[: self.size]
            norms = np.zeros(capacity)
            norms[: self.size] = self._norm_data[: self.size]
            self._data, self._norm_data = data, norms
        self._data[self.size : needed] = vectors
        self._norm_data[self.size : needed] = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
        self.size = needed

    def matrix(self) -> Floats:
        """All rows (a view, not a copy)."""
        return self._data[: self.size]

    def cosine(self, query: Floats) -> Floats:
        """Cosine of ``query`` with every row; 0 where either vector is zero."""
        query = np.ascontiguousarray(query, dtype=np.float64)
        query_norm = float(np.sqrt(np.einsum("i,i->", query, query)))
        scores = np.zeros(self.size)
        if query_norm == 0.0 or self.size == 0:
            return scores
        dots = row_dots(self.matrix(), query)
        norms = self._norm_data[: self.size]
        nonzero = norms > 0.0
        scores[nonzero] = dots[nonzero] / (norms[nonzero] * query_norm)
        return scores
