"""Structure-aware chunking with exact provenance.

A document is cut on ``## `` headings first, then each section on word boundaries into
windows of at most ``max_tokens`` tokens that overlap by at most ``overlap_tokens``.
Unlike a splitter that re-joins words, every chunk's text is the verbatim slice
``document.text[start_char:end_char]``, so a citation always resolves to exactly the text
that was retrieved, whatever whitespace the source holds.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

from ragward.errors import InvalidArgument
from ragward.reference.documents import ReferenceDoc
from ragward.reference.text import TokenCounter, estimate_tokens

__all__ = ["Chunk", "Chunking", "chunk_document", "search_text_of"]

_HEADING_RE = re.compile(r"^##[ \t]+(\S[^\n]*)$", re.MULTILINE)
_WORD_RE = re.compile(r"\S+")

#: Section name given to text that precedes the first heading (or to a document with none).
BODY_SECTION = "body"


def search_text_of(title: str, heading: str, text: str) -> str:
    """:attr:`Chunk.search_text` of a chunk of these parts: the non-empty ones, a line
    each."""
    return "\n".join(part for part in (title, heading, text) if part)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable span of one version of one document, with its provenance.

    Slotted: an index holds one per row, and a chunk's ``__dict__`` alone was a fifth of
    the index's memory per chunk at 96-d.
    """

    chunk_id: str
    doc_id: str
    tenant: str
    text: str
    section: str
    start_char: int
    end_char: int
    classification: str
    barrier: str | None
    doc_version: int
    updated_tick: int
    title: str = ""
    heading: str = ""

    @property
    def search_text(self) -> str:
        """What both indexes read: the document's title and the section heading above
        :attr:`text`, then the text itself.

        The title and heading are searchable context, never cited: :attr:`text` alone stays
        the verbatim span a citation resolves to. Text before a document's first heading
        has no heading.
        """
        return search_text_of(self.title, self.heading, self.text)

    def citation(self) -> str:
        """``doc_id@vN#section[start:end]``: where :attr:`text` lies in its document."""
        return (
            f"{self.doc_id}@v{self.doc_version}#{self.section}[{self.start_char}:{self.end_char}]"
        )


