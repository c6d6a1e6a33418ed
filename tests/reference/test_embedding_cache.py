"""The hash embedder's token memo changes no vector, whether it holds every token seen or
starts afresh every other one."""

from __future__ import annotations

import hashlib

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import ragward.reference.embedding as embedding
from ragward.reference.embedding import HashEmbedder
from ragward.reference.text import tokenize

words = st.text(alphabet="abcdefgh-", min_size=1, max_size=6)
texts = st.lists(st.lists(words, max_size=12).map(" ".join), min_size=1, max_size=8)


@given(texts, st.sampled_from([8, 96]))
def test_a_memo_starting_afresh_gives_the_same_vectors(batch: list[str], dimensions: int) -> None:
    want = HashEmbedder(dimensions).embed(batch)
    known, embedding._KNOWN_TOKENS = embedding._KNOWN_TOKENS, 2
    try:
        small = HashEmbedder(dimensions)
        got = small.embed(batch)
        again = small.embed(list(reversed(batch)))
    finally:
        embedding._KNOWN_TOKENS = known
    assert len(small._buckets) <= 2
    assert np.array_equal(got, want)
    assert np.array_equal(again, want[::-1])


def test_the_memo_is_bounded() -> None:
    embedder = HashEmbedder(16)
    embedder.embed([" ".join(f"t{n}" for n in range(embedding._KNOWN_TOKENS + 10))])
    assert 0 < len(embedder._buckets) <= embedding._KNOWN_TOKENS


@given(texts, st.sampled_from([8, 96]))
def test_vectors_are_signed_feature_hashing_as_documented(
    batch: list[str], dimensions: int
) -> None:
    want = np.zeros((len(batch), dimensions))
    for row, text in enumerate(batch):
        for token in tokenize(text):
            raw = hashlib.blake2b(token.encode(), digest_size=8).digest()
            bucket = int.from_bytes(raw[:4], byteorder="big") % dimensions
            want[row, bucket] += -1.0 if raw[4] & 1 else 1.0
    assert np.array_equal(HashEmbedder(dimensions).embed(batch), want)
