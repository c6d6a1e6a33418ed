"""Determinism invariants: ties, ingestion order, repeated calls, result limits."""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise

from hypothesis import strategies as st

from ragward.conformance.answer_diff import asked, differ, number_pair
from ragward.conformance.contract import Capabilities, Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.processes import other_process
from ragward.conformance.records import Asker, Hit, Policy
from ragward.conformance.strategies import BARRIERS, LAST_TICK, Scene, scenes
from ragward.conformance.view import bare_too, build, prepare

__all__ = [
    "Shuffled",
    "another_process",
    "ingestion_order",
    "limit_cuts_prefix",
    "repeat_calls",
    "ties_by_chunk_id",
]


@dataclass(frozen=True)
class Shuffled:
    """A scene and another order to ingest its documents in."""

    scene: Scene
    order: tuple[int, ...]


def _shuffled() -> st.SearchStrategy[Shuffled]:
    return scenes().flatmap(
        lambda s: st.permutations(range(len(s.docs))).map(lambda p: Shuffled(s, tuple(p)))
    )


@invariant("DET-001", cases=lambda: scenes(twins=True), requires=("scores",))
def ties_by_chunk_id(factory: Factory, case: Scene) -> None:
    """Ties break by chunk_id; identical chunks score identically

    Hits come in ``(-score, chunk_id)`` order: scores never increase down the list and
    equal scores are in ascending ``chunk_id`` order. The corpus holds documents copied
    verbatim under other ``doc_id``\\ s; chunks with identical text come out in
    ``chunk_id`` order and, whenever the score is a function of the chunk and the query
    (a single-index mode, or rerank on), with identical scores — whatever their position
    in the index. Documents are ingested in descending ``doc_id`` order, so that a tie
    broken by arrival rather than by ``chunk_id`` shows; with wide limits, under the
    drawn policy and in each mode bare, the longest texts of the asker's tenant are asked
    too, where one document's chunks tie."""
    # Distinct keys: a stable descending sort keeps one document's versions in order.
    backwards = sorted(case.docs, key=lambda doc: doc.doc_id, reverse=True)
    system, caps, _, policy = prepare(factory, backwards, case.policy)
    result = system.retrieve(case.query, case.asker, case.now_tick, policy)
    _ties_in_order(
        result.hits, policy, caps, asked(case.query, case.asker, case.now_tick, policy, caps)
    )
    if caps.policy_knobs:
        # Wide limits too: a tie-break that only differs past the cut shows in the tail;
        # and the longest texts of the asker's tenant as queries, where many chunks of one
        # document tie (a document of identical sections: "r::2" against "r::10").
        # Each mode bare as well: in a single index identical chunks tie, where fusion
        # would have told them apart by the order the first stage put them in.
        mine = {d.text for d in case.docs if d.tenant == case.asker.tenant}
        longest = sorted(mine, key=lambda text: (-len(text), text))[:2]
        for each in bare_too(policy, caps):
            wide = replace(each, candidate_limit=60, result_limit=60)
            for query in dict.fromkeys([case.query, *longest]):
                hits = system.retrieve(query, case.asker, case.now_tick, wide).hits
                said = asked(query, case.asker, case.now_tick, wide, caps)
                _ties_in_order(hits, wide, caps, said)


def _ties_in_order(
    hits: tuple[Hit, ...], policy: Policy, caps: Capabilities, question: str
) -> None:
    """``hits`` in ``(-score, chunk_id)`` order, identical texts tied; a breach is said
    with the ranks and scores of the two hits, then ``question`` (who asked what, how)."""
    for rank, (a, b) in enumerate(pairwise(hits), start=1):
        if (-a.score, a.chunk_id) >= (-b.score, b.chunk_id):
            w = max(len(a.chunk_id), len(b.chunk_id))
            raise Violation(
                f"{a.chunk_id!r} is ranked before {b.chunk_id!r}: "
                f"score {number_pair(a.score, b.score)} down the list\n{question}\n"
                f"  {a.chunk_id:<{w}}  rank {rank}, score {a.score!r}\n"
                f"  {b.chunk_id:<{w}}  rank {rank + 1}, score {b.score!r}"
            )
    textual = policy.mode != "hybrid" or (caps.rerank_toggle and policy.rerank)
    first: dict[str, tuple[str, float, int]] = {}
    for rank, hit in enumerate(hits, start=1):
        if hit.text not in first:
            first[hit.text] = (hit.chunk_id, hit.score, rank)
            continue
        twin, score, at = first[hit.text]
        w = max(len(twin), len(hit.chunk_id))
        pair = (
            f"\n{question}\n  {twin:<{w}}  rank {at}, score {score!r}"
            f"\n  {hit.chunk_id:<{w}}  rank {rank}, score {hit.score!r}"
        )
        if textual and score != hit.score:
            raise Violation(
                f"identical chunks {twin!r} and {hit.chunk_id!r} scored "
                f"{number_pair(score, hit.score)}{pair}"
            )
        if hit.chunk_id < twin:
            raise Violation(
                f"identical chunks {twin!r} and {hit.chunk_id!r} out of id order "
                f"(ranks {at} and {rank}){pair}"
            )


