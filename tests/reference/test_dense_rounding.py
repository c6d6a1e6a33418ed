"""Identical texts get identical dense scores wherever their rows sit.

The default hashing embedder yields integer vectors, whose dot products are exact in any
order; a real model yields arbitrary floats, and a BLAS matrix-vector product rounds a
row's dot product differently depending on where the row sits in the matrix. This test
uses a float embedder so that such a position dependence would show.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ragward.reference import (
    AuthorizedRetriever,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    tokenize,
)

DIMENSIONS = 96


class GaussianTokenEmbedder:
    """Each token maps to a fixed pseudo-random Gaussian vector; a text sums its tokens."""

    name = "gaussian-test"
    dimensions = DIMENSIONS

    def __init__(self) -> None:
        self._cache: dict[str, npt.NDArray[np.float64]] = {}

    def _token(self, token: str) -> npt.NDArray[np.float64]:
        vector = self._cache.get(token)
        if vector is None:
            seed = int.from_bytes(hashlib.sha256(token.encode()).digest()[:8], "big")
            vector = np.random.default_rng(seed).standard_normal(DIMENSIONS)
            self._cache[token] = vector
        return vector

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        out = np.zeros((len(texts), DIMENSIONS))
        for row, text in enumerate(texts):
            for token in tokenize(text):
                out[row] += self._token(token)
        return out


def test_identical_texts_score_identically_at_any_row_position() -> None:
    rng = np.random.default_rng(7)
    vocabulary = [f"w{i}" for i in range(400)]
    twin = "settlement netting exposure w1 w2 w3 w5 w8 w13"
    retriever = AuthorizedRetriever(
        embedder=GaussianTokenEmbedder(), chunking=Chunking(max_tokens=200, overlap_tokens=0)
    )
    rows = 10_007
    twin_rows = {0, 1, 2, 3, 5, 4096, 4097, rows // 2, rows - 3, rows - 2, rows - 1}
    for row in range(rows):
        text = twin if row in twin_rows else " ".join(rng.choice(vocabulary, size=12))
        retriever.ingest(ReferenceDoc(f"d{row:05d}", "t", "", text))
    first = retriever.first_stage(
        twin, ReferenceAsker("u", "t"), policy=ReferencePolicy(mode="dense", candidate_limit=50)
    )
    twins = [s for s in first.dense if s.chunk.text == twin]
    assert len(twins) == len(twin_rows)
    assert len({s.score for s in twins}) == 1
    assert [s.chunk.chunk_id for s in twins] == sorted(s.chunk.chunk_id for s in twins)
    assert first.dense[: len(twins)] == tuple(twins)


def test_threaded_scan_sums_each_row_as_one_thread_does() -> None:
    # 37 float32 columns: rows start at every alignment; enough rows for one block per core.
    from ragward.reference.dense import _ROWS_PER_THREAD, row_dots

    rng = np.random.default_rng(11)
    rows = 2 * _ROWS_PER_THREAD + 101
    matrix = rng.standard_normal((rows, 37)).astype(np.float32)
    twin = rng.standard_normal(37).astype(np.float32)
    places = [0, 1, 7, rows // 2 - 1, rows // 2, rows // 2 + 1, rows - 1]
    matrix[places] = twin
    query = rng.standard_normal(37).astype(np.float32)
    dots = row_dots(matrix, query)
    assert len({float(dots[p]) for p in places}) == 1
    assert np.array_equal(dots, np.einsum("ij,j->i", matrix, query))
