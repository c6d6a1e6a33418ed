"""Token counters by name: what a chunk size and a context budget are counted in.

- ``chars4`` (the default): ``ceil(len(text) / 4)``, a tokenizer-free estimate
  (:func:`~ragward.reference.text.estimate_tokens`).
- ``cl100k`` and ``o200k``: OpenAI's ``cl100k_base`` (GPT-4, GPT-3.5, text-embedding-3)
  and ``o200k_base`` (GPT-4o, o1, GPT-4.1) byte-pair encodings, through ``bpe-openai``,
  which ships both encodings (no download; token ids identical to tiktoken's). Special
  tokens are counted as the text they are written in: a document that contains
  ``<|endoftext|>`` is text, not a control token.
- ``minilm``: the word pieces all-MiniLM-L6-v2 reads, ``[CLS]`` and ``[SEP]`` included;
  the model reads at most 256 of them and silently drops the rest, so chunks sized at
  ``max_tokens <= 256`` in this counter are never truncated.

A counter is a function of a text to an integer, deterministic. ``bpe-openai`` refuses one
call of a million characters or more (and more than its token limit): a longer text is
counted in pieces cut where its pre-tokenizer cuts anyway (before a space that follows a
non-space and precedes a letter), so the sum is the count of the whole; a run of over
``_PIECE`` characters with no such place is cut at the length itself, where the count
may differ from the whole's by the one token the cut splits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from ragward.errors import InvalidArgument, MissingExtra
from ragward.reference.text import TokenCounter, estimate_tokens

__all__ = ["COUNTERS", "counter_named"]

#: Every counter a grid, a policy or the kit can name.
COUNTERS: tuple[str, ...] = ("chars4", "cl100k", "o200k", "minilm")

_ENCODINGS = {"cl100k": "cl100k_base", "o200k": "o200k_base"}
#: Characters counted in one call (well under bpe-openai's million and its token limit).
_PIECE = 100_000
#: A place both OpenAI pre-tokenizers start a new piece: " word" after a non-space.
_CUT = re.compile(r"(?<=\S) (?=[^\W\d_])")


def counter_named(name: object) -> TokenCounter:
    """The counter called ``name`` (one of :data:`COUNTERS`); a one-line error otherwise,
    and a one-line error naming the extra when its package is not installed."""
    if name == "chars4":
        return estimate_tokens
    if name in _ENCODINGS:
        return _bpe(str(name))
    if name == "minilm":
        return _minilm()
    raise InvalidArgument(
        f"unknown token counter {name!r}: known counters are {', '.join(COUNTERS)}"
    )


@cache
def _bpe(name: str) -> TokenCounter:
    try:
        import bpe_openai  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise MissingExtra(
            f"token counter {name!r} needs bpe-openai: pip install 'ragward[tokens]'"
        ) from None
    encode: Callable[[str], list[int]] = bpe_openai.get_encoding(_ENCODINGS[name]).encode_ordinary

    def count(text: str) -> int:
        return sum(len(encode(piece)) for piece in _pieces(text))

    count.__name__ = f"count_{name}"
    return count


def _pieces(text: str, size: int = _PIECE) -> list[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, each cut where the
    encodings' pre-tokenizer cuts anyway (when the second half of a window has such a
    place)."""
    if len(text) <= size:
        return [text]
    pieces = []
    start = 0
    while len(text) - start > size:
        window_end = start + size
        cut = None
        for match in _CUT.finditer(text, start + size // 2, window_end):
            cut = match.start()
        end = cut if cut is not None and cut > start else window_end
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces


@lru_cache(maxsize=1)
def _minilm() -> TokenCounter:
    try:
        import tokenizers
    except ImportError:
        raise MissingExtra(
            "token counter 'minilm' needs tokenizers: pip install 'ragward[models]'"
        ) from None
    source = resources.files("ragward.models").joinpath("minilm_l6_v2/tokenizer.json")
    tokenizer: Any = tokenizers.Tokenizer.from_str(source.read_text(encoding="utf-8"))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    count.__name__ = "count_minilm"
    return count
