"""Hand-worked expectations for every ranking measure, measure-name parsing and run scoring.

The arithmetic is written out; ``test_trec_differential.py`` checks the same semantics
against ``pytrec_eval`` on random data.
"""

from __future__ import annotations

import math

import pytest

from ragward.errors import InputError, InvalidArgument
from ragward.evals.measures import (
    FAMILIES,
    Measure,
    evaluate_ranking,
    evaluate_run,
    parse_measure,
    parse_measures,
)

# grades 2 and 1 retrieved at ranks 1 and 3, a third relevant document never retrieved
QRELS = {"a": 2, "b": 1, "c": 1, "n": 0}
RANKING = ["a", "x", "b", "n"]


def values(names: list[str], qrels: dict[str, int], ranking: list[str]) -> dict[str, float]:
    return evaluate_ranking(parse_measures(names), qrels, ranking)


def test_counts() -> None:
    got = values(["num_ret", "num_rel", "num_rel_ret"], QRELS, RANKING)
    assert got == {"num_ret": 4.0, "num_rel": 3.0, "num_rel_ret": 2.0}


def test_precision_divides_by_k_even_past_the_end() -> None:
    got = values(["P_1", "P_3", "P_10"], QRELS, RANKING)
    assert got == {"P_1": 1 / 1, "P_3": 2 / 3, "P_10": 2 / 10}


def test_recall_is_over_all_judged_relevant() -> None:
    got = values(["recall_1", "recall_3", "recall_100"], QRELS, RANKING)
    assert got == {"recall_1": 1 / 3, "recall_3": 2 / 3, "recall_100": 2 / 3}


def test_reciprocal_rank_with_and_without_cutoff() -> None:
    ranking = ["x", "n", "b", "a"]  # first relevant at rank 3
    got = values(["recip_rank", "recip_rank_cut_2", "recip_rank_cut_3"], QRELS, ranking)
    assert got == {"recip_rank": 1 / 3, "recip_rank_cut_2": 0.0, "recip_rank_cut_3": 1 / 3}


def test_success() -> None:
    got = values(["success_1", "success_2"], QRELS, ["x", "b"])
    assert got == {"success_1": 0.0, "success_2": 1.0}


def test_average_precision() -> None:
    # relevant at ranks 1 and 3: precisions 1/1 and 2/3, over the 3 relevant judged
    assert values(["map"], QRELS, RANKING)["map"] == pytest.approx((1 / 1 + 2 / 3) / 3)


def test_ndcg_gain_is_the_grade_and_discount_log2_rank_plus_one() -> None:
    dcg = 2 / math.log2(2) + 1 / math.log2(4)  # grade 2 at rank 1, grade 1 at rank 3
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # grades 2, 1, 1
    got = values(["ndcg"], QRELS, RANKING)["ndcg"]
    assert got == pytest.approx(dcg / ideal)
    exponential = (3 / 1 + 1 / 2) / (3 / 1 + 1 / math.log2(3) + 1 / 2)  # 2**g - 1: not it
    assert got != pytest.approx(exponential)


def test_ndcg_cut_cuts_the_ideal_too() -> None:
    # @2: dcg = 2/1 (the grade-1 document at rank 3 is past the cut); ideal = 2/1 + 1/log2(3)
    got = values(["ndcg_cut_2", "ndcg_cut_1"], QRELS, RANKING)
    assert got["ndcg_cut_2"] == pytest.approx(2 / (2 + 1 / math.log2(3)))
    assert got["ndcg_cut_1"] == 1.0
    # grade 1 first, grade 2 second: @1 the ideal is the grade-2 document alone
    assert values(["ndcg_cut_1"], QRELS, ["b", "a"])["ndcg_cut_1"] == 1 / 2


def test_unjudged_and_negative_grades_are_non_relevant_without_gain() -> None:
    qrels = {"a": 1, "neg": -1}
    got = values(["num_rel", "P_2", "ndcg", "recip_rank"], qrels, ["neg", "u", "a"])
    assert got == {
        "num_rel": 1.0,
        "P_2": 0.0,
        "ndcg": pytest.approx(1 / math.log2(4)),  # not lowered by the -1
        "recip_rank": 1 / 3,
    }


def test_query_without_relevant_documents_scores_zero() -> None:
    names = ["num_rel", "map", "recip_rank", "P_5", "recall_5", "ndcg", "ndcg_cut_5"]
    got = values(names, {"n": 0, "m": -1}, ["n", "m", "x"])
    assert got == dict.fromkeys(names, 0.0)


