"""``top_rows`` is the first ``limit`` of a plain sort by ``(-score, chunk_id)``, with or
without ties, whichever shortcut it takes."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ragward.reference.chunking import Chunk
from ragward.reference.ranking import top_rows


def _chunk(chunk_id: str) -> Chunk:
    return Chunk(chunk_id, "d", "t", "x", "body", 0, 1, "public", None, 1, 0)


# Few distinct scores make ties; many rows per place reach the block-maxima bound.
scores = st.one_of(
    st.sampled_from([0.5, 1.0, 2.0, 3.25]),
    st.floats(min_value=1e-6, max_value=1e6, allow_nan=False),
)


@given(
    st.lists(st.tuples(st.text(alphabet="abc:1", min_size=1, max_size=4), scores), max_size=300),
    st.integers(1, 12),
    st.randoms(use_true_random=False),
)
def test_top_rows_is_the_head_of_a_plain_sort(
    entries: list[tuple[str, float]], limit: int, random: object
) -> None:
    ids = list(dict.fromkeys(chunk_id for chunk_id, _ in entries))
    chunks = [_chunk(chunk_id) for chunk_id in ids]
    values = np.array([dict(entries)[chunk_id] for chunk_id in ids], dtype=np.float64)
    rows = np.arange(len(chunks), dtype=np.intp)
    random.shuffle(rows)  # type: ignore[attr-defined]
    want = sorted(range(len(chunks)), key=lambda row: (-values[row], chunks[row].chunk_id))
    assert top_rows(rows, values, chunks, limit) == want[:limit]
