"""A reranker that re-scores the candidate pool with a real sentence embedder.

No PyPI package ships cross-encoder weights, so the model reranker is a bi-encoder read
at the second stage: each candidate's indexed text (title, heading, text) is compared with
the query by cosine. With a cached embedder the candidates' vectors are the ones computed
at ingest, so a rerank costs one query encoding and a few dot products.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragward.reference.chunking import Chunk
from ragward.reference.embedding import Embedder

__all__ = ["EmbeddingReranker"]


class EmbeddingReranker:
    """Score = cosine of the embeddings of the query and the chunk's indexed text.

    >>> from ragward.reference import HashEmbedder
    >>> c = Chunk("d::1", "d", "t", "dual control release", "body", 0, 20, "public", None, 1, 0)
    >>> EmbeddingReranker(HashEmbedder(64)).score("dual control release", [c])
    [1.0]
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    @property
    def name(self) -> str:
        return f"embedding-{self.embedder.name}"

    def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
        if not chunks:
            return []
        vectors = np.asarray(
            self.embedder.embed([query, *(c.search_text for c in chunks)]), dtype=np.float64
        )
        norms = np.linalg.norm(vectors, axis=1)
        if norms[0] == 0.0:
            return [0.0] * len(chunks)
        rows = vectors[1:]
        dots = np.einsum("ij,j->i", rows, vectors[0])  # the same sum for every row
        with np.errstate(invalid="ignore", divide="ignore"):
            cosines = np.where(norms[1:] > 0.0, dots / (norms[1:] * norms[0]), 0.0)
        return [round(float(c), 12) for c in cosines]

    def __repr__(self) -> str:
        return f"EmbeddingReranker({self.embedder!r})"
