"""Scored chunks and the one ordering every ranking in ragward uses: ``(-score, chunk_id)``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragward.reference.chunking import Chunk

__all__ = ["Scored", "ranked", "top_rows"]


@dataclass(frozen=True)
class Scored:
    """A chunk with the score the stage that produced it gave it."""

    chunk: Chunk
    score: float


def ranked(items: Iterable[Scored]) -> list[Scored]:
    """Sort by descending score, ties by ascending ``chunk_id``."""
    return sorted(items, key=lambda s: (-s.score, s.chunk.chunk_id))


def top_rows(
    rows: npt.NDArray[np.intp],
    scores: npt.NDArray[np.float64],
    chunks: Sequence[Chunk],
    limit: int,
) -> list[int]:
    """The ``limit`` best of ``rows`` by ``(-scores[row], chunks[row].chunk_id)``, in order.

    A partition finds the score of the last place; only rows scoring at least that much
    (every row tied with the last place included) are sorted, so ties break exactly as
    :func:`ranked` breaks them without sorting every row.
    """
    if rows.size > limit:
        row_scores = scores[rows]
        threshold = np.partition(row_scores, rows.size - limit)[rows.size - limit]
        rows = rows[row_scores >= threshold]
    keyed = zip(scores[rows].tolist(), rows.tolist(), strict=True)
    best = sorted(keyed, key=lambda pair: (-pair[0], chunks[pair[1]].chunk_id))
    return [row for _, row in best[:limit]]
