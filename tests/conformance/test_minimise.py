"""The minimiser after hypothesis' shrink: generic over the kit's records, counted in
steps, and the same case under any load."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import REGISTRY, Violation
from ragward.conformance.minimise import MINIMISE_STEPS, minimise
from ragward.conformance.records import Asker, Doc, Policy, Result, from_data
from ragward.conformance.report import verdict_data
from ragward.conformance.runner import minimise_verdict, replay, run_invariant
from ragward.engines.reference import ReferenceSystem, reference_factory
from tests.conformance.broken import BROKEN


@dataclass(frozen=True)
class _Case:
    docs: tuple[Doc, ...]
    marks: tuple[int, ...]
    query: str
    tick: int
    barrier: str | None = None
    rrf_k: float = 60


_CASE = _Case(
    docs=tuple(Doc("acme", f"d{i}", f"the payment {i} is held today") for i in range(8)),
    marks=tuple(range(10, 18)),
    query="payment held",
    tick=977,
    barrier="deal",
    rrf_k=61.5,
)


def _keeps(case: _Case) -> bool:
    """Fails while a document with mark 13 is there, its text sharing a word with the
    query (docs and marks must stay paired: strict zip)."""
    pairs = list(zip(case.docs, case.marks, strict=True))
    return any(
        mark == 13 and set(doc.text.split()) & set(case.query.split()) for doc, mark in pairs
    )


def _strict(case: _Case) -> bool:
    try:
        return _keeps(case)
    except ValueError:  # a candidate the check refuses: not taken
        return False


def test_it_cuts_pairs_words_and_numbers_to_a_fixed_point() -> None:
    found = minimise(_CASE, _strict, cap=1_000)
    assert found.complete
    (doc,) = found.case.docs
    assert found.case.marks == (13,)
    assert doc.doc_id == "d3"
    # one word of the text and of the query, the same word, renamed short everywhere
    assert doc.text == found.case.query
    assert len(doc.text) == 1
    assert found.case.tick == 0
    assert found.case.barrier is None
    assert found.case.rrf_k == 60  # its default, rather than a smaller number
    assert minimise(_CASE, _strict, cap=1_000) == found  # no clock, no randomness


@dataclass(frozen=True)
class _Ticks:
    updated: int
    now: int
    limit: int


_LAST = 2**63 - 1


def test_a_failure_that_needs_a_large_number_reaches_a_fixed_point() -> None:
    """A tick at the end of int64 is kept as drawn, not lowered one by one until the cap;
    a small number still goes down by one."""

    def keeps(case: _Ticks) -> bool:
        return case.updated > _LAST - 40 and case.now == _LAST and case.limit >= 3

    found = minimise(_Ticks(_LAST - 1, _LAST, 11), keeps, cap=400)
    assert found.complete
    assert found.steps < 60  # before: the cap, the tick lowered one by one
    assert found.case == _Ticks(_LAST - 1, _LAST, 3)


def test_a_cap_ends_it_at_so_many_steps() -> None:
    found = minimise(_CASE, _strict, cap=5)
    assert (found.steps, found.complete) == (5, False)
    assert _keeps(found.case)
    assert len(found.case.docs) < len(_CASE.docs)  # the first cuts were kept


# A defect whose counterexample hypothesis leaves with many documents (9 at ci).
_PLANT, _ID = "namespace-statistics", "STAT-001"


def _minimised_case() -> str:
    verdict = run_invariant(REGISTRY[_ID], BROKEN[_PLANT][0], baseline=reference_factory)
    assert verdict.status == "fail", verdict.reason
    assert verdict.minimised is not None
    steps, complete = verdict.minimised
    assert complete
    assert 0 < steps < MINIMISE_STEPS["ci"]
    assert "budget" not in verdict.reason
    data = verdict_data(verdict)
    assert data["minimised"] == {"steps": steps, "complete": True}
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def _documents(value: object) -> int:
    if isinstance(value, dict):
        own = 1 if {"tenant", "doc_id", "text"} <= value.keys() else 0
        return own + sum(_documents(v) for v in value.values())
    if isinstance(value, list):
        return sum(_documents(v) for v in value)
    return 0


def _spin() -> None:
    while True:
        pass


@contextmanager
def _busy_cpu(workers: int) -> Iterator[None]:
    spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(workers)]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()


@pytest.fixture(scope="module")
def quiet_run() -> str:
    return _minimised_case()


def test_a_planted_defect_minimises_to_at_most_two_documents(quiet_run: str) -> None:
    entry = json.loads(quiet_run)
    case = entry["counterexample"]
    assert _documents(case) <= 2, case
    # still a finding: it fails on the plant and holds on the reference
    with pytest.raises(Violation):
        replay(BROKEN[_PLANT][0], _ID, case)
    replay(reference_factory, _ID, case)
    assert from_data(REGISTRY[_ID].case_type, case) is not None


def test_the_same_counterexample_under_a_busy_cpu(quiet_run: str) -> None:
    with _busy_cpu(3):
        loaded = _minimised_case()
    assert loaded == quiet_run


def test_a_stored_case_is_minimised_again_as_a_fresh_one_would_be() -> None:
    """``minimise_verdict``: a case kept unshrunk (an older kit's, a pinned finding's) gets
    as small as a fresh run's, and is still a finding."""
    plant = BROKEN[_PLANT][0]
    raw = run_invariant(REGISTRY[_ID], plant, shrink=False)
    assert raw.status == "fail"
    assert raw.minimised is None
    again = minimise_verdict(raw, plant, baseline=reference_factory)
    assert again.minimised is not None
    assert again.minimised[1]
    assert _documents(again.counterexample) <= 2 < _documents(raw.counterexample)
    with pytest.raises(Violation):
        replay(plant, _ID, again.counterexample)
    replay(reference_factory, _ID, again.counterexample)
    passing = run_invariant(REGISTRY[_ID], reference_factory)
    assert minimise_verdict(passing, reference_factory) == passing


