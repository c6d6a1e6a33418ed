"""Analyzers: how the lexical index and its questions turn text into terms.

An analyzer is a name and a function from a text to its terms, applied alike to every
chunk the lexical index holds and to every question it is asked. Two ship:

- ``plain`` (the default): lower-cased letters and digits with inner hyphens, every word
  kept as written (:func:`tokenize`).
- ``english``: lower-cased runs of letters and digits (hyphens and underscores split
  words), Lucene's English stop words dropped (the set Elasticsearch's ``english``
  analyzer and bm25s drop), each word reduced by the Snowball English stemmer (Porter2,
  through PyStemmer, the stemmer bm25s and Pyserini use), so "treatments" meets "treated".

Any object with a ``name`` and a ``terms`` method is an analyzer (:class:`Analyzer`); the
name goes into reports and into an index's identity, so two analyzers that cut text
differently must not share one. The reference indexes with them and the conformance kit
checks an adapter that declares one against them (STAT-005): this module belongs to
neither, so both can import it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Protocol, runtime_checkable

from ragward.errors import InvalidArgument

__all__ = [
    "ANALYZERS",
    "ENGLISH_STOPWORDS",
    "PLAIN",
    "Analyzer",
    "EnglishAnalyzer",
    "PlainAnalyzer",
    "analyzer_named",
    "tokenize",
]


@runtime_checkable
class Analyzer(Protocol):
    """Turns a text into the terms a lexical index counts (deterministic, no state)."""

    @property
    def name(self) -> str: ...

    def terms(self, text: str) -> list[str]: ...


#: Lucene's English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``): 33 words.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)

# Letters and digits of any script (never "_"), with inner hyphens; for ASCII text this is
# exactly ``[a-z0-9][a-z0-9-]*`` after lower-casing.
_TOKEN_RE = re.compile(r"[^\W_](?:[^\W_]|-)*")
# The same tokens for ASCII text, found three times faster (no Unicode classes to test).
_ASCII_TOKEN_RE = re.compile(r"[a-z0-9][a-z0-9-]*")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric terms, hyphens kept after the first character.

    >>> tokenize("Transfer TRF-3318, frozen.")
    ['transfer', 'trf-3318', 'frozen']
    """
    # str.isascii reads a flag the string carries: no pass over the text
    return (_ASCII_TOKEN_RE if text.isascii() else _TOKEN_RE).findall(text.lower())


# Runs of letters and digits of any script; "_" and "-" separate words, as in Lucene's
# standard tokenizer and in bm25s's default pattern.
_WORD_RE = re.compile(r"[^\W_]+")
_ASCII_WORD_RE = re.compile(r"[a-z0-9]+")


class PlainAnalyzer:
    """Today's terms: :func:`tokenize`, no stop words, no stemming.

    >>> PlainAnalyzer().terms("The treatments, TRF-3318.")
    ['the', 'treatments', 'trf-3318']
    """

    name = "plain"

    def terms(self, text: str) -> list[str]:
        return tokenize(text)

    def __repr__(self) -> str:
        return "PlainAnalyzer()"


class EnglishAnalyzer:
    """Lower case, Lucene's English stop words out, Snowball English stems.

    >>> EnglishAnalyzer().terms("The treatments were treated, TRF-3318.")
    ['treatment', 'were', 'treat', 'trf', '3318']
    """

    name = "english"

    def __init__(self) -> None:
        self._stem = _snowball_english()

    def terms(self, text: str) -> list[str]:
        words = (_ASCII_WORD_RE if text.isascii() else _WORD_RE).findall(text.lower())
        return self._stem([w for w in words if w not in ENGLISH_STOPWORDS])

    def __repr__(self) -> str:
        return "EnglishAnalyzer()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EnglishAnalyzer)

    def __hash__(self) -> int:
        return hash(EnglishAnalyzer)


@lru_cache(maxsize=1)
def _snowball_english() -> Callable[[list[str]], list[str]]:
    """PyStemmer's English stemmer (it keeps a cache of its own); one line if absent."""
    try:
        import Stemmer  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise InvalidArgument(
            "the english analyzer needs PyStemmer: pip install 'ragward[english]'"
        ) from None
    stemmer = Stemmer.Stemmer("english")
    stem_words: Callable[[list[str]], list[str]] = stemmer.stemWords
    return stem_words


#: The analyzer every index uses unless told otherwise.
PLAIN: Analyzer = PlainAnalyzer()

#: Every analyzer a grid or a policy can name, by name.
ANALYZERS: dict[str, Callable[[], Analyzer]] = {"plain": PlainAnalyzer, "english": EnglishAnalyzer}


def analyzer_named(name: object) -> Analyzer:
    """The analyzer called ``name``; a one-line error naming the known ones otherwise."""
    make = ANALYZERS.get(name) if isinstance(name, str) else None
    if make is None:
        raise InvalidArgument(
            f"unknown analyzer {name!r}: known analyzers are {', '.join(sorted(ANALYZERS))}"
        )
    return PLAIN if make is PlainAnalyzer else make()
