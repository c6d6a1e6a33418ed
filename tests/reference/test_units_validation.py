"""Validation: every bad argument is an InvalidArgument naming the field and the value."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from ragward.errors import InvalidArgument
from ragward.reference import (
    BM25Params,
    Chunking,
    Claim,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    check_grounding,
    chunk_document,
)

# -- Validation: InvalidArgument naming the field and the bad value --------------------


def _document(**overrides: Any) -> ReferenceDoc:
    fields: dict[str, Any] = {"doc_id": "d", "tenant": "t", "title": "T", "text": "x"}
    fields.update(overrides)
    return ReferenceDoc(**fields)


def _principal(**overrides: Any) -> ReferenceAsker:
    fields: dict[str, Any] = {"user_id": "u", "tenant": "t"}
    fields.update(overrides)
    return ReferenceAsker(**fields)


def _chunking(**overrides: Any) -> object:
    return Chunking(**overrides)


def _chunk_document(**overrides: Any) -> object:
    fields: dict[str, Any] = {"max_tokens": 5, "overlap_tokens": 0}
    fields.update(overrides)
    return chunk_document(_document(), **fields)


def _policy(**overrides: Any) -> object:
    return ReferencePolicy(**overrides)


def _grounding(**overrides: Any) -> object:
    return check_grounding([Claim("x")], [], **overrides)


def _bm25(**overrides: Any) -> object:
    return BM25Params(**overrides)


NAN, INF = math.nan, math.inf

# (constructor, its keyword arguments, the field whose bad value the message must name)
BAD_VALUES: list[tuple[Callable[..., object], dict[str, Any], str]] = [
    (_document, {"doc_id": ""}, "doc_id"),
    (_document, {"doc_id": "  "}, "doc_id"),
    (_document, {"doc_id": 7}, "doc_id"),
    (_document, {"tenant": ""}, "tenant"),
    (_document, {"tenant": None}, "tenant"),
    (_document, {"title": None}, "title"),
    (_document, {"text": b"x"}, "text"),
    (_document, {"classification": "secret"}, "classification"),
    (_document, {"classification": "Public"}, "classification"),
    (_document, {"barrier": ""}, "barrier"),
    (_document, {"barrier": 3}, "barrier"),
    (_document, {"version": 0}, "version"),
    (_document, {"version": -2}, "version"),
    (_document, {"version": True}, "version"),
    (_document, {"version": "2"}, "version"),
    (_document, {"version": 1.0}, "version"),
    (_document, {"updated_tick": -1}, "updated_tick"),
    (_document, {"updated_tick": False}, "updated_tick"),
    (_document, {"updated_tick": 0.5}, "updated_tick"),
    (_document, {"updated_tick": 2**63}, "updated_tick"),
    (_document, {"version": 2**63}, "version"),
    (_principal, {"user_id": ""}, "user_id"),
    (_principal, {"tenant": ""}, "tenant"),
    (_principal, {"tenant": 1}, "tenant"),
    (_principal, {"max_classification": "top-secret"}, "max_classification"),
    (_principal, {"max_classification": None}, "max_classification"),
    (_principal, {"barriers": ["desk"]}, "barriers"),
    (_principal, {"barriers": "desk"}, "barriers"),
    (_chunking, {"max_tokens": 0}, "max_tokens"),
    (_chunking, {"max_tokens": -4, "overlap_tokens": 0}, "max_tokens"),
    (_chunking, {"max_tokens": True}, "max_tokens"),
    (_chunking, {"max_tokens": 9.5}, "max_tokens"),
    (_chunking, {"max_tokens": 8, "overlap_tokens": -1}, "overlap_tokens"),
    (_chunking, {"max_tokens": 8, "overlap_tokens": 8}, "overlap_tokens"),
    (_chunking, {"max_tokens": 8, "overlap_tokens": 9}, "overlap_tokens"),
    (_chunking, {"overlap_tokens": "1"}, "overlap_tokens"),
    (_chunk_document, {"max_tokens": 0}, "max_tokens"),
    (_chunk_document, {"max_tokens": -1}, "max_tokens"),
    (_chunk_document, {"overlap_tokens": 5}, "overlap_tokens"),
    (_chunk_document, {"overlap_tokens": 7}, "overlap_tokens"),
    (_chunk_document, {"overlap_tokens": -2}, "overlap_tokens"),
    (_policy, {"max_stale_ticks": -1}, "max_stale_ticks"),
    (_policy, {"max_stale_ticks": True}, "max_stale_ticks"),
    (_policy, {"max_stale_ticks": 2.5}, "max_stale_ticks"),
    (_policy, {"enable_rerank": 1}, "enable_rerank"),
    (_policy, {"enable_rerank": "yes"}, "enable_rerank"),
    (_policy, {"rerank_min_score": NAN}, "rerank_min_score"),
    (_policy, {"rerank_min_score": INF}, "rerank_min_score"),
    (_policy, {"rerank_min_score": True}, "rerank_min_score"),
    (_policy, {"rerank_min_score": "0"}, "rerank_min_score"),
    (_policy, {"candidate_limit": 0}, "candidate_limit"),
    (_policy, {"candidate_limit": -1}, "candidate_limit"),
    (_policy, {"candidate_limit": True}, "candidate_limit"),
    (_policy, {"candidate_limit": 2.5}, "candidate_limit"),
    (_policy, {"result_limit": 0}, "result_limit"),
    (_policy, {"result_limit": False}, "result_limit"),
    (_policy, {"result_limit": "5"}, "result_limit"),
    (_policy, {"rrf_k": 0}, "rrf_k"),
    (_policy, {"rrf_k": -5}, "rrf_k"),
    (_policy, {"rrf_k": NAN}, "rrf_k"),
    (_policy, {"rrf_k": INF}, "rrf_k"),
    (_policy, {"rrf_k": True}, "rrf_k"),
    (_policy, {"rrf_k": "60"}, "rrf_k"),
    (_policy, {"mode": "semantic"}, "mode"),
    (_policy, {"mode": ""}, "mode"),
    (_grounding, {"min_overlap": 0}, "min_overlap"),
    (_grounding, {"min_overlap": 0.0}, "min_overlap"),
    (_grounding, {"min_overlap": -0.5}, "min_overlap"),
    (_grounding, {"min_overlap": 1.5}, "min_overlap"),
    (_grounding, {"min_overlap": 1.0000001}, "min_overlap"),
    (_grounding, {"min_overlap": NAN}, "min_overlap"),
    (_grounding, {"min_overlap": True}, "min_overlap"),
    (_grounding, {"min_overlap": "0.5"}, "min_overlap"),
    (_bm25, {"k1": -1}, "k1"),
    (_bm25, {"k1": NAN}, "k1"),
    (_bm25, {"k1": INF}, "k1"),
    (_bm25, {"k1": "1.5"}, "k1"),
    (_bm25, {"b": -0.1}, "b"),
    (_bm25, {"b": 1.1}, "b"),
    (_bm25, {"b": NAN}, "b"),
    (_bm25, {"b": "0.5"}, "b"),
]


@pytest.mark.parametrize(
    ("build", "fields", "field"),
    [
        pytest.param(build, fields, field, id=f"{build.__name__[1:]}-{field}={fields[field]!r}")
        for build, fields, field in BAD_VALUES
    ],
)
def test_invalid_argument_names_field_and_value(
    build: Callable[..., object], fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidArgument) as info:
        build(**fields)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert field in message, message
    assert repr(fields[field]) in message, message


def test_invalid_barrier_member_names_the_member() -> None:
    with pytest.raises(InvalidArgument) as info:
        ReferenceAsker("u", "t", barriers=("desk", " "))
    assert "barriers" in str(info.value)
    assert "' '" in str(info.value)
    with pytest.raises(InvalidArgument) as info:
        _principal(barriers=("desk", 4))
    assert "barriers" in str(info.value)
    assert "4" in str(info.value)


def test_valid_boundaries_are_accepted() -> None:
    assert _document(version=1, updated_tick=0, classification="restricted").version == 1
    assert _principal(max_classification="public", barriers=("a", "b")).clearance == 0
    assert Chunking(max_tokens=1, overlap_tokens=0).max_tokens == 1
    assert ReferencePolicy(max_stale_ticks=0, rrf_k=0.5, rerank_min_score=-1.0).rrf_k == 0.5
    assert BM25Params(k1=0.0, b=0.0) == BM25Params(k1=0, b=0)
    assert BM25Params(b=1.0).b == 1.0
    assert not check_grounding([Claim("x")], [], min_overlap=1.0).is_grounded
    assert chunk_document(_document(text="a b"), max_tokens=1, overlap_tokens=0)
