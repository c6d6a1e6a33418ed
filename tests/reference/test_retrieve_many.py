"""``retrieve_many`` answers questions exactly as ``retrieve`` answers each.

The batched verb takes the checks, the lock and the asker's view once; nothing else may
differ. Drawn corpora, principals and policies (every mode, both limit units), several
questions at once, and an embedder that fails on some of them (only those answers are
degraded, as one by one).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import InvalidArgument
from ragward.reference import AuthorizedRetriever, ReferenceAsker, RetrievalResult

from .retrieval_model import FaultyEmbedder
from .strategies import Scenario, queries, scenarios
from .test_dense_rounding import GaussianTokenEmbedder


def _key(result: RetrievalResult) -> tuple[object, ...]:
    return (
        [(s.chunk.chunk_id, s.score) for s in result.chunks],
        result.degraded,
        result.considered,
        result.excluded_by_entitlement,
        result.excluded_by_freshness,
    )


def _assert_batch_answers_as_one_by_one(
    retriever: AuthorizedRetriever, scenario: Scenario, asked: list[str]
) -> None:
    """``retrieve_many(asked)`` is ``retrieve`` of each, under the scenario's policy in both
    limit units."""
    for policy in (scenario.policy, replace(scenario.policy, limit_unit="documents")):
        one_by_one = [
            retriever.retrieve(q, scenario.principal, now_tick=scenario.now_tick, policy=policy)
            for q in asked
        ]
        batch = retriever.retrieve_many(  # a generator: bulk verbs read any iterable once
            (q for q in asked), scenario.principal, now_tick=scenario.now_tick, policy=policy
        )
        assert [_key(r) for r in batch] == [_key(r) for r in one_by_one]


@given(scenarios(), st.data(), st.sampled_from(("none", "raise", "nan")))
def test_a_batch_answers_as_one_by_one(scenario: Scenario, data: st.DataObject, fault: str) -> None:
    retriever = AuthorizedRetriever(chunking=scenario.chunking, embedder=FaultyEmbedder(fault))
    for document in scenario.corpus:
        retriever.ingest(document)  # no document here holds the word that poisons
    asked = [scenario.query, *data.draw(st.lists(queries(scenario.corpus), max_size=5))]
    if fault != "none":
        asked.insert(data.draw(st.integers(0, len(asked))), "poison " + scenario.query)
    _assert_batch_answers_as_one_by_one(retriever, scenario, asked)


def test_a_batch_checks_every_question_before_answering() -> None:
    retriever = AuthorizedRetriever()
    with pytest.raises(InvalidArgument, match="query must be a string"):
        retriever.retrieve_many(["fine", 3], ReferenceAsker("u", "t"))  # type: ignore[list-item]
    assert retriever.retrieve_many([], ReferenceAsker("u", "t")) == []


@given(scenarios(), st.data())
def test_a_lexical_answer_without_rerank_is_its_first_stage_finished(
    scenario: Scenario, data: st.DataObject
) -> None:
    # retrieve answers a lexical policy without rerank without making a first stage; it
    # must answer exactly as the first stage finished does, in every view (cold and warm,
    # with rows outside the asker's view holding query terms, with deleted rows).
    retriever = AuthorizedRetriever(chunking=scenario.chunking)
    for document in scenario.corpus:
        retriever.ingest(document)
    delete = data.draw(st.booleans(), label="delete one")
    if delete and scenario.corpus:
        gone = data.draw(st.sampled_from(scenario.corpus), label="deleted")
        retriever.delete(gone.tenant, gone.doc_id)
    lexical = replace(scenario.policy, mode="lexical", enable_rerank=False)
    asked = [scenario.query, *data.draw(st.lists(queries(scenario.corpus), max_size=3))]
    for policy in (lexical, replace(lexical, limit_unit="documents")):
        for query in asked * 2:  # the second time, from the view's caches
            staged = retriever.finish(
                retriever.first_stage(
                    query, scenario.principal, now_tick=scenario.now_tick, policy=policy
                ),
                policy,
            )
            direct = retriever.retrieve(
                query, scenario.principal, now_tick=scenario.now_tick, policy=policy
            )
            assert _key(direct) == _key(staged)


@given(scenarios(), st.data())
def test_a_batch_of_float_vectors_answers_as_one_by_one(
    scenario: Scenario, data: st.DataObject
) -> None:
    # Vectors that are not small integers: the batch's one matrix product rounds each
    # question's dot products its own way, and what ranks must still be settled exactly.
    retriever = AuthorizedRetriever(chunking=scenario.chunking, embedder=GaussianTokenEmbedder())
    for document in scenario.corpus:
        retriever.ingest(document)
    asked = [scenario.query, *data.draw(st.lists(queries(scenario.corpus), max_size=5))]
    asked.append(scenario.query)  # the same question twice in one product
    _assert_batch_answers_as_one_by_one(retriever, scenario, asked)
