"""Hand-worked expectations for the reference: every number here is worked out by hand.

RRF sums and BM25 scores are written out as arithmetic in the test, never read back from
the implementation; chunking, assembly, validation and grounding are the other
``test_units_*.py``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from ragward.errors import InvalidArgument
from ragward.reference import (
    AuthorizedRetriever,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    ScoredChunk,
    reciprocal_rank_fusion,
)

from .hand_made import chunk_ids, made_hit

# -- RRF -------------------------------------------------------------------------------


def _first_and_tenth_vs_third_and_third() -> list[ScoredChunk]:
    # x is 1st in the lexical ranking and 10th in the dense one; y is 3rd in both.
    lexical = [made_hit("x", 9.0), made_hit("f1", 8.0), made_hit("y", 7.0)]
    dense = [made_hit(f"g{i}", 1.0 - i / 100) for i in range(1, 3)]
    dense += [made_hit("y", 0.5)]
    dense += [made_hit(f"g{i}", 0.4 - i / 100) for i in range(3, 9)]
    dense += [made_hit("x", 0.01)]
    assert chunk_ids(dense).index("y") == 2
    assert chunk_ids(dense).index("x") == 9
    return reciprocal_rank_fusion([lexical, dense])


def test_rrf_first_and_tenth_scores_one_over_61_plus_one_over_70() -> None:
    fused = {s.chunk.chunk_id: s.score for s in _first_and_tenth_vs_third_and_third()}
    assert fused["x"] == pytest.approx(1 / 61 + 1 / 70, rel=1e-12)
    assert fused["x"] == pytest.approx(0.030679, abs=1e-6)


def test_rrf_third_and_third_scores_two_over_63_and_outranks_first_and_tenth() -> None:
    fused = _first_and_tenth_vs_third_and_third()
    scores = {s.chunk.chunk_id: s.score for s in fused}
    assert scores["y"] == pytest.approx(2 / 63, rel=1e-12)
    assert scores["y"] == pytest.approx(0.031746, abs=1e-6)
    assert 2 / 63 > 1 / 61 + 1 / 70
    assert chunk_ids(fused).index("y") < chunk_ids(fused).index("x")
    assert chunk_ids(fused)[:2] == ["y", "x"]


def test_rrf_chunk_in_only_one_ranking_scores_its_single_term() -> None:
    scores = {s.chunk.chunk_id: s.score for s in _first_and_tenth_vs_third_and_third()}
    assert scores["f1"] == pytest.approx(1 / 62, rel=1e-12)  # 2nd in lexical only
    assert scores["g1"] == pytest.approx(1 / 61, rel=1e-12)  # 1st in dense only
    assert scores["g8"] == pytest.approx(1 / 69, rel=1e-12)  # 9th in dense only
    assert len(scores) == 2 + 1 + 8  # x, y, f1, g1..g8: each chunk once


def test_rrf_custom_k() -> None:
    fused = reciprocal_rank_fusion([[made_hit("a"), made_hit("b")], [made_hit("b")]], k=1)
    assert chunk_ids(fused) == ["b", "a"]
    assert [s.score for s in fused] == pytest.approx([1 / 3 + 1 / 2, 1 / 2], rel=1e-12)


def test_rrf_ties_break_by_chunk_id_not_by_input_order() -> None:
    # "b" is first in the first ranking, "a" first in the second: both score 1/61.
    fused = reciprocal_rank_fusion([[made_hit("b", 100.0)], [made_hit("a", 0.0)]])
    assert chunk_ids(fused) == ["a", "b"]
    assert fused[0].score == fused[1].score == pytest.approx(1 / 61, rel=1e-12)
    fused = reciprocal_rank_fusion([[made_hit("c"), made_hit("b")], [made_hit("a"), made_hit("d")]])
    assert chunk_ids(fused) == ["a", "c", "b", "d"]


def test_rrf_limit() -> None:
    rankings = [[made_hit("a"), made_hit("b"), made_hit("c")], [made_hit("c"), made_hit("d")]]
    # c: 1/63 + 1/61, a: 1/61, d: 1/62, b: 1/62 -> c, a, b, d
    assert chunk_ids(reciprocal_rank_fusion(rankings)) == ["c", "a", "b", "d"]
    assert chunk_ids(reciprocal_rank_fusion(rankings, limit=None)) == ["c", "a", "b", "d"]
    assert chunk_ids(reciprocal_rank_fusion(rankings, limit=2)) == ["c", "a"]
    assert chunk_ids(reciprocal_rank_fusion(rankings, limit=10)) == ["c", "a", "b", "d"]
    assert reciprocal_rank_fusion(rankings, limit=0) == []
    assert reciprocal_rank_fusion([]) == []


def test_rrf_reads_positions_not_scores() -> None:
    low = reciprocal_rank_fusion([[made_hit("a", 0.001), made_hit("b", 1000.0)]])
    high = reciprocal_rank_fusion([[made_hit("a", -5.0), made_hit("b", 7.0)]])
    assert [(s.chunk.chunk_id, s.score) for s in low] == [(s.chunk.chunk_id, s.score) for s in high]
    assert chunk_ids(low) == ["a", "b"]  # b's huge input score does not lift it


def test_rrf_scores_do_not_depend_on_the_order_of_the_rankings() -> None:
    # z is 1st, 1st and 2nd: added left to right, 1/61 + 1/61 + 1/62 and
    # 1/62 + 1/61 + 1/61 round differently in floating point. RRF's score is the sum,
    # so the order the rankings arrive in must not show.
    terms = [1 / 61, 1 / 61, 1 / 62]
    left = (terms[0] + terms[1]) + terms[2]
    right = (terms[2] + terms[1]) + terms[0]
    assert left != right  # the example is sensitive to summation order
    one = [made_hit("z")]
    two = [made_hit("z"), made_hit("w")]
    three = [made_hit("w"), made_hit("z")]
    forward = reciprocal_rank_fusion([one, two, three])
    backward = reciprocal_rank_fusion([three, two, one])
    assert [(s.chunk.chunk_id, s.score) for s in forward] == [
        (s.chunk.chunk_id, s.score) for s in backward
    ]
    assert forward[0].chunk.chunk_id == "z"
    assert forward[0].score == math.fsum(terms)
    assert forward[1].score == pytest.approx(1 / 62 + 1 / 61, rel=1e-12)


@pytest.mark.parametrize(("k", "shown"), [(0, "0"), (-1, "-1"), (-0.5, "-0.5"), (True, "True")])
def test_rrf_rejects_bad_k(k: Any, shown: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        reciprocal_rank_fusion([[made_hit("a")]], k=k)
    assert "k" in str(info.value)
    assert shown in str(info.value)


@pytest.mark.parametrize("k", [math.nan, "60"])
def test_rrf_rejects_non_numbers_and_nan_for_k(k: Any) -> None:
    with pytest.raises(InvalidArgument) as info:
        reciprocal_rank_fusion([[made_hit("a")]], k=k)
    assert repr(k) in str(info.value)


def test_rrf_rejects_negative_limit_and_duplicates() -> None:
    with pytest.raises(InvalidArgument) as info:
        reciprocal_rank_fusion([[made_hit("a")]], limit=-1)
    assert "limit" in str(info.value)
    assert "-1" in str(info.value)
    with pytest.raises(InvalidArgument, match="'a'"):
        reciprocal_rank_fusion([[made_hit("a"), made_hit("a")]])


# -- BM25 through the authorized retriever ---------------------------------------------

K1, B = 1.5, 0.75
LEXICAL = ReferencePolicy(mode="lexical", enable_rerank=False, result_limit=10)
BM25_QUERY = "apple cherry cherry"  # cherry counted twice


def _bm25_retriever(*, with_restricted: bool) -> AuthorizedRetriever:
    retriever = AuthorizedRetriever(chunking=Chunking(max_tokens=1000, overlap_tokens=0))
    retriever.ingest(ReferenceDoc("d1", "t", "", "apple banana apple"))  # 3 tokens
    retriever.ingest(ReferenceDoc("d2", "t", "", "banana cherry"))  # 2 tokens
    retriever.ingest(ReferenceDoc("d3", "t", "", "cherry cherry cherry date"))  # 4 tokens
    if with_restricted:
        retriever.ingest(
            ReferenceDoc("d4", "t", "", "apple apple apple apple", classification="restricted")
        )
    return retriever


def _scores(retriever: AuthorizedRetriever, principal: ReferenceAsker) -> dict[str, float]:
    result = retriever.retrieve(BM25_QUERY, principal, policy=LEXICAL)
    assert result.degraded == ("rerank",)
    scores = [s.score for s in result.chunks]
    assert scores == sorted(scores, reverse=True)
    return {s.chunk.chunk_id: s.score for s in result.chunks}


def _three_chunk_scores() -> dict[str, float]:
    """Hand-worked BM25 of the three visible chunks for 'apple cherry cherry'."""
    n = 3
    avgdl = (3 + 2 + 4) / 3  # = 3.0
    idf_apple = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))  # df(apple) = 1: d1
    idf_cherry = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))  # df(cherry) = 2: d2, d3
    # d1: apple tf 2, |d1| = 3; no cherry
    d1 = 1 * idf_apple * (2 * (K1 + 1)) / (2 + K1 * (1 - B + B * 3 / avgdl))
    # d2: cherry tf 1, |d2| = 2; cherry occurs twice in the query
    d2 = 2 * idf_cherry * (1 * (K1 + 1)) / (1 + K1 * (1 - B + B * 2 / avgdl))
    # d3: cherry tf 3, |d3| = 4
    d3 = 2 * idf_cherry * (3 * (K1 + 1)) / (3 + K1 * (1 - B + B * 4 / avgdl))
    return {"d1::1": d1, "d2::1": d2, "d3::1": d3}


def test_bm25_three_chunks_by_hand() -> None:
    got = _scores(_bm25_retriever(with_restricted=False), ReferenceAsker("u", "t"))
    expected = _three_chunk_scores()
    assert set(got) == set(expected)
    for chunk_id, score in expected.items():
        assert got[chunk_id] == pytest.approx(score, rel=1e-12), chunk_id
    # the numbers themselves, rounded, as a sanity check on the arithmetic above
    assert expected["d3::1"] == pytest.approx(1.446165, abs=1e-6)
    assert expected["d1::1"] == pytest.approx(1.401185, abs=1e-6)
    assert expected["d2::1"] == pytest.approx(1.105891, abs=1e-6)
    result = _bm25_retriever(with_restricted=False).retrieve(
        BM25_QUERY, ReferenceAsker("u", "t"), policy=LEXICAL
    )
    assert [s.chunk.chunk_id for s in result.chunks] == ["d3::1", "d1::1", "d2::1"]


def test_bm25_statistics_ignore_an_invisible_chunk() -> None:
    retriever = _bm25_retriever(with_restricted=True)
    low = ReferenceAsker("u", "t", max_classification="internal")
    got = _scores(retriever, low)
    expected = _three_chunk_scores()  # N = 3 and avgdl = 3.0: the visible chunks only
    assert set(got) == {"d1::1", "d2::1", "d3::1"}
    for chunk_id, score in expected.items():
        assert got[chunk_id] == pytest.approx(score, rel=1e-12), chunk_id
    # Namespace-wide statistics (N = 4, avgdl = 13/4, df(apple) = 2) would give
    # different numbers; the test tells the two apart.
    wide_avgdl = (3 + 2 + 4 + 4) / 4
    wide_idf_apple = math.log(1 + (4 - 2 + 0.5) / (2 + 0.5))
    wide_d1 = wide_idf_apple * (2 * (K1 + 1)) / (2 + K1 * (1 - B + B * 3 / wide_avgdl))
    assert got["d1::1"] != pytest.approx(wide_d1, rel=1e-6)
    audit = retriever.retrieve(BM25_QUERY, low, policy=LEXICAL)
    assert audit.considered == 4
    assert audit.excluded_by_entitlement == 1
    assert audit.excluded_by_freshness == 0


def test_bm25_cleared_asker_sees_statistics_over_all_four() -> None:
    retriever = _bm25_retriever(with_restricted=True)
    got = _scores(retriever, ReferenceAsker("u", "t", max_classification="restricted"))
    n = 4
    avgdl = (3 + 2 + 4 + 4) / 4  # = 3.25
    idf_apple = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))  # d1, d4 -> ln 2
    idf_cherry = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))  # d2, d3 -> ln 2
    expected = {
        "d1::1": idf_apple * (2 * (K1 + 1)) / (2 + K1 * (1 - B + B * 3 / avgdl)),
        "d2::1": 2 * idf_cherry * (1 * (K1 + 1)) / (1 + K1 * (1 - B + B * 2 / avgdl)),
        "d3::1": 2 * idf_cherry * (3 * (K1 + 1)) / (3 + K1 * (1 - B + B * 4 / avgdl)),
        "d4::1": idf_apple * (4 * (K1 + 1)) / (4 + K1 * (1 - B + B * 4 / avgdl)),
    }
    assert idf_apple == pytest.approx(math.log(2), rel=1e-15)
    assert set(got) == set(expected)
    for chunk_id, score in expected.items():
        assert got[chunk_id] == pytest.approx(score, rel=1e-12), chunk_id
