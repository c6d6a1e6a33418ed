"""A stage finished on arrays, and rerank scores read from the index, against the plain way.

:class:`~ragward.reference.finishing.StageTable` must give, setting after setting, the
chunks and scores ``finish`` gives for the stage narrowed to the setting's candidate limit;
:meth:`AuthorizedRetriever.rerank_scores` must give the scores the lexical-overlap
reranker computes by tokenizing each chunk, whatever was deleted or updated since, and
after a compaction renumbered the rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from ragward.reference import (
    AuthorizedRetriever,
    Chunk,
    Chunking,
    FirstStage,
    HashEmbedder,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    cut,
)
from ragward.reference.finishing import StageTable
from ragward.reference.rerank import LexicalOverlapReranker, reads_index_terms
from tests.reference.strategies import corpora, policies, queries

WIDE = 8


class Picky:
    """A reranker of its own: NaN for chunks of one document, a failure when shown a
    chunk of another, and otherwise a score made of the chunk's id (many ties)."""

    name = "picky"

    def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
        if any(c.doc_id == "d4" for c in chunks):
            raise RuntimeError("picky refuses d4")
        return [math.nan if c.doc_id == "d3" else float(len(c.chunk_id) % 3) for c in chunks]


def _retriever(corpus: Sequence[ReferenceDoc], chunking: Chunking) -> AuthorizedRetriever:
    retriever = AuthorizedRetriever(embedder=HashEmbedder(16), chunking=chunking)
    for document in corpus:
        retriever.ingest(document)
    return retriever


def _narrowed(first: FirstStage, policy: ReferencePolicy) -> FirstStage:
    limit, unit = policy.candidate_limit, policy.limit_unit
    lexical = tuple(cut(first.lexical, limit, unit)) if policy.mode != "dense" else ()
    dense = tuple(cut(first.dense, limit, unit)) if policy.mode != "lexical" else ()
    return first.narrowed(lexical, dense)


@given(
    corpora(max_size=8, tenants=("acme",)),
    st.data(),
    st.lists(policies(), min_size=1, max_size=8),
    st.sampled_from(("chunks", "documents")),
    st.sampled_from((Chunking(), Chunking(max_tokens=4, overlap_tokens=1))),
    st.booleans(),
)
def test_a_stage_table_finishes_as_finish_does(
    corpus: list[ReferenceDoc],
    data: st.DataObject,
    settings: list[ReferencePolicy],
    unit: str,
    chunking: Chunking,
    picky: bool,
) -> None:
    retriever = _retriever(corpus, chunking)
    if picky:
        retriever.reranker = Picky()
    principal = ReferenceAsker("u1", "acme", "restricted")
    query = data.draw(queries(corpus))
    wide = ReferencePolicy(candidate_limit=WIDE, result_limit=WIDE, limit_unit=unit)
    # two stages of one question: what one remembers cannot help the other
    plain = retriever.first_stage(query, principal, now_tick=50, policy=wide)
    arrays = retriever.first_stage(query, principal, now_tick=50, policy=wide)
    table = StageTable(arrays)
    for setting in settings:
        policy = replace(setting, limit_unit=unit, max_stale_ticks=None)
        expected = retriever.finish(_narrowed(plain, policy), policy)
        finished = table.finish(
            policy, retriever.reranker, lambda chunks: retriever.rerank_scores(arrays, chunks)
        )
        got = finished.chunks(table)
        assert [(s.chunk.chunk_id, s.score) for s in got] == [
            (s.chunk.chunk_id, s.score) for s in expected.chunks
        ]
        assert all(type(s.score) is float for s in got)
        assert finished.rerank_shed == ("rerank" in expected.degraded)


@given(
    corpora(max_size=8, tenants=("acme",)),
    st.data(),
    st.sampled_from((Chunking(), Chunking(max_tokens=4, overlap_tokens=1))),
    st.lists(st.sampled_from(("d1", "d2", "d3", "shared")), max_size=3),
)
def test_rerank_scores_read_from_the_index_are_the_rerankers(
    corpus: list[ReferenceDoc], data: st.DataObject, chunking: Chunking, deleted: list[str]
) -> None:
    retriever = _retriever(corpus, chunking)
    for doc_id in deleted:  # dead rows stay in the postings, masked out
        retriever.delete("acme", doc_id)
    for document in corpus[:2]:  # a newer version: its rows appended anew
        retriever.ingest(replace(document, version=document.version + 1, text=document.title))
    query = data.draw(queries(corpus))
    wide = ReferencePolicy(candidate_limit=WIDE, result_limit=WIDE)
    first = retriever.first_stage(query, ReferenceAsker("u1", "acme", "restricted"), policy=wide)
    chunks = list({s.chunk.chunk_id: s.chunk for s in (*first.lexical, *first.dense)}.values())
    assert reads_index_terms(retriever.reranker)
    assert first.source is not None or not chunks  # no source: an empty namespace
    by_tokens = LexicalOverlapReranker().score(query, chunks)
    from_index = retriever.rerank_scores(first, chunks)
    assert list(from_index) == by_tokens
    assert all(type(score) is float for score in from_index)


def test_after_a_compaction_a_stage_asks_the_reranker_and_still_agrees() -> None:
    retriever = AuthorizedRetriever(embedder=HashEmbedder(16))
    text = "payment held for screening; release needs dual control"
    for number in range(40):
        retriever.ingest(ReferenceDoc(f"d{number}", "acme", "Hold", f"{text} {number}"))
    principal = ReferenceAsker("u1", "acme")
    first = retriever.first_stage("held payment release", principal)
    chunks = [s.chunk for s in first.lexical]
    namespace = retriever._namespaces["acme"]
    before = namespace.compactions
    for round_ in range(60):  # enough dead rows to compact: every row is numbered anew
        for number in range(40):
            retriever.ingest(ReferenceDoc(f"d{number}", "acme", "Hold", text, version=round_ + 2))
    assert namespace.compactions > before
    asked: list[int] = []

    class Counting(LexicalOverlapReranker):
        def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
            asked.append(len(chunks))
            return super().score(query, chunks)

    expected = LexicalOverlapReranker().score(first.query, chunks)
    assert list(retriever.rerank_scores(first, chunks)) == expected
    retriever.reranker = Counting()  # a subclass with its own score is always asked
    assert list(retriever.rerank_scores(first, chunks)) == expected
    assert asked == [len(chunks)]


def test_a_reranker_that_replaces_score_is_not_read_from_the_index() -> None:
    class Shouting(LexicalOverlapReranker):
        def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
            return [2.0 * s for s in super().score(query, chunks)]

    assert reads_index_terms(LexicalOverlapReranker())
    assert not reads_index_terms(Shouting())
    assert not reads_index_terms(Picky())
