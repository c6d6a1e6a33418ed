"""Tokens, stopwords and the token counter, shared by every stage that reads text."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ragward.analysis import tokenize  # the plain analyzer's terms, re-exported here

__all__ = ["STOPWORDS", "TokenCounter", "content_terms", "estimate_tokens", "tokenize"]

#: Counts the tokens of a text. Must be deterministic; the default is :func:`estimate_tokens`.
TokenCounter = Callable[[str], int]

#: Words that carry no evidence on their own; grounding ignores them.
STOPWORDS: frozenset[str] = frozenset(
    [
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "it",
        "this",
        "that",
        "with",
        "as",
        "at",
        "by",
        "from",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
    ]
)


def estimate_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: ``ceil(len(text) / 4)``.

    >>> estimate_tokens("abcde")
    2
    """
    return (len(text) + 3) // 4


@lru_cache(maxsize=1 << 16)
def content_terms(text: str) -> frozenset[str]:
    """The distinct non-stopword terms of ``text`` (memoised: chunks are checked again and
    again, and the answer is an immutable set)."""
    return frozenset(tokenize(text)) - STOPWORDS
