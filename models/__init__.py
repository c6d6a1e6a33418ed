"""Real models behind the reference's protocols, and the cache that keeps them fast."""

from ragward.models.cache import (
    CACHE_ENV,
    CachedEmbedder,
    CacheStats,
    EmbeddingCache,
    default_cache_dir,
    text_key,
)
from ragward.models.identity import model_identity
from ragward.models.minilm import DIMENSIONS, MAX_WORD_PIECES, PACKAGINGS, MiniLMEmbedder
from ragward.models.registry import (
    EMBEDDERS,
    RERANKERS,
    embedder_named,
    encoding_stats,
    reranker_named,
)
from ragward.models.rerankers import EmbeddingReranker

__all__ = [
    "CACHE_ENV",
    "DIMENSIONS",
    "EMBEDDERS",
    "MAX_WORD_PIECES",
    "PACKAGINGS",
    "RERANKERS",
    "CacheStats",
    "CachedEmbedder",
    "EmbeddingCache",
    "EmbeddingReranker",
    "MiniLMEmbedder",
    "default_cache_dir",
    "embedder_named",
    "encoding_stats",
    "model_identity",
    "reranker_named",
    "text_key",
]
