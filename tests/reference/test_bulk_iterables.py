"""Bulk verbs take any iterable and read it once: a generator gives what a list gives.

``ingest_many`` used to walk its documents twice (a check, then the work), so a generator
stored nothing and answered ``()``; ``retrieve_many`` and ``first_stages`` took their
questions' length, which a generator has not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines.reference import ReferenceSystem
from ragward.reference import AuthorizedRetriever, ReferenceAsker, ReferenceDoc, ReferencePolicy

T = TypeVar("T")

DOCS = [
    ReferenceDoc("d1", "acme", "", "payment held for dual control", version=2),
    ReferenceDoc("d1", "acme", "", "payment older", version=1),  # refused: not newer
    ReferenceDoc("d2", "acme", "", "ledger payment released"),
    ReferenceDoc("d1", "globex", "", "payment elsewhere"),
    ReferenceDoc("d2", "acme", "", "ledger payment released twice", version=3),  # replaces v1
]
ALICE = ReferenceAsker("alice", "acme")
QUESTIONS = ["payment", "ledger released", "nothing at all"]


def once(items: Iterable[T]) -> Iterator[T]:
    """``items`` as a generator: a second pass over it sees nothing."""
    yield from items


def _answers(retriever: AuthorizedRetriever) -> list[list[tuple[str, int, float]]]:
    return [
        [(s.chunk.chunk_id, s.chunk.doc_version, s.score) for s in result.chunks]
        for result in (retriever.retrieve(q, ALICE) for q in QUESTIONS)
    ]


def test_ingest_many_reads_a_generator_once() -> None:
    listed, generated = AuthorizedRetriever(), AuthorizedRetriever()
    done = listed.ingest_many(DOCS)
    assert generated.ingest_many(once(DOCS)) == done
    assert [chunks is not None for chunks in done] == [True, False, True, True, True]
    assert _answers(generated) == _answers(listed)
    assert _answers(listed)[0]  # the question finds something: the comparison means it


def test_retrieve_many_and_first_stages_take_a_generator() -> None:
    retriever = AuthorizedRetriever()
    retriever.ingest_many(DOCS)
    policy = ReferencePolicy()
    listed = retriever.retrieve_many(QUESTIONS, ALICE, policy=policy)
    generated = retriever.retrieve_many(once(QUESTIONS), ALICE, policy=policy)
    assert [[s.chunk.chunk_id for s in r.chunks] for r in generated] == [
        [s.chunk.chunk_id for s in r.chunks] for r in listed
    ]
    assert retriever.first_stages(once(QUESTIONS), ALICE) == retriever.first_stages(
        QUESTIONS, ALICE
    )


def test_the_adapters_bulk_verbs_take_a_generator() -> None:
    docs = [
        Doc(d.tenant, d.doc_id, d.text, d.title, d.classification, d.barrier, d.version)
        for d in DOCS
    ]
    listed, generated = ReferenceSystem(), ReferenceSystem()
    accepted = listed.ingest_many(docs)
    assert generated.ingest_many(once(docs)) == accepted == (True, False, True, True, True)
    asker, policy = Asker("alice", "acme"), Policy()
    assert [generated.retrieve(q, asker, 0, policy) for q in QUESTIONS] == [
        listed.retrieve(q, asker, 0, policy) for q in QUESTIONS
    ]
    assert generated.first_stages(once(QUESTIONS), asker, 0, policy) == listed.first_stages(
        QUESTIONS, asker, 0, policy
    )
    stage = listed.first_stage("payment", asker, 0, policy)
    policies = [policy, Policy(mode="lexical", result_limit=1)]
    assert listed.finish_listings(stage, once(policies), 3) == listed.finish_listings(
        stage, policies, 3
    )
    hits = listed.retrieve("payment", asker, 0, policy).hits
    claims, thresholds = ("payment held", "nothing here"), [0.1, 0.5, 0.9]
    swept = listed.ground_sweep(claims, hits, thresholds)
    assert listed.ground_sweep(claims, hits, once(thresholds)) == swept
    assert len(swept) == 3
    assert swept[0][0].supported
