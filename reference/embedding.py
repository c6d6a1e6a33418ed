"""Embedders: the dense side's pluggable component.

An embedder maps texts to raw vectors. The dense index takes the cosine itself, from the
raw vectors and their norms, so an embedder whose raw vectors are small integers (as the
default hashing embedder's are) gets dot products that are exact in any summation order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ragward.errors import InvalidArgument
from ragward.reference.text import tokenize

__all__ = ["Embedder", "HashEmbedder"]

Matrix = npt.NDArray[np.float64]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors; similarity is the cosine of two vectors."""

    @property
    def name(self) -> str:
        """A stable name for reports, e.g. ``"hash-96"``."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector :meth:`embed` returns."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One row per text, shape ``(len(texts), dimensions)``; need not be normalised."""
        ...


#: Tokens whose buckets one embedder remembers; past this many it starts afresh.
_KNOWN_TOKENS = 1 << 18


def _bucket(token: str, dimensions: int) -> int:
    """The token's bucket, as ``index`` for a sign of +1 and ``~index`` for -1."""
    digest = hashlib.blake2b(token.encode(), digest_size=8).digest()  # str.encode: UTF-8
    index = int.from_bytes(digest[:4], byteorder="big") % dimensions
    return index if digest[4] % 2 == 0 else ~index


class HashEmbedder:
    """Signed feature hashing (Weinberger et al., 2009, "Feature Hashing for Large Scale
    Multitask Learning").

    Each token adds ``±1`` to one of ``dimensions`` buckets, both chosen by a BLAKE2b hash
    of the token; the sign makes collisions cancel in expectation instead of always adding
    up. Vectors are integer counts, so similarity is a pure, exact function of the texts.

    >>> HashEmbedder(dimensions=8).embed(["a b"]).shape
    (1, 8)
    """

    def __init__(self, dimensions: int = 96) -> None:
        if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1:
            raise InvalidArgument(f"HashEmbedder.dimensions must be >= 1, got {dimensions!r}")
        self._dimensions = dimensions
        # token -> bucket code: one small int per token (a shared cache keyed by token and
        # dimensions held a key, a pair and a float per token: 2.5 times the bytes)
        self._buckets: dict[str, int] = {}

    @property
    def name(self) -> str:
        return f"hash-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> Matrix:
        out = np.zeros((len(texts), self._dimensions), dtype=np.float64)
        buckets = self._buckets
        for row, text in enumerate(texts):
            counts = [0.0] * self._dimensions
            for token in tokenize(text):
                code = buckets.get(token)
                if code is None:
                    if len(buckets) >= _KNOWN_TOKENS:
                        buckets.clear()
                    code = buckets[token] = _bucket(token, self._dimensions)
                if code >= 0:
                    counts[code] += 1.0
                else:
                    counts[~code] -= 1.0
            out[row] = counts
        return out

    def __repr__(self) -> str:
        return f"HashEmbedder(dimensions={self._dimensions})"
