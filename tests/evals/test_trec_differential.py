"""Differential tests: every measure, per query, against ``pytrec_eval`` (trec_eval's C code).

Random qrels and runs carry score ties (scores drawn from a few values, so the tie rule
decides the order), judged queries missing from the run, run-only queries, queries with
only non-relevant judgements, grades 0..3 and some -1. Two limits of the reference shape
the data: ``pytrec_eval`` cannot hold a repeated document (a run is a dict), and a query
whose grades are *all* negative is undefined behaviour in ``trec_eval``'s
``form_res_rels.c`` (``pytrec_eval`` crashes on grades of -2), so every judged query
keeps one grade of 0 or more. ``pytrec_eval`` has no ``-c``: the expected ``-c`` mean adds
each missing query with trec_eval's empty-run values (0, but ``num_rel`` from the qrels).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given
from hypothesis import strategies as st

from ragward.cli.metrics import main
from ragward.evals.measures import evaluate_run, evaluate_scores, parse_measures
from ragward.evals.trec import rank_run, read_run, write_qrels, write_scored_run

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

CUTS = (1, 2, 3, 5, 10, 20)
NAMES = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "recip_rank",
    "ndcg",
    *(f"{family}_{k}" for family in ("P", "recall", "ndcg_cut", "success") for k in CUTS),
]
MEASURES = parse_measures(NAMES)
COUNTS = {m.name for m in MEASURES if m.counts}


def reference(qrels: Qrels, run: Run) -> dict[str, dict[str, float]]:
    result: dict[str, dict[str, float]] = pytrec_eval.RelevanceEvaluator(qrels, NAMES).evaluate(
        {qid: docs for qid, docs in run.items() if docs}
    )
    return result


def expected_summary(
    qrels: Qrels, per_query: Mapping[str, Mapping[str, float]], complete: bool
) -> dict[str, float]:
    rows = [dict(v) for v in per_query.values()]
    if complete:  # trec_eval -c: a missing query is scored as an empty ranking
        for qid in sorted(set(qrels) - set(per_query)):
            row = dict.fromkeys(NAMES, 0.0)
            row["num_rel"] = float(sum(g >= 1 for g in qrels[qid].values()))
            rows.append(row)
    return {
        name: math.fsum(r[name] for r in rows) / (1 if name in COUNTS else max(len(rows), 1))
        for name in NAMES
    }


def check(qrels: Qrels, run: Run) -> None:
    expected = reference(qrels, run)
    rankings = rank_run(run)
    ours = evaluate_run(MEASURES, qrels, rankings)
    assert set(ours.per_query) == set(expected)
    for qid, values in expected.items():
        for name in NAMES:
            assert ours.per_query[qid][name] == pytest.approx(values[name], abs=1e-9), (qid, name)
    for complete in (False, True):
        listed = evaluate_run(MEASURES, qrels, rankings, complete=complete)
        # from scores, without ranking every document: the very same floats
        assert evaluate_scores(MEASURES, qrels, run, complete=complete) == listed
        summary = listed.summary
        want = expected_summary(qrels, expected, complete)
        assert summary == pytest.approx(want, abs=1e-9), complete
    check_recip_rank_cut(qrels, run, rankings)


def check_recip_rank_cut(qrels: Qrels, run: Run, rankings: Mapping[str, tuple[str, ...]]) -> None:
    # ragward's own measure = trec_eval's recip_rank on the run cut to its first k
    for k in (1, 3):
        cut = {q: {d: run[q][d] for d in rankings[q][:k]} for q in run}
        truth = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
        ours = evaluate_run(parse_measures([f"recip_rank_cut_{k}"]), qrels, rankings)
        for qid, values in truth.items():
            assert ours.per_query[qid][f"recip_rank_cut_{k}"] == values["recip_rank"]


def random_case(rng: np.random.Generator) -> tuple[Qrels, Run]:
    qrels: Qrels = {}
    run: Run = {}
    for i in range(int(rng.integers(1, 8))):
        qid = f"q{i}"
        pool = [f"d{j}" for j in range(int(rng.integers(1, 40)))]
        if rng.random() < 0.85:  # judged
            judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            top = 1 if rng.random() < 0.15 else 4  # some queries judge nothing relevant
            grades = rng.integers(0, top, size=len(judged))
            grades[rng.random(len(judged)) < 0.05] = -1
            grades[0] = max(grades[0], 0)
            qrels[qid] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
        if qid not in qrels or rng.random() < 0.85:  # retrieved (run-only when not judged)
            candidates = pool + [f"u{j}" for j in range(5)]  # u*: never judged
            size = int(rng.integers(1, len(candidates) + 1))
            docs = rng.choice(candidates, size=size, replace=False)
            scores = rng.choice([-1.0, 0.0, 0.25, 1.0, 3.5], size=size)
            run[qid] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
    if not qrels:
        qrels["q0"] = {"d0": 1}
    return qrels, run


def test_seeded_random_cases_match_pytrec_eval() -> None:
    rng = np.random.default_rng(20020401)
    for _ in range(400):
        check(*random_case(rng))


_IDS = st.sampled_from(["a", "b", "B", "d1", "d2", "d9", "d10", "x", "é"])
_QIDS = st.sampled_from(["q1", "q2", "q10", "Q"])
_JUDGED = st.dictionaries(_IDS, st.integers(-1, 3), min_size=1).filter(
    lambda grades: max(grades.values()) >= 0
)
_RETRIEVED = st.dictionaries(_IDS, st.sampled_from([0.0, -0.0, 1.0, 2.5]), min_size=1)


@given(qrels=st.dictionaries(_QIDS, _JUDGED, min_size=1), run=st.dictionaries(_QIDS, _RETRIEVED))
def test_hypothesis_cases_match_pytrec_eval(qrels: Qrels, run: Run) -> None:
    check(qrels, run)


def test_tie_rule_is_trec_evals() -> None:
    # equal scores: document ids in descending byte order ("b" before "a", "9" before "10")
    run = {"q": {"a": 1.0, "b": 1.0, "10": 1.0, "9": 1.0, "top": 2.0}}
    assert rank_run(run)["q"] == ("top", "b", "a", "9", "10")
    for doc, rank in (("b", 2), ("a", 3), ("9", 4), ("10", 5)):
        truth = pytrec_eval.RelevanceEvaluator({"q": {doc: 1}}, {"recip_rank"}).evaluate(run)
        assert truth["q"]["recip_rank"] == 1 / rank


def test_bare_names_expand_like_pytrec_eval() -> None:
    for family in ("P", "recall", "success", "ndcg_cut"):
        keys = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {family}).evaluate({"q": {"a": 1.0}})
        assert {m.name for m in parse_measures([family])} == set(keys["q"])


def test_cli_with_twelve_digits_matches_pytrec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(7)
    for case in range(25):
        qrels, run = random_case(rng)
        write_qrels(tmp_path / "qrels.txt", qrels)
        write_scored_run(tmp_path / "run.txt", run, tag=f"case{case}")
        assert read_run(tmp_path / "run.txt").scores == run  # scores survive exactly
        argv = [str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"), "-q", "--digits", "12"]
        code = main(argv + [arg for name in NAMES for arg in ("-m", name)])
        out = capsys.readouterr().out
        expected = reference(qrels, run)
        if not expected:
            assert code == 2
            continue
        assert code == 0
        printed: dict[str, dict[str, float]] = {}
        for line in out.splitlines():
            name, qid, value = line.split("\t")
            printed.setdefault(qid, {})[name.rstrip()] = float(value)
        summary = printed.pop("all")
        assert printed.keys() == expected.keys()
        for qid, values in expected.items():
            assert printed[qid] == pytest.approx(values, abs=1e-9)
        assert summary == pytest.approx(expected_summary(qrels, expected, False), abs=1e-9)
