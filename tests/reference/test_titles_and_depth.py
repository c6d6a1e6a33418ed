"""Titles and headings are searched, never cited; limits can count documents."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.reference import (
    AuthorizedRetriever,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    chunk_document,
    cut,
)

ASKER = ReferenceAsker("u", "acme")


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_a_query_matching_only_the_title_finds_the_document(mode: str) -> None:
    retriever = AuthorizedRetriever()
    retriever.ingest(ReferenceDoc("d1", "acme", "Sanctions screening", "Payments wait for review."))
    retriever.ingest(ReferenceDoc("d2", "acme", "Holiday calendar", "Offices close on Friday."))
    policy = ReferencePolicy(mode=mode)
    hits = retriever.retrieve("sanctions", ASKER, policy=policy).chunks
    assert [s.chunk.doc_id for s in hits][:1] == ["d1"]
    chunk = hits[0].chunk
    # the cited span is the text alone: the title is searched, not quoted
    assert chunk.text == "Payments wait for review."
    assert chunk.citation() == "d1@v1#body[0:25]"


def test_a_query_matching_only_a_heading_finds_that_section() -> None:
    retriever = AuthorizedRetriever(chunking=Chunking(16, 0))
    text = "## Escalation\nCall the desk lead.\n\n## Cut-off\nWires leave at noon."
    retriever.ingest(ReferenceDoc("d1", "acme", "Ops", text))
    policy = ReferencePolicy(mode="lexical")
    (hit,) = retriever.retrieve("escalation", ASKER, policy=policy).chunks
    assert (hit.chunk.section, hit.chunk.text) == ("Escalation", "Call the desk lead.")


def test_search_text_joins_title_heading_and_text() -> None:
    doc = ReferenceDoc("d1", "t", "Title", "intro words\n## Part two\nbody words")
    first, second = chunk_document(doc)
    assert first.search_text == "Title\nintro words"
    assert second.search_text == "Title\nPart two\nbody words"
    assert (first.heading, second.heading) == ("", "Part two")
    untitled = chunk_document(ReferenceDoc("d2", "t", "", "only text"))[0]
    assert untitled.search_text == "only text"


def test_lexical_scores_read_title_and_text_as_one_document() -> None:
    # The same words split differently between title and text score the same.
    a, b = AuthorizedRetriever(), AuthorizedRetriever()
    a.ingest(ReferenceDoc("d", "acme", "wire cut-off", "noon daily"))
    a.ingest(ReferenceDoc("e", "acme", "", "other words here"))
    b.ingest(ReferenceDoc("d", "acme", "", "wire cut-off noon daily"))
    b.ingest(ReferenceDoc("e", "acme", "", "other words here"))
    policy = ReferencePolicy(mode="lexical")
    got = a.retrieve("wire noon", ASKER, policy=policy).chunks
    want = b.retrieve("wire noon", ASKER, policy=policy).chunks
    assert [s.score for s in got] == [s.score for s in want]


def _many_chunked() -> AuthorizedRetriever:
    """Document "big" owns the best chunks for 'ledger'; three others match once each."""
    retriever = AuthorizedRetriever(chunking=Chunking(8, 0))
    retriever.ingest(ReferenceDoc("big", "acme", "", " ".join(["ledger ledger entry"] * 12)))
    for name in ("p", "q", "r"):
        retriever.ingest(ReferenceDoc(name, "acme", "", f"ledger mention in note {name} " * 2))
    return retriever


@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_document_depth_reaches_k_documents(mode: str) -> None:
    retriever = _many_chunked()
    by_chunk = ReferencePolicy(mode=mode, candidate_limit=4, result_limit=4)
    chunks = retriever.retrieve("ledger entry", ASKER, policy=by_chunk).chunks
    assert len({s.chunk.doc_id for s in chunks}) < 4  # "big" fills the chunk limit
    by_doc = ReferencePolicy(mode=mode, candidate_limit=4, result_limit=4, limit_unit="documents")
    docs = retriever.retrieve("ledger entry", ASKER, policy=by_doc).chunks
    assert len({s.chunk.doc_id for s in docs}) == 4
    # the document ranking by first occurrence starts as the chunk ranking's does
    first = list(dict.fromkeys(s.chunk.doc_id for s in chunks))
    assert list(dict.fromkeys(s.chunk.doc_id for s in docs))[: len(first)] == first


@pytest.mark.parametrize("mode", ["lexical", "dense"])
def test_document_limits_cut_the_full_ranking(mode: str) -> None:
    retriever = _many_chunked()
    everything = ReferencePolicy(mode=mode, candidate_limit=500, result_limit=500)
    full = list(retriever.retrieve("ledger entry", ASKER, policy=everything).chunks)
    for limit in (1, 2, 3, 4, 5):
        policy = ReferencePolicy(
            mode=mode, candidate_limit=limit, result_limit=limit, limit_unit="documents"
        )
        got = retriever.retrieve("ledger entry", ASKER, policy=policy).chunks
        assert list(got) == cut(full, limit, "documents")


@given(
    docs=st.lists(st.sampled_from("abcde"), max_size=30),
    limit=st.integers(1, 6),
)
def test_cut_keeps_the_longest_prefix_with_at_most_limit_documents(
    docs: list[str], limit: int
) -> None:
    from ragward.reference import ScoredChunk
    from ragward.reference.chunking import Chunk

    ranking = [
        ScoredChunk(Chunk(f"{d}::{i}", d, "t", "x", "body", 0, 1, "public", None, 1, 0), 1.0)
        for i, d in enumerate(docs)
    ]
    kept = cut(ranking, limit, "documents")
    assert kept == ranking[: len(kept)]
    assert len({s.chunk.doc_id for s in kept}) == min(limit, len(set(docs)))
    if len(kept) < len(ranking):  # the next chunk would bring one document too many
        assert ranking[len(kept)].chunk.doc_id not in {s.chunk.doc_id for s in kept}
    assert cut(ranking, limit) == ranking[:limit]


def test_a_bad_limit_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="limit_unit must be one of chunks, documents"):
        ReferencePolicy(limit_unit="pages")


def _corpus(retriever: AuthorizedRetriever) -> AuthorizedRetriever:
    retriever.ingest(ReferenceDoc("a", "acme", "Wire cut-off", " ".join(["noon wire desk"] * 9)))
    retriever.ingest(ReferenceDoc("b", "acme", "", "sanctions review of every wire " * 4))
    retriever.ingest(ReferenceDoc("c", "acme", "Holidays", "offices close on friday"))
    return retriever


def test_a_split_chunking_gives_each_index_its_own_chunks() -> None:
    split = _corpus(AuthorizedRetriever(chunking=Chunking(8, 0, lexical_max_tokens=10_000)))
    whole = _corpus(AuthorizedRetriever(chunking=Chunking(10_000, 0)))
    small = _corpus(AuthorizedRetriever(chunking=Chunking(8, 0)))
    for query in ("wire noon", "sanctions friday", "desk"):
        lexical = ReferencePolicy(mode="lexical", candidate_limit=50, result_limit=50)
        got = split.retrieve(query, ASKER, policy=lexical).chunks
        want = whole.retrieve(query, ASKER, policy=lexical).chunks
        # BM25 reads only the whole-document rows: same scores, same statistics
        assert [(s.chunk.doc_id, s.score) for s in got] == [(s.chunk.doc_id, s.score) for s in want]
        assert all("::L" in s.chunk.chunk_id for s in got)
        dense = ReferencePolicy(mode="dense", candidate_limit=50, result_limit=50)
        got = split.retrieve(query, ASKER, policy=dense).chunks
        want = small.retrieve(query, ASKER, policy=dense).chunks
        assert [(s.chunk.chunk_id, s.score) for s in got] == [
            (s.chunk.chunk_id, s.score) for s in want
        ]
    hybrid = ReferencePolicy(candidate_limit=3, result_limit=3, limit_unit="documents")
    hits = split.retrieve("wire", ASKER, policy=hybrid).chunks
    ranking = list(dict.fromkeys(s.chunk.doc_id for s in hits))
    assert set(ranking[:2]) == {"a", "b"}  # in both lists; "c" only where a cosine is > 0
    assert {s.chunk.chunk_id for s in hits} >= {"a::L1", "b::L1"}


def test_a_split_chunking_survives_compaction() -> None:
    retriever = AuthorizedRetriever(chunking=Chunking(4, 0, lexical_max_tokens=10_000))
    for version in range(1, 60):  # every upsert kills the previous version's rows
        retriever.ingest(ReferenceDoc("a", "acme", "", "wire desk noon " * 40, version=version))
    retriever.ingest(ReferenceDoc("b", "acme", "", "wire review"))
    fresh = AuthorizedRetriever(chunking=Chunking(4, 0, lexical_max_tokens=10_000))
    fresh.ingest(ReferenceDoc("a", "acme", "", "wire desk noon " * 40, version=59))
    fresh.ingest(ReferenceDoc("b", "acme", "", "wire review"))
    for mode in ("lexical", "dense"):
        policy = ReferencePolicy(mode=mode, candidate_limit=500, result_limit=500)
        got = retriever.retrieve("wire", ASKER, policy=policy).chunks
        want = fresh.retrieve("wire", ASKER, policy=policy).chunks
        assert [(s.chunk.chunk_id, s.score) for s in got] == [
            (s.chunk.chunk_id, s.score) for s in want
        ]
        assert got
