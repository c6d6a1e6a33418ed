"""Tokens, stopwords and the token counter, shared by every stage that reads text."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

__all__ = ["STOPWORDS", "TokenCounter", "content_terms", "estimate_tokens", "tokenize"]

#: Counts the tokens of a text. Must be deterministic; the default is :func:`estimate_tokens`.
TokenCounter = Callable[[str], int]

# Letters and digits of any script (never "_"), with inner hyphens; for ASCII text this is
# exactly ``[a-z0-9][a-z0-9-]*`` after lower-casing.
_TOKEN_RE = re.compile(r"[^\W_](?:[^\W_]|-)*")
# The same tokens for ASCII text, found three times faster (no Unicode classes to test).
_ASCII_TOKEN_RE = re.compile(r"[a-z0-9][a-z0-9-]*")

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


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric terms, hyphens kept after the first character.

    >>> tokenize("Transfer TRF-3318, frozen.")
    ['transfer', 'trf-3318', 'frozen']
    """
    # str.isascii reads a flag the string carries: no pass over the text
    return (_ASCII_TOKEN_RE if text.isascii() else _TOKEN_RE).findall(text.lower())


@lru_cache(maxsize=1 << 16)
def content_terms(text: str) -> frozenset[str]:
    """The distinct non-stopword terms of ``text`` (memoised: chunks are checked again and
    again, and the answer is an immutable set)."""
    return frozenset(tokenize(text)) - STOPWORDS
