"""Fusion methods: each formula on a hand-made case, plain RRF unchanged, bad knobs refused."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.reference import ReferencePolicy
from ragward.reference.chunking import Chunk
from ragward.reference.fusion import document_rank_fusion, reciprocal_rank_fusion
from ragward.reference.fusion_methods import FUSIONS, fuse
from ragward.reference.ranking import ScoredChunk, ranked


def _hit(chunk_id: str, score: float) -> ScoredChunk:
    doc_id = chunk_id.partition("::")[0]
    return ScoredChunk(Chunk(chunk_id, doc_id, "t", "x", "body", 0, 1, "public", None, 1, 0), score)


def _scores(fused: list[ScoredChunk]) -> dict[str, float]:
    return {s.chunk.chunk_id: s.score for s in fused}


LEXICAL = [_hit("a", 9.0), _hit("b", 5.0), _hit("c", 1.0)]
DENSE = [_hit("c", 0.9), _hit("d", 0.6), _hit("a", 0.3)]


def test_weighted_rrf_weighs_each_side() -> None:
    fused = _scores(fuse(LEXICAL, DENSE, method="rrf", k=10, dense_weight=0.25))
    # lexical weight 2 * 0.75 = 1.5, dense weight 2 * 0.25 = 0.5
    assert fused["a"] == pytest.approx(1.5 / 11 + 0.5 / 13, abs=1e-15)
    assert fused["d"] == pytest.approx(0.5 / 12, abs=1e-15)
    # one side alone: the other contributes nothing
    only_lexical = _scores(fuse(LEXICAL, DENSE, method="rrf", k=10, dense_weight=0.0))
    assert only_lexical["d"] == 0.0
    assert [c for c, _ in sorted(only_lexical.items(), key=lambda kv: -kv[1])][:3] == [
        "a",
        "b",
        "c",
    ]


def test_minmax_normalises_each_side_and_absent_takes_the_lowest() -> None:
    fused = _scores(fuse(LEXICAL, DENSE, method="minmax", dense_weight=0.5))
    # lexical: a 1, b 0.5, c 0; dense: c 1, d 0.5, a 0; b absent from dense takes 0
    assert fused == pytest.approx({"a": 0.5, "b": 0.25, "c": 0.5, "d": 0.25}, abs=1e-15)
    # a side whose candidates all score alike normalises them to 1
    same = _scores(fuse([_hit("a", 2.0), _hit("b", 2.0)], [], method="minmax", dense_weight=0.5))
    assert same == {"a": 0.5, "b": 0.5}


def test_zscore_standardises_each_side() -> None:
    fused = _scores(fuse(LEXICAL, DENSE, method="zscore", dense_weight=0.5))
    lex_mean, lex_sd = 5.0, math.sqrt((16 + 0 + 16) / 3)
    dense_mean, dense_sd = 0.6, math.sqrt((0.09 + 0 + 0.09) / 3)
    z_lex = {"a": (9 - lex_mean) / lex_sd, "b": 0.0, "c": (1 - lex_mean) / lex_sd}
    z_dense = {"c": (0.9 - dense_mean) / dense_sd, "d": 0.0, "a": (0.3 - dense_mean) / dense_sd}
    lowest = (min(z_lex.values()), min(z_dense.values()))
    for chunk_id, score in fused.items():
        want = 0.5 * z_lex.get(chunk_id, lowest[0]) + 0.5 * z_dense.get(chunk_id, lowest[1])
        assert score == pytest.approx(want, abs=1e-12), chunk_id
    # b is absent from dense: it takes the dense side's lowest, not its mean (0)
    assert fused["b"] < 0.5 * z_lex["b"]
    flat = _scores(fuse([_hit("a", 3.0), _hit("b", 3.0)], [], method="zscore"))
    assert flat == {"a": 0.0, "b": 0.0}


def test_by_document_every_chunk_scores_its_document() -> None:
    lexical = [_hit("d1::2", 4.0), _hit("d2::1", 2.0), _hit("d1::1", 1.0)]
    dense = [_hit("d2::1", 0.8), _hit("d1::1", 0.2)]
    fused = _scores(fuse(lexical, dense, method="minmax", documents=True))
    # d1's best lexical chunk is d1::2 (1.0), d2's 0.0; dense d2 1.0, d1 0.0
    assert fused == {"d1::2": 0.5, "d1::1": 0.5, "d2::1": 0.5}


_RANKING = st.lists(st.sampled_from([f"c{i}" for i in range(8)]), unique=True, max_size=6)


@given(_RANKING, _RANKING, st.sampled_from((60, 1, 0.5, 10.0)), st.booleans())
def test_rrf_at_half_weight_is_plain_rrf_to_the_bit(
    lexical: list[str], dense: list[str], k: float, documents: bool
) -> None:
    sides = [
        [_hit(f"d{c[-1]}::{c}", 1.0 / (i + 1)) for i, c in enumerate(ranking)]
        for ranking in (lexical, dense)
    ]
    plain = document_rank_fusion if documents else reciprocal_rank_fusion
    want = plain([s for s in sides if s], k=k)
    assert fuse(*sides, method="rrf", k=k, dense_weight=0.5, documents=documents) == want


@given(
    st.lists(st.floats(-5, 5), min_size=0, max_size=6),
    st.lists(st.floats(-5, 5), min_size=0, max_size=6),
    st.sampled_from(FUSIONS),
    st.sampled_from((0.0, 0.3, 0.5, 1.0)),
)
def test_every_method_ranks_each_candidate_once_by_score_then_id(
    lexical: list[float], dense: list[float], method: str, weight: float
) -> None:
    sides = [
        ranked(_hit(f"{side}{i}", score) for i, score in enumerate(scores))
        for side, scores in (("l", lexical), ("d", dense))
    ]
    fused = fuse(*sides, method=method, dense_weight=weight)
    assert sorted(s.chunk.chunk_id for s in fused) == sorted(
        s.chunk.chunk_id for side in sides for s in side
    )
    assert fused == ranked(fused)
    assert all(math.isfinite(s.score) for s in fused)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"fusion": "linear"}, "fusion must be one of rrf, minmax, zscore, got 'linear'"),
        ({"dense_weight": 1.5}, "dense_weight must be a number from 0 to 1, got 1.5"),
        ({"dense_weight": -0.1}, "dense_weight must be a number from 0 to 1"),
        ({"dense_weight": True}, "dense_weight must be a number from 0 to 1, got True"),
        ({"dense_weight": float("nan")}, "dense_weight must be a number from 0 to 1"),
    ],
)
def test_bad_fusion_knobs_are_refused_in_one_line(fields: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(")):
        ReferencePolicy(**fields)  # type: ignore[arg-type]
