"""Analyzers: what each one cuts, and the retriever reading its index through one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.analysis import (
    ANALYZERS,
    ENGLISH_STOPWORDS,
    PLAIN,
    Analyzer,
    EnglishAnalyzer,
    analyzer_named,
)
from ragward.errors import InvalidArgument
from ragward.reference import (
    AuthorizedRetriever,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    tokenize,
)
from ragward.reference.rerank import LexicalOverlapReranker

WHO = ReferenceAsker("u", "t", "restricted")
LEXICAL = ReferencePolicy(mode="lexical", candidate_limit=20, result_limit=20)


def test_plain_is_todays_tokenizer() -> None:
    text = "The Treatments of TRF-3318, naïve café"
    assert PLAIN.terms(text) == tokenize(text)
    assert analyzer_named("plain") is PLAIN


def test_english_stems_drops_stop_words_and_splits_hyphens() -> None:
    english = analyzer_named("english")
    assert english.terms("The treatments were treated; TRF-3318 is not running") == [
        "treatment",
        "were",
        "treat",
        "trf",
        "3318",
        "run",
    ]
    # Lucene's 33 words, no more: "were" is not among them, "not" and "such" are
    assert len(ENGLISH_STOPWORDS) == 33
    assert {"not", "such", "into"} <= ENGLISH_STOPWORDS
    assert english.terms("such a thing, and not into it") == ["thing"]
    # any script, lower-cased; underscores split words as hyphens do
    assert english.terms("Straße_Café") == ["straße", "café"]


def test_every_named_analyzer_is_an_analyzer_with_its_name() -> None:
    for name in ANALYZERS:
        made = analyzer_named(name)
        assert isinstance(made, Analyzer)
        assert made.name == name


@pytest.mark.parametrize("name", ["English", "", "porter", None, 3])
def test_an_unknown_analyzer_is_refused_in_one_line(name: object) -> None:
    with pytest.raises(
        InvalidArgument, match=r"unknown analyzer .*known analyzers are english, plain"
    ):
        analyzer_named(name)


def test_a_retriever_refuses_what_is_not_an_analyzer() -> None:
    with pytest.raises(InvalidArgument, match="analyzer must have a name and a terms"):
        AuthorizedRetriever(analyzer="english")  # type: ignore[arg-type]


@given(st.text(max_size=80))
def test_english_terms_are_lower_case_stems_of_no_stop_word(text: str) -> None:
    terms = EnglishAnalyzer().terms(text)
    assert all(t and t == t.lower() and t not in ENGLISH_STOPWORDS for t in terms)
    assert EnglishAnalyzer().terms(text) == terms  # deterministic


def _ids(retriever: AuthorizedRetriever, query: str) -> list[str]:
    return [s.chunk.doc_id for s in retriever.retrieve(query, WHO, policy=LEXICAL).chunks]


def _indexed(analyzer: Analyzer) -> AuthorizedRetriever:
    retriever = AuthorizedRetriever(analyzer=analyzer)
    retriever.ingest(ReferenceDoc("stemmed", "t", "", "Patients were treated with statins."))
    retriever.ingest(ReferenceDoc("other", "t", "", "The ledger closes at noon."))
    return retriever


def test_english_meets_another_form_of_a_word_where_plain_does_not() -> None:
    assert _ids(_indexed(PLAIN), "treatment of patient") == []
    assert _ids(_indexed(EnglishAnalyzer()), "treatment of patient") == ["stemmed"]
    # a question of stop words alone matches nothing under english, everything under plain
    assert _ids(_indexed(EnglishAnalyzer()), "the at") == []
    assert _ids(_indexed(PLAIN), "the at") == ["other"]


def test_english_statistics_count_stems_not_forms() -> None:
    # "statin" in one document and "statins" in the other: one term, df 2, under english
    retriever = AuthorizedRetriever(analyzer=EnglishAnalyzer())
    retriever.ingest(ReferenceDoc("a", "t", "", "statin dose"))
    retriever.ingest(ReferenceDoc("b", "t", "", "statins"))
    scores = {
        s.chunk.doc_id: s.score for s in retriever.retrieve("statin", WHO, policy=LEXICAL).chunks
    }
    assert set(scores) == {"a", "b"}
    assert scores["b"] > scores["a"]  # the same term frequency in a shorter document


def test_rerank_under_english_asks_the_reranker_not_the_index() -> None:
    # The index holds stems, the overlap reranker counts plain words: the shortcut that
    # reads the reranker's counts from the index must not run, or scores would differ.
    retriever = _indexed(EnglishAnalyzer())
    policy = ReferencePolicy(mode="lexical", enable_rerank=True, candidate_limit=5)
    first = retriever.first_stage("patients treated", WHO, policy=policy)
    chunks = [s.chunk for s in first.lexical]
    assert list(retriever.rerank_scores(first, chunks)) == LexicalOverlapReranker().score(
        "patients treated", chunks
    )


def test_compaction_keeps_the_analyzer() -> None:
    chunking = Chunking(max_tokens=200, overlap_tokens=0)
    retriever = AuthorizedRetriever(analyzer=EnglishAnalyzer(), chunking=chunking)
    for n in range(1500):
        retriever.ingest(ReferenceDoc(f"d{n}", "t", "", f"ledger reconciliations {n}"))
    for n in range(1400):  # compaction: more than 1024 dead rows, and more dead than live
        retriever.delete("t", f"d{n}")
    assert len(retriever._namespaces["t"].chunks) < 1500
    assert len(_ids(retriever, "reconciliation")) == 20