def test_empty_ranking_is_trec_eval_c_for_a_missing_query() -> None:
    got = values(["num_ret", "num_rel", "P_5", "map", "ndcg"], QRELS, [])
    assert got == {"num_ret": 0.0, "num_rel": 3.0, "P_5": 0.0, "map": 0.0, "ndcg": 0.0}


def test_a_repeated_document_is_refused_like_trec_eval() -> None:
    with pytest.raises(InvalidArgument, match="repeats document 'a'"):
        values(["P_5"], QRELS, ["a", "x", "a"])


def test_parse_names_with_a_cutoff() -> None:
    assert parse_measure("P_7") == (Measure("P", 7),)
    assert parse_measure("ndcg_cut.10,5") == (Measure("ndcg_cut", 5), Measure("ndcg_cut", 10))
    assert parse_measure("recip_rank_cut_10")[0].name == "recip_rank_cut_10"
    assert parse_measure("num_rel_ret") == (Measure("num_rel_ret"),)


def test_bare_names_use_trec_eval_defaults() -> None:
    cuts = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    for family in ("P", "recall", "ndcg_cut"):
        assert tuple(m.cutoff for m in parse_measure(family)) == cuts
    assert tuple(m.cutoff for m in parse_measure("success")) == (1, 5, 10)


def test_parse_measures_keeps_order_and_drops_repeats() -> None:
    got = parse_measures(["P_10", "map", "P.5,10"])
    assert [m.name for m in got] == ["P_10", "map", "P_5"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("foo", "unknown measure 'foo'; supported: num_ret"),
        ("ndcg_10", "did you mean 'ndcg_cut_10'"),
        ("recip_rank_5", "did you mean 'recip_rank_cut_5'"),
        ("map_5", "unknown measure 'map_5'"),
        ("map.5", "'map' takes no cutoff"),
        ("P_0", "cutoff '0' is not a positive integer"),
        ("P_05", "cutoff '05' is not a positive integer"),
        ("P_", "cutoff '' is not a positive integer"),
        ("P.5,x", "cutoff 'x' is not a positive integer"),
    ],
)
def test_bad_names_say_what_is_supported(name: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_measure(name)


def test_measure_records_are_validated() -> None:
    with pytest.raises(InvalidArgument):
        Measure("P")
    with pytest.raises(InvalidArgument):
        Measure("map", 5)
    with pytest.raises(InvalidArgument):
        Measure("nope")
    assert all(f.counts == f.name.startswith("num_") for f in FAMILIES.values())


def test_run_scoring_follows_trec_eval_rules() -> None:
    qrels = {"q2": {"a": 1}, "q1": {"a": 1, "b": 1}, "q3": {"z": 1}}
    rankings = {"q1": ["a", "x"], "q2": ["x", "a"], "only-in-run": ["a"]}
    measures = parse_measures(["P_1", "num_ret", "num_rel"])
    scores = evaluate_run(measures, qrels, rankings)
    assert list(scores.per_query) == ["q1", "q2"]  # sorted; q3 skipped, run-only ignored
    assert scores.num_q == 2
    assert scores.summary == {"P_1": (1 + 0) / 2, "num_ret": 2 + 2, "num_rel": 2 + 1}

    complete = evaluate_run(measures, qrels, rankings, complete=True)
    assert list(complete.per_query) == ["q1", "q2", "q3"]
    assert complete.per_query["q3"] == {"P_1": 0.0, "num_ret": 0.0, "num_rel": 1.0}
    assert complete.summary == {"P_1": (1 + 0 + 0) / 3, "num_ret": 4, "num_rel": 4}


def test_mean_uses_exact_summation() -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(10)}
    rankings = {f"q{i}": ["a"] if i == 0 else ["x", "y", "a"] for i in range(10)}
    scores = evaluate_run(parse_measures(["recip_rank"]), qrels, rankings)
    assert scores.summary["recip_rank"] == math.fsum([1.0] + [1 / 3] * 9) / 10


def test_no_scored_query_means_zero() -> None:
    scores = evaluate_run(parse_measures(["P_5"]), {"q": {"a": 1}}, {"other": ["a"]})
    assert (scores.num_q, scores.summary) == (0, {"P_5": 0.0})
