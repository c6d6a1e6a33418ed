"""What model an embedder or a reranker is, as reports record it.

Two runs whose vectors could differ must not look alike: a name such as ``minilm`` says
which packaging was asked for, not which weights and runtimes answered. The identity of a
model embedder is its weights' hash, its tokenizer's and the versions of the packages that
run it (:attr:`MiniLMEmbedder.identity`); the hashing embedder has no weights, so its name
and dimensions say everything (its algorithm is ragward's, whose version reports record).

>>> from ragward.reference import HashEmbedder
>>> model_identity(HashEmbedder(96))
'hash-96: feature hashing, 96 dimensions'
"""

from __future__ import annotations

from ragward.models.cache import CachedEmbedder
from ragward.models.minilm import MiniLMEmbedder
from ragward.models.rerankers import EmbeddingReranker
from ragward.reference.embedding import HashEmbedder
from ragward.reference.rerank import LexicalOverlapReranker

__all__ = ["model_identity"]


def model_identity(model: object) -> str:
    """The identity of an embedder or a reranker: see the module's doc. One of a team's own
    is its ``identity`` (or ``model_id``) when it has one, else its class and name."""
    if isinstance(model, CachedEmbedder):  # the cache changes where vectors come from only
        return model_identity(model.inner)
    if isinstance(model, MiniLMEmbedder):
        return model.identity
    if type(model) is HashEmbedder:
        return f"{model.name}: feature hashing, {model.dimensions} dimensions"
    if type(model) is LexicalOverlapReranker:
        return "lexical-overlap: no model"
    if type(model) is EmbeddingReranker:
        return f"{model.name}: {model_identity(model.embedder)}"
    for attribute in ("identity", "model_id"):
        known = getattr(model, attribute, None)
        if isinstance(known, str) and known:
            return known
    name = getattr(model, "name", None)
    kind = type(model).__qualname__
    return f"{kind} {name}: no identity declared" if isinstance(name, str) else kind
