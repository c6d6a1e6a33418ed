"""Hand-worked chunking: every citation offset on whitespace-heavy text written out."""

from __future__ import annotations

import itertools

from ragward.reference import ReferenceDoc, chunk_document

from .hand_made import spans_of

# -- Chunking: citations on whitespace-heavy text --------------------------------------

# Offsets: "  Lead  in" 0..10, "\r\n\r\n" 10..14, "## First \r" 14..24, "\n\t" 24..26,
# "Alpha   beta" 26..38, "\n\n" 38..40, "gamma\t\r" 40..47, "\n" 47, "## Second" 48..57,
# "\n  " 57..60, "delta" 60..65, "  \n" 65..68.
MESSY = "  Lead  in\r\n\r\n## First \r\n\tAlpha   beta\n\ngamma\t\r\n## Second\n  delta  \n"


def test_citations_on_messy_whitespace_one_chunk_per_section() -> None:
    assert len(MESSY) == 68
    doc = ReferenceDoc("d", "t", "T", MESSY, version=3)
    chunks = chunk_document(doc, max_tokens=100, overlap_tokens=0)
    # body: "Lead" at 2..6, "in" at 8..10; heading "## First \r" is 14..24 (name stripped);
    # First's words: "Alpha" 26..31, "beta" 34..38, "gamma" 40..45; heading "## Second"
    # is 48..57; "delta" 60..65.
    assert spans_of(chunks) == [
        ("d::1", "body", 2, 10, "Lead  in"),
        ("d::2", "First", 26, 45, "Alpha   beta\n\ngamma"),
        ("d::3", "Second", 60, 65, "delta"),
    ]
    assert [c.citation() for c in chunks] == [
        "d@v3#body[2:10]",
        "d@v3#First[26:45]",
        "d@v3#Second[60:65]",
    ]
    for c in chunks:
        assert doc.text[c.start_char : c.end_char] == c.text


def test_citations_on_messy_whitespace_with_overlap() -> None:
    doc = ReferenceDoc("d", "t", "T", MESSY)
    chunks = chunk_document(doc, max_tokens=3, overlap_tokens=1)
    # "Alpha   beta" is 12 chars = 3 tokens; adding gamma makes 19 chars = 5 tokens.
    # Step back over "beta" (1 token <= 1): "beta\n\ngamma" is 11 chars = 3 tokens.
    assert spans_of(chunks) == [
        ("d::1", "body", 2, 10, "Lead  in"),
        ("d::2", "First", 26, 38, "Alpha   beta"),
        ("d::3", "First", 34, 45, "beta\n\ngamma"),
        ("d::4", "Second", 60, 65, "delta"),
    ]
    for c in chunks:
        assert doc.text[c.start_char : c.end_char] == c.text


def test_citations_repeated_words_use_positions_not_search() -> None:
    doc = ReferenceDoc("g", "t", "T", "go  go\ngo  go")
    # words at 0..2, 4..6, 7..9, 11..13; max 2 tokens = 8 chars
    assert spans_of(chunk_document(doc, max_tokens=2, overlap_tokens=0)) == [
        ("g::1", "body", 0, 6, "go  go"),
        ("g::2", "body", 7, 13, "go  go"),
    ]
    assert spans_of(chunk_document(doc, max_tokens=2, overlap_tokens=1)) == [
        ("g::1", "body", 0, 6, "go  go"),
        ("g::2", "body", 4, 9, "go\ngo"),
        ("g::3", "body", 7, 13, "go  go"),
    ]


def test_citations_docstring_example_and_heading_first() -> None:
    doc = ReferenceDoc("d1", "t", "T", "## Intro\nHello   world.\n\n## End\nBye")
    # "## Intro\n" is 9 chars; "Hello   world." is 14; "\n\n## End\n" is 9 more.
    assert spans_of(chunk_document(doc)) == [
        ("d1::1", "Intro", 9, 23, "Hello   world."),
        ("d1::2", "End", 32, 35, "Bye"),
    ]


def test_crlf_heading_and_tab_heading() -> None:
    text = "##\tTabbed\r\none two\r\n## Crlf \r\n three\r\n"
    # "##\tTabbed\r" is 0..10 ("\r" at 9), "\n" 10, "one two" 11..18, "\r\n" 18..20,
    # "## Crlf \r" 20..29, "\n " 29..31, "three" 31..36
    doc = ReferenceDoc("h", "t", "T", text)
    assert spans_of(chunk_document(doc)) == [
        ("h::1", "Tabbed", 11, 18, "one two"),
        ("h::2", "Crlf", 31, 36, "three"),
    ]


def test_single_word_longer_than_max_tokens_is_kept_whole() -> None:
    word = "x" * 41  # 11 tokens
    doc = ReferenceDoc("w", "t", "T", f"a {word} b")
    chunks = chunk_document(doc, max_tokens=2, overlap_tokens=0)
    assert spans_of(chunks) == [
        ("w::1", "body", 0, 1, "a"),
        ("w::2", "body", 2, 43, word),
        ("w::3", "body", 44, 45, "b"),
    ]


def test_every_chunk_advances_past_its_predecessor() -> None:
    # "aaaa bbbb" is 9 chars = 3 tokens; with "cccccccccc" it is 20 chars = 5 > 3.
    # Stepping back over "bbbb" (1 token <= 2) leaves "bbbb cccccccccc" = 15 chars =
    # 4 > 3, so a window starting at "bbbb" cannot take the next word: a chunk that is
    # only "bbbb" would add nothing the previous chunk did not hold. Each word here fits
    # max_tokens on its own ("cccccccccc" is 3 tokens).
    doc = ReferenceDoc("d", "t", "T", "aaaa bbbb cccccccccc")
    chunks = chunk_document(doc, max_tokens=3, overlap_tokens=2)
    for prev, nxt in itertools.pairwise(chunks):
        assert nxt.end_char > prev.end_char, spans_of(chunks)
    assert chunks[0].text == "aaaa bbbb"
    assert chunks[-1].text == "cccccccccc"


def test_blank_document_has_no_chunks() -> None:
    assert chunk_document(ReferenceDoc("e", "t", "T", " \n\t\r\n ")) == []


def test_a_section_without_a_body_is_cut_from_its_heading() -> None:
    text = "lead\n## Only a heading\r\n\n## Next\nbody"
    chunks = chunk_document(ReferenceDoc("e", "t", "T", text), max_tokens=96, overlap_tokens=0)
    got = [(c.section, c.text, c.start_char) for c in chunks]
    assert got == [
        ("body", "lead", 0),
        ("Only a heading", "Only a heading", 8),
        ("Next", "body", 33),
    ]
