"""Embedders and rerankers by the names grids use.

``hash-<N>`` is the reference's feature-hashing embedder (no model, no cache needed);
``minilm`` and ``minilm-fp32`` are all-MiniLM-L6-v2 (:mod:`ragward.models.minilm`), wrapped
in the on-disk embedding cache unless ``$RAGWARD_CACHE`` is ``off``. Rerankers:
``lexical-overlap`` (the reference's stand-in) and the name of any model embedder, which
re-scores candidates with that model (:class:`~ragward.models.rerankers.EmbeddingReranker`).
"""

from __future__ import annotations

import os

from ragward.errors import InvalidArgument
from ragward.models.cache import CACHE_ENV, CachedEmbedder, CacheStats, EmbeddingCache
from ragward.models.minilm import PACKAGINGS, MiniLMEmbedder
from ragward.models.rerankers import EmbeddingReranker
from ragward.reference.embedding import Embedder, HashEmbedder
from ragward.reference.rerank import LexicalOverlapReranker, Reranker

__all__ = ["EMBEDDERS", "RERANKERS", "embedder_named", "encoding_stats", "reranker_named"]

#: Embedder names, for messages (``hash-<N>`` takes any dimension count).
EMBEDDERS: tuple[str, ...] = ("hash-<N>", *PACKAGINGS)
#: Reranker names.
RERANKERS: tuple[str, ...] = ("lexical-overlap", *PACKAGINGS)

_caches: dict[str, EmbeddingCache] = {}
_made: list[CachedEmbedder] = []  # every cached embedder this process built, for its stats


def _cache() -> EmbeddingCache | None:
    named = os.environ.get(CACHE_ENV, "")
    if named == "off":
        return None
    return _caches.setdefault(named, EmbeddingCache(named or None))


def embedder_named(name: str) -> Embedder:
    """The embedder called ``name``; a model one is cached on disk (see module doc).

    >>> embedder_named("hash-96").name
    'hash-96'
    """
    kind, _, size = name.partition("-")
    if kind == "hash":
        if not size.isdigit() or int(size) < 1:
            raise InvalidArgument(f"embedder {name!r}: hash-<dimensions> needs a positive size")
        return HashEmbedder(int(size))
    if name in PACKAGINGS:
        model = MiniLMEmbedder(name)
        cache = _cache()
        if cache is None:
            return model
        cached = CachedEmbedder(model, cache)
        _made.append(cached)
        return cached
    raise InvalidArgument(f"unknown embedder {name!r}; known: {', '.join(EMBEDDERS)}")


def encoding_stats() -> CacheStats:
    """What every cached model embedder of this process did, summed: texts served from the
    cache, texts encoded, corrupt entries, seconds encoding and seconds in all."""
    total = CacheStats()
    for cached in _made:
        total.hits += cached.stats.hits
        total.misses += cached.stats.misses
        total.corrupt += cached.stats.corrupt
        total.encode_seconds += cached.stats.encode_seconds
        total.total_seconds += cached.stats.total_seconds
    return total


def reranker_named(name: str) -> Reranker:
    """The reranker called ``name``.

    >>> reranker_named("lexical-overlap").name
    'lexical-overlap'
    """
    if name in ("lexical-overlap", "lexical"):
        return LexicalOverlapReranker()
    if name in PACKAGINGS:
        return EmbeddingReranker(embedder_named(name))
    raise InvalidArgument(f"unknown reranker {name!r}; known: {', '.join(RERANKERS)}")