@dataclass(frozen=True)
class Chunking:
    """Chunk-size settings; ``overlap_tokens`` must lie in ``[0, max_tokens)``.

    By default both indexes read the same chunks. With ``lexical_max_tokens`` set, the
    lexical index reads chunks of that size (ids ``doc::L1``, ``doc::L2``, ...) and the
    dense index the ``max_tokens`` chunks: BM25 over whole documents or long windows, say,
    and vectors over passages short enough for the model — the chunks of both kinds are
    hits like any other, and document-level fusion (``limit_unit="documents"``) combines
    them per document.
    """

    max_tokens: int = 96
    overlap_tokens: int = 16
    lexical_max_tokens: int | None = None
    lexical_overlap_tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("max_tokens", "overlap_tokens", "lexical_overlap_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgument(f"Chunking.{name} must be an integer, got {value!r}")
        if self.max_tokens <= 0:
            raise InvalidArgument(f"Chunking.max_tokens must be > 0, got {self.max_tokens!r}")
        if not 0 <= self.overlap_tokens < self.max_tokens:
            raise InvalidArgument(
                f"Chunking.overlap_tokens must be in [0, max_tokens={self.max_tokens}), "
                f"got {self.overlap_tokens!r}"
            )
        if self.lexical_max_tokens is not None:
            Chunking(self.lexical_max_tokens, self.lexical_overlap_tokens)  # same rules

    @property
    def split(self) -> bool:
        """Whether the lexical index reads chunks of its own size."""
        return self.lexical_max_tokens is not None


def chunk_document(
    document: ReferenceDoc,
    *,
    max_tokens: int = 96,
    overlap_tokens: int = 16,
    token_counter: TokenCounter = estimate_tokens,
    id_prefix: str = "",
) -> list[Chunk]:
    """Cut ``document`` into chunks, sections first, size second.

    Guarantees: each chunk's text is ``document.text[start_char:end_char]``; every word of
    every section lies in some chunk, and a section without a body is cut from its
    heading's name, so no non-space character of the document is lost; a chunk exceeds
    ``max_tokens`` only when it is a single longer word; consecutive chunks of a section
    overlap by at most ``overlap_tokens`` and both their ends advance; no chunk crosses a
    section boundary.

    >>> doc = ReferenceDoc("d1", "t", "T", "## Intro\\nHello   world.\\n\\n## End\\nBye")
    >>> [(c.chunk_id, c.section, c.text) for c in chunk_document(doc)]
    [('d1::1', 'Intro', 'Hello   world.'), ('d1::2', 'End', 'Bye')]
    """
    Chunking(max_tokens, overlap_tokens)
    text = document.text
    chunks: list[Chunk] = []
    for section, heading, start, end, named in _sections(text):
        words = _Words(text, start, end)
        if not words.starts:
            # A section with no body is still content: its heading becomes its chunk.
            words = _Words(text, *named)
        for first, last in _windows(text, words, max_tokens, overlap_tokens, token_counter):
            begin, finish = words.starts[first], words.ends[last]
            chunks.append(
                Chunk(
                    chunk_id=f"{document.doc_id}::{id_prefix}{len(chunks) + 1}",
                    doc_id=document.doc_id,
                    tenant=document.tenant,
                    text=text[begin:finish],
                    section=section,
                    start_char=begin,
                    end_char=finish,
                    classification=document.classification,
                    barrier=document.barrier,
                    doc_version=document.version,
                    updated_tick=document.updated_tick,
                    title=document.title,
                    heading=heading,
                )
            )
    return chunks


def _sections(text: str) -> list[tuple[str, str, int, int, tuple[int, int]]]:
    """``(name, heading, start, end, named)`` of each section: its body is
    ``text[start:end]``, its heading's name ``text[named[0]:named[1]]``. Headings are not
    body. Text before the first heading is named :data:`BODY_SECTION` and has no heading."""
    headings = list(_HEADING_RE.finditer(text))
    if not headings:
        return [(BODY_SECTION, "", 0, len(text), (0, 0))]
    sections = [(BODY_SECTION, "", 0, headings[0].start(), (0, 0))]
    for i, heading in enumerate(headings):
        end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
        name = _one_line(heading.group(1))
        sections.append((name, name, heading.end(), end, heading.span(1)))
    return sections


def _one_line(name: str) -> str:
    """A heading as a one-line section name: any line break inside it becomes a space."""
    return " ".join(part.strip() for part in name.splitlines() if part.strip())


class _Words:
    """Where each word of ``text[start:end]`` starts and ends, as two arrays of integers:
    8 bytes a word (16 past 2**31 characters), where a list of ``(start, end)`` tuples
    took some 120 and made a 50 MB document's chunking peak at 20 times its size."""

    __slots__ = ("ends", "starts")

    def __init__(self, text: str, start: int, end: int) -> None:
        kind = "i" if len(text) < 2**31 else "q"
        self.starts, self.ends = array(kind), array(kind)
        for match in _WORD_RE.finditer(text, start, end):
            self.starts.append(match.start())
            self.ends.append(match.end())


def _windows(
    text: str,
    words: _Words,
    max_tokens: int,
    overlap_tokens: int,
    count: TokenCounter,
) -> Iterator[tuple[int, int]]:
    """Greedy word windows ``(first, last)`` (inclusive word indices) over one section."""
    starts, ends = words.starts, words.ends
    first = 0
    while first < len(starts):
        last = first
        while last + 1 < len(starts) and count(text[starts[first] : ends[last + 1]]) <= max_tokens:
            last += 1
        yield first, last
        if last + 1 == len(starts):
            break
        # Step back over as many trailing words as fit in the overlap, but only while the
        # next window can still take in a new word: both ends always advance.
        nxt = last + 1
        following = ends[last + 1]
        while (
            nxt - 1 > first
            and count(text[starts[nxt - 1] : ends[last]]) <= overlap_tokens
            and count(text[starts[nxt - 1] : following]) <= max_tokens
        ):
            nxt -= 1
        first = nxt
