"""The degraded implementations: each fault does what it says, and nothing else."""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from ragward.bench.degraded import (
    NOISY_DEPTH,
    Degraded,
    Fault,
    LostLexical,
    RankNoise,
    ReversedTop,
    SharedIndexes,
    StaleIndex,
    degraded_factory,
    halved_factory,
)
from ragward.bench.power_grids import SHAPES, power_grid
from ragward.conformance.records import Asker, Doc, Policy
from ragward.datasets import bundled
from ragward.engines.reference import reference_factory
from ragward.errors import InvalidArgument
from ragward.evals.datasets import load_dataset
from ragward.evals.grid_file import default_grid
from ragward.evals.runner import GridOutcome, run_grid

KEYS = [(f"c{i}", f"d{i}", 1) for i in range(12)]


def test_reversed_top_reverses_the_first_ten_only() -> None:
    assert ReversedTop().order(KEYS) == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    assert ReversedTop().order(KEYS[:3]) == [2, 1, 0]


def test_rank_noise_is_a_seeded_permutation_of_the_top() -> None:
    for strength in (0.5, 2.0, math.inf):
        places = RankNoise(strength, seed=7).order(KEYS)
        assert places is not None
        assert sorted(places) == list(range(NOISY_DEPTH))
        assert places == RankNoise(strength, seed=7).order(KEYS)  # the same draw
    assert RankNoise(0.0).order(KEYS) == list(range(NOISY_DEPTH))  # no noise, no change
    draws = {tuple(RankNoise(4.0, seed=s).order(KEYS) or ()) for s in range(10)}
    assert len(draws) > 5  # seeds give different draws


def test_lost_lexical_asks_dense_for_hybrid_only() -> None:
    hybrid = Policy(mode="hybrid", rrf_k=30)
    assert LostLexical().policy(hybrid) == replace(hybrid, mode="dense")
    assert LostLexical().policy(Policy(mode="lexical")) == Policy(mode="lexical")


def test_stale_index_drops_or_freezes_its_share() -> None:
    doc = Doc("t", "d1", "text")
    assert not StaleIndex(missing=1.0).keeps(doc, first=True)
    assert StaleIndex(frozen=1.0).keeps(doc, first=True)
    assert not StaleIndex(frozen=1.0).keeps(replace(doc, version=2), first=False)
    docs = [Doc("t", f"d{i}", "text") for i in range(2000)]
    kept = sum(StaleIndex(missing=0.3, seed=1).keeps(d, first=True) for d in docs)
    assert 1300 < kept < 1500  # about 70% kept


def test_a_degraded_system_acknowledges_what_it_loses() -> None:
    system = degraded_factory(StaleIndex(missing=1.0))()
    docs = [Doc("t", f"d{i}", f"alpha beta {i}") for i in range(3)]
    assert system.ingest_many(docs) == (True, True, True)
    assert system.ingest(Doc("t", "d9", "alpha")) is True
    assert system.retrieve("alpha", Asker("u", "t"), 0, Policy(mode="lexical")).hits == ()


def _run(factory: Callable[..., Any], reuse: bool) -> GridOutcome:
    grid = power_grid("t", default_grid().indexes, SHAPES[1])
    dataset = load_dataset(bundled())
    return run_grid(dataset, grid, factory, splits=("test",), reuse=reuse, stream=io.StringIO())


@pytest.mark.parametrize(
    "fault", [RankNoise(2.0, seed=3), ReversedTop(), LostLexical(), StaleIndex(0.2, 0.5)]
)
def test_staged_answers_equal_retrieve_answers(fault: Fault) -> None:
    """The harness checks three questions before it reuses first stages; every one is
    checked here, under every setting of a grid."""
    staged = _run(degraded_factory(fault), reuse=True)
    direct = _run(degraded_factory(fault), reuse=False)
    assert staged.staged
    assert not direct.staged
    assert {s: {q: a.ranking for q, a in by.items()} for s, by in staged.answers.items()} == {
        s: {q: a.ranking for q, a in by.items()} for s, by in direct.answers.items()
    }
    assert staged.verdicts == direct.verdicts


def test_only_the_fault_changes_the_answers() -> None:
    reference = _run(reference_factory, reuse=True)
    lost = _run(degraded_factory(LostLexical()), reuse=True)
    halved = _run(halved_factory, reuse=True)
    for setting, answers in reference.answers.items():
        same = all(lost.answers[setting][q].ranking == a.ranking for q, a in answers.items())
        assert same is ("/hybrid/" not in setting)
        reordered = 0
        for question, answer in answers.items():
            after = halved.answers[setting][question].ranking
            assert sorted(after) == sorted(answer.ranking)  # the same documents
            reordered += after != answer.ranking
        assert reordered > len(answers) / 2
    assert isinstance(halved_factory(), Degraded)


def test_shared_indexes_answer_as_fresh_ones_and_are_built_once() -> None:
    shared = SharedIndexes()
    for seed in (1, 2):
        fault = RankNoise(2.0, seed=seed)
        lent = _run(shared.factory(fault), reuse=True)
        fresh = _run(degraded_factory(fault), reuse=True)
        assert lent.answers == fresh.answers
        assert lent.verdicts == fresh.verdicts
    # the grid builds one system per index, with the reranker it names
    index = {"max_tokens": 96, "overlap_tokens": 16, "embedder": "hash-96"}
    first = shared.factory(ReversedTop())(**index, reranker="lexical-overlap")
    again = shared.factory(LostLexical())(**index, reranker="lexical-overlap")
    assert first.inner is again.inner  # one index for every fault and seed
    assert len(first.held) == len(load_dataset(bundled()).docs)  # every version, once
    assert first.lent is not None
    assert len(first.lent.stages) > 100  # the stages of the questions, taken once
    assert len(first.lent.listings) > 100  # and their listings
    docs = load_dataset(bundled()).docs[:3]
    assert first.ingest_many(docs) == (True, True, True)  # held already: acknowledged


def test_a_fault_that_changes_the_index_gets_no_shared_one() -> None:
    with pytest.raises(InvalidArgument, match="changes what is indexed"):
        SharedIndexes().factory(StaleIndex(missing=0.1))