def test_an_ingestion_order_that_is_no_permutation_is_refused_not_a_finding() -> None:
    """DET-002 compares two systems holding the same documents; an order the minimiser
    cut short (one document, order []) would compare a system holding it with an empty
    one, which an engine whose dense search answers any query fails. The check refuses
    it as invalid (not a Violation), so the minimiser never takes it."""
    case = {
        "order": [],
        "scene": {
            "asker": {"tenant": "acme", "user_id": "u1"},
            "docs": [{"doc_id": "d2", "tenant": "acme", "text": "q"}],
            "now_tick": 0,
            "policy": {},
            "query": "q",
        },
    }
    with pytest.raises(ValueError, match=r"order \[\] is not a permutation"):
        replay(reference_factory, "DET-002", case)
    replay(reference_factory, "DET-002", {**case, "order": [0]})  # the same, whole: holds
    verdict = run_invariant(REGISTRY["DET-002"], _FirstIngestedFirst, baseline=reference_factory)
    assert verdict.status == "fail", verdict.reason
    found = verdict.counterexample  # the minimised case, as stored
    assert sorted(found["order"]) == list(range(len(found["scene"]["docs"]))), found


class _FirstIngestedFirst(ReferenceSystem):
    """Puts the hits of the document ingested first at the top: ingestion order shows."""

    def __init__(self) -> None:
        super().__init__()
        self.first: tuple[str, str] | None = None

    def ingest(self, doc: Doc) -> bool:
        self.first = self.first or (doc.tenant, doc.doc_id)
        return super().ingest(doc)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        result = super().retrieve(query, asker, now_tick, policy)
        hits = sorted(result.hits, key=lambda h: (asker.tenant, h.doc_id) != self.first)
        return replace(result, hits=tuple(hits))
