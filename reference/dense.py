"""Exact dense search: cosine of the query against every row of a vector matrix."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["VectorIndex"]

Floats = npt.NDArray[np.float64]

# Rows per block of the scoring pass: large enough to amortise numpy's per-call cost,
# small enough that the product block stays in cache while it is summed.
_BLOCK_ROWS = 4096


class VectorIndex:
    """Raw vectors of one namespace, one row per chunk, with their norms.

    Scores are computed row by row with the same summation order for every row (an
    elementwise product summed along the row), never by a BLAS matrix-vector product,
    whose rounding can depend on a row's position in the matrix: two chunks with the same
    text must get the same score wherever they sit.
    """

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._pending: list[Floats] = []
        self._matrix: Floats = np.zeros((0, dimensions))
        self._norms: Floats = np.zeros(0)

    def add(self, vectors: Floats) -> None:
        """Append rows (shape ``(n, dimensions)``)."""
        if vectors.ndim != 2 or vectors.shape[1] != self.dimensions:
            raise ValueError(
                f"embedder returned shape {vectors.shape}, expected (n, {self.dimensions})"
            )
        self._pending.append(np.ascontiguousarray(vectors, dtype=np.float64))

    def matrix(self) -> Floats:
        """All rows, appended ones included."""
        if self._pending:
            self._matrix = np.concatenate([self._matrix, *self._pending])
            self._norms = _row_norms(self._matrix)
            self._pending = []
        return self._matrix

    def cosine(self, query: Floats) -> Floats:
        """Cosine of ``query`` with every row; 0 where either vector is zero."""
        matrix = self.matrix()
        query = np.ascontiguousarray(query, dtype=np.float64)
        query_norm = float(np.sqrt(_row_dots(query[None, :], query)[0]))
        scores = np.zeros(matrix.shape[0])
        if query_norm == 0.0 or matrix.shape[0] == 0:
            return scores
        dots = _row_dots(matrix, query)
        nonzero = self._norms > 0.0
        scores[nonzero] = dots[nonzero] / (self._norms[nonzero] * query_norm)
        return scores


def _row_dots(matrix: Floats, other: Floats) -> Floats:
    """Row-wise dot products of ``matrix`` with a vector, or with a same-shape matrix."""
    out = np.empty(matrix.shape[0])
    block = np.empty((min(_BLOCK_ROWS, matrix.shape[0]), matrix.shape[1]))
    for start in range(0, matrix.shape[0], _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, matrix.shape[0])
        product = block[: stop - start]
        np.multiply(
            matrix[start:stop], other if other.ndim == 1 else other[start:stop], out=product
        )
        np.sum(product, axis=1, out=out[start:stop])
    return out


def _row_norms(matrix: Floats) -> Floats:
    return np.sqrt(_row_dots(matrix, matrix))
