"""Document rank fusion against a plain model of its definition."""

from __future__ import annotations

import math
from random import Random

from hypothesis import given
from hypothesis import strategies as st

from ragward.reference.chunking import Chunk
from ragward.reference.fusion import document_rank_fusion
from ragward.reference.ranking import ScoredChunk

CHUNKS = [
    Chunk(f"d{doc}::{part}", f"d{doc}", "t", "x", "body", 0, 1, "public", None, 1, 0)
    for doc in range(7)
    for part in range(3)
]

rankings = st.lists(
    st.lists(st.sampled_from(CHUNKS), unique_by=lambda c: c.chunk_id).map(
        lambda chunks: [ScoredChunk(c, 0.0) for c in chunks]
    ),
    max_size=4,
)
ks = st.one_of(st.integers(1, 200), st.floats(1e-6, 1e6))


def model(lists: list[list[ScoredChunk]], k: float) -> list[tuple[str, float]]:
    """Each document's rank by first occurrence in each ranking, summed exactly; every
    chunk held scores its document's sum; ties by chunk id."""
    terms: dict[str, list[float]] = {}
    for ranking in lists:
        firsts: list[str] = []
        for scored in ranking:
            if scored.chunk.doc_id not in firsts:
                firsts.append(scored.chunk.doc_id)
        for rank, doc_id in enumerate(firsts, start=1):
            terms.setdefault(doc_id, []).append(1.0 / (k + rank))
    held = {s.chunk.chunk_id: s.chunk for ranking in lists for s in ranking}
    pairs = [(cid, math.fsum(terms[chunk.doc_id])) for cid, chunk in held.items()]
    return sorted(pairs, key=lambda pair: (-pair[1], pair[0]))


@given(rankings, ks)
def test_document_fusion_is_its_definition(lists: list[list[ScoredChunk]], k: float) -> None:
    fused = document_rank_fusion(lists, k=k)
    assert [(s.chunk.chunk_id, s.score) for s in fused] == model(lists, k)


@given(rankings, ks, st.randoms(use_true_random=False))
def test_document_fusion_does_not_depend_on_the_order_of_the_rankings(
    lists: list[list[ScoredChunk]], k: float, random: Random
) -> None:
    shuffled = list(lists)
    random.shuffle(shuffled)
    forward = [(s.chunk.chunk_id, s.score) for s in document_rank_fusion(lists, k=k)]
    assert forward == [(s.chunk.chunk_id, s.score) for s in document_rank_fusion(shuffled, k=k)]