@invariant("DET-002", cases=_shuffled)
def ingestion_order(factory: Factory, case: Shuffled) -> None:
    """Results do not depend on ingestion order

    The same documents ingested in another order give exactly the same answer: hits,
    scores and audit counts."""
    scene = case.scene
    if sorted(case.order) != list(range(len(scene.docs))):
        # not a case the kit draws: the minimiser may not take it (an order that leaves
        # a document out would compare a system holding it with one that does not)
        raise ValueError(f"order {list(case.order)} is not a permutation of the documents")
    system, caps, fitted, policy = prepare(factory, scene.docs, scene.policy)
    other = build(factory, [fitted[i] for i in case.order])
    question = (scene.query, scene.asker, scene.now_tick, policy)
    differ(
        f"answer after ingesting in order {list(case.order)}",
        asked(*question, caps),
        system.retrieve(*question),
        other.retrieve(*question),
        caps,
    )


@invariant("DET-003", cases=scenes)
def repeat_calls(factory: Factory, case: Scene) -> None:
    """Repeated calls give the same answer

    Asking the same question again — after principals of every tenant, with every
    clearance and barrier, have asked it and other questions, and of a second instance
    built the same way —
    gives exactly the same answer: no cache, counter or state leaks between calls."""
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    question = (case.query, case.asker, case.now_tick, policy)
    want = system.retrieve(*question)
    for tenant in sorted({d.tenant for d in fitted} | {case.asker.tenant}):
        noise = Asker("kit-noise", tenant, "restricted", BARRIERS)
        later = min(case.now_tick + 3, LAST_TICK)  # no tick comes after the last int64
        for query in (case.query, case.query + " wire"):
            system.retrieve(query, noise, later, replace(policy, max_stale_ticks=None))
        system.retrieve("ledger", case.asker, case.now_tick, policy)
    said = asked(*question, caps)
    again = system.retrieve(*question)
    differ("answer to the same question asked again", said, want, again, caps)
    twin = build(factory, fitted)
    differ("answer of a second instance built alike", said, want, twin.retrieve(*question), caps)


@invariant("DET-004", cases=lambda: scenes(twins=True), requires=("policy_knobs",))
def limit_cuts_prefix(factory: Factory, case: Scene) -> None:
    """A smaller result limit cuts a prefix

    The hits under ``result_limit = n`` are exactly the first ``n`` hits (fewer only if
    there are fewer) under a larger limit, with the same scores: a cut through a tie of
    identical chunks keeps the smallest ``chunk_id``\\ s."""
    system, caps, _, policy = prepare(factory, case.docs, case.policy)
    small = system.retrieve(case.query, case.asker, case.now_tick, policy)
    wide = replace(policy, result_limit=max(50, policy.result_limit))
    large = system.retrieve(case.query, case.asker, case.now_tick, wide)
    n = policy.result_limit
    differ(
        f"hits under result_limit={n} vs the first {n} under 50",
        asked(case.query, case.asker, case.now_tick, policy, caps),
        replace(large, hits=large.hits[:n]),
        small,
        caps,
        counts=False,
    )


@invariant("DET-005", cases=lambda: scenes(twins=True), requires=("another_process",))
def another_process(factory: Factory, case: Scene) -> None:
    """Another process under another hash seed gives the same answer, bit for bit

    The same documents ingested in the same order into a system of a *second process*
    started with another ``PYTHONHASHSEED`` (the factory imported there by name, or the
    peer started again) give exactly the same answer: hits, scores to the last bit, and
    audit counts. Iterating a set of query terms, or any dict of strings whose order
    follows the hash seed, rounds float sums differently and breaks ties differently from
    one process to the next, which no check inside one process can see."""
    other = other_process(factory)
    if other is None:
        raise Violation("the factory cannot be started in another process")
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    remote = build(other, fitted)
    # Whole texts as queries too: many terms summed in one row is where order shows.
    mine = [d.text for d in fitted if d.tenant == case.asker.tenant][:2]
    # Bare BM25 scores too, where the adapter offers them: fusion and rerank hide sums.
    asks = bare_too(policy, caps, ("lexical",))
    for query in dict.fromkeys([case.query, *mine]):
        for each in asks:
            question = (query, case.asker, case.now_tick, each)
            differ(
                "answer of a system in another process (another hash seed)",
                asked(*question, caps),
                system.retrieve(*question),
                remote.retrieve(*question),
                caps,
            )
