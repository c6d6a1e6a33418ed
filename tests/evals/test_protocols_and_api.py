"""Rerankers and grounding checkers plugged in through their protocols, and the harness
used as a library on a tiny dataset."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.errors import InputError
from ragward.evals import evaluate, load_dataset, load_grid, score_run
from ragward.evals.measures import evaluate_run, parse_measures
from ragward.reference import (
    Chunk,
    Claim,
    ClaimCheck,
    GroundingChecker,
    GroundingReport,
    Reranker,
    ScoredChunk,
)
from tests.evals.dataset_files import write_dataset
from tests.evals.grids import grid_toml

GRID = grid_toml(
    name="tiny",
    depth=3,
    measures=["nDCG@3", "R@3", "RR"],
    mode=["lexical"],
    rerank=["none", "reverse"],
    candidate_limit=[5],
    min_overlap=[0.5],
)


class ReverseReranker:
    """Ranks the candidates backwards by chunk id: a visible, checkable reordering."""

    name = "reverse"

    def __init__(self) -> None:
        self.calls = 0

    def score(self, query: str, chunks: Sequence[Chunk]) -> list[float]:
        self.calls += 1
        order = sorted(c.chunk_id for c in chunks)
        return [float(order.index(c.chunk_id) + 1) for c in chunks]


class EveryClaimChecker:
    """Supports every claim with the first retrieved chunk, whatever it says."""

    name = "everything"

    def __init__(self) -> None:
        self.thresholds: list[float] = []

    def check(
        self, claims: Sequence[Claim], retrieved: Sequence[ScoredChunk], *, threshold: float
    ) -> GroundingReport:
        self.thresholds.append(threshold)
        if not retrieved:
            checks = tuple(ClaimCheck(c, 0.0, None, None) for c in claims)
            return GroundingReport((), tuple(claims), checks)
        top = retrieved[0].chunk
        checks = tuple(ClaimCheck(c, 1.0, top.chunk_id, top.citation(), True) for c in claims)
        return GroundingReport(tuple(claims), (), checks)


def test_fakes_meet_the_protocols() -> None:
    assert isinstance(ReverseReranker(), Reranker)
    assert isinstance(EveryClaimChecker(), GroundingChecker)


def _factory(reranker: ReverseReranker) -> Any:
    def factory(
        *,
        max_tokens: int,
        overlap_tokens: int,
        embedder: str,
        reranker: str | None = None,
    ) -> ReferenceSystem:
        system = reference_factory(
            max_tokens=max_tokens, overlap_tokens=overlap_tokens, embedder=embedder
        )
        if reranker == "reverse":
            system.retriever.reranker = fake
        return system

    fake = reranker
    return factory


def test_a_named_reranker_is_built_into_its_own_system(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    (tmp_path / "grid.toml").write_text(GRID, encoding="utf-8")
    fake = ReverseReranker()
    evaluation = evaluate(dataset, _factory(fake), grid=load_grid(tmp_path / "grid.toml"))
    ids = [r.id for r in evaluation]
    assert ids == [
        "c16o2/hash-96/lexical/norerank/cl5",
        "c16o2/hash-96/lexical/rerank-reverse/cl5",
    ]
    assert fake.calls > 0  # the reranked setting went through the fake


def test_a_grid_naming_a_reranker_is_fitted_to_a_factory_that_takes_none(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    (tmp_path / "grid.toml").write_text(GRID, encoding="utf-8")

    def plain(*, max_tokens: int, overlap_tokens: int, embedder: str) -> ReferenceSystem:
        return reference_factory(
            max_tokens=max_tokens, overlap_tokens=overlap_tokens, embedder=embedder
        )

    evaluation = evaluate(dataset, plain, grid=load_grid(tmp_path / "grid.toml"))
    assert any("(it takes no reranker)" in line for line in evaluation.dropped)
    assert all("rerank-reverse" not in s.id for s in evaluation)  # fitted, as ragward eval does


def test_a_grounding_checker_decides_the_harness_verdicts(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data")
    (data / "claims.jsonl").write_text(
        json.dumps(
            {
                "_id": "c1",
                "claim": "Alpha beta.",
                "label": "supported",
                "evidence": [{"doc_id": "d1", "text": "Alpha beta"}],
            }
        )
        + "\n"
        + json.dumps(
            {"_id": "c9", "claim": "Omega zeta theta.", "label": "unsupported", "query": "alpha?"}
        )
        + "\n",
        encoding="utf-8",
    )
    dataset = load_dataset(data)
    assert len(dataset.split_claims("test")) == 2
    (tmp_path / "grid.toml").write_text(GRID.replace(', "reverse"', ""), encoding="utf-8")
    grid = load_grid(tmp_path / "grid.toml")
    checker = EveryClaimChecker()

    def factory(*, max_tokens: int, overlap_tokens: int, embedder: str) -> ReferenceSystem:
        return reference_factory(
            max_tokens=max_tokens,
            overlap_tokens=overlap_tokens,
            embedder=embedder,
            grounding=checker,
        )

    own = evaluate(dataset, factory, grid=grid).settings[0].grounding[0.5]
    lexical = evaluate(dataset, grid=grid).settings[0].grounding[0.5]
    assert checker.thresholds
    assert set(checker.thresholds) == {0.5}
    # the fabricated claim is rejected by lexical overlap and "supported" by the fake
    assert (lexical.false_support, own.false_support) == (0, 1)
    assert lexical.true_support == own.true_support == 1


def test_evaluate_reads_like_ranx(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    (tmp_path / "grid.toml").write_text(GRID.replace(', "reverse"', ""), encoding="utf-8")
    evaluation = evaluate(dataset, grid=load_grid(tmp_path / "grid.toml"))
    (only,) = evaluation.settings
    assert evaluation.best("nDCG@3") is only is evaluation[only.id]
    assert set(only.per_query["ndcg_cut_3"]) == {"q1", "q2", "q3"}
    # the mean is the mean of the per-query values, in either spelling
    values = only.per_query["recall_3"].values()
    assert only.mean("R@3") == pytest.approx(sum(values) / 3)
    with pytest.raises(InputError, match="was not evaluated"):
        evaluation.best("P@10")
    # measures can replace the grid's
    again = evaluate(dataset, grid=load_grid(tmp_path / "grid.toml"), measures=["P@1"])
    assert set(again.settings[0].means) == {"P_1", "leakage_3"}


def test_score_run_ranks_by_score_then_doc_id_descending() -> None:
    qrels = {"q": {"a": 1, "c": 2}, "r": {"x": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}  # a and b tie: b ranks first, as trec_eval
    scores = score_run(qrels, run, ["RR", "nDCG@10", "P@2"])
    assert scores.per_query["q"]["recip_rank"] == 0.5
    assert scores.per_query["r"]["recip_rank"] == 0.0  # missing from the run: -c
    ranked = evaluate_run(parse_measures(["RR"]), qrels, {"q": ["b", "a", "c"]}, complete=True)
    assert ranked.summary == {"recip_rank": scores.summary["recip_rank"]}
    assert score_run(qrels, {"q": ["a"]}, ["P@2"]).per_query["q"]["P_2"] == 0.5


@pytest.mark.parametrize(
    ("spelled", "trec"),
    [
        ("nDCG@10", "ndcg_cut_10"),
        ("nDCG", "ndcg"),
        ("R@100", "recall_100"),
        ("P@5", "P_5"),
        ("RR", "recip_rank"),
        ("RR@10", "recip_rank_cut_10"),
        ("AP", "map"),
        ("Success@1", "success_1"),
        ("NumRet", "num_ret"),
        ("NumRel", "num_rel"),
        ("NumRet(rel=1)", "num_rel_ret"),
    ],
)
def test_ir_measures_names_mean_trec_eval_measures(spelled: str, trec: str) -> None:
    assert [m.name for m in parse_measures([spelled])] == [trec]


@pytest.mark.parametrize(
    ("name", "message"),
    [("AP@5", "takes no cutoff"), ("R@0", "not a positive integer"), ("R", "unknown measure")],
)
def test_bad_ir_measures_names(name: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_measures([name])


def test_replace_keeps_grid_frozen(tmp_path: Path) -> None:
    (tmp_path / "grid.toml").write_text(GRID, encoding="utf-8")
    grid = load_grid(tmp_path / "grid.toml")
    assert grid.measures == ("ndcg_cut_3", "recall_3", "recip_rank")
    assert replace(grid, depth=5).measures == grid.measures


def _analyzer_grid(tmp_path: Path, analyzers: str) -> Path:
    text = GRID.replace("[index]\n", f"[index]\nanalyzer = {analyzers}\n")
    assert "analyzer" in text
    (tmp_path / "grid.toml").write_text(text, encoding="utf-8")
    return tmp_path / "grid.toml"


def test_a_named_analyzer_builds_an_index_of_its_own(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    grid = load_grid(_analyzer_grid(tmp_path, '["plain", "english"]'))
    evaluation = evaluate(dataset, grid=replace(grid, reranks=("none",)))
    assert [r.id for r in evaluation] == [
        "c16o2+plain/hash-96/lexical/norerank/cl5",
        "c16o2+english/hash-96/lexical/norerank/cl5",
    ]


def test_a_named_analyzer_is_refused_by_a_factory_that_takes_none(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    grid = load_grid(_analyzer_grid(tmp_path, '["english"]'))

    def plain(*, max_tokens: int, overlap_tokens: int, embedder: str) -> ReferenceSystem:
        return reference_factory(
            max_tokens=max_tokens, overlap_tokens=overlap_tokens, embedder=embedder
        )

    with pytest.raises(InputError, match=r"takes no analyzer keyword.*analyzer 'english'"):
        evaluate(dataset, plain, grid=replace(grid, reranks=("none",)))


def test_an_unknown_analyzer_is_refused_naming_the_index(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    grid = load_grid(_analyzer_grid(tmp_path, '["porter"]'))
    with pytest.raises(InputError, match=r"refused index setting c16o2\+porter.*unknown analyzer"):
        evaluate(dataset, grid=replace(grid, reranks=("none",)))


def test_a_grid_of_fusion_methods_is_fitted_to_what_the_system_declares(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "data"))
    text = GRID.replace('mode = ["lexical"]', 'mode = ["hybrid"]').replace(
        "[retrieval]\n",
        '[retrieval]\nfusion = ["rrf", "zscore"]\nrrf_k = [60]\ndense_weight = [0.5, 0.8]\n',
    )
    assert 'mode = ["hybrid"]' in text
    (tmp_path / "grid.toml").write_text(text, encoding="utf-8")
    grid = replace(load_grid(tmp_path / "grid.toml"), reranks=("none",))
    every = evaluate(dataset, grid=grid)
    assert [r.id.split("/", 2)[2] for r in every] == [
        "hybrid/k60/norerank/cl5",
        "hybrid/k60w0.8/norerank/cl5",
        "hybrid/zscore/norerank/cl5",
        "hybrid/zscore-w0.8/norerank/cl5",
    ]

    class RrfOnly(ReferenceSystem):
        capabilities = replace(
            ReferenceSystem(reference_factory().retriever).capabilities,
            fusion_methods=("rrf",),
            fusion_weights=False,
        )

    def rrf_only(**keywords: Any) -> ReferenceSystem:
        return RrfOnly(reference_factory(**keywords).retriever)

    fitted = evaluate(dataset, rrf_only, grid=grid)
    assert [r.id.split("/", 2)[2] for r in fitted] == ["hybrid/k60/norerank/cl5"]
    assert any("fusion zscore (not declared)" in line for line in fitted.dropped)
    assert any("dense_weight 0.5, 0.8 (no fusion_weights" in line for line in fitted.dropped)


def test_the_eval_says_how_many_chunks_the_embedder_truncated(tmp_path: Path) -> None:
    from ragward.evals.report import _summary
    from ragward.reference import HashEmbedder

    class ShortSighted(HashEmbedder):
        """Reads three words of a text, and says so."""

        input_limit = 3

        def input_tokens(self, text: str) -> int:
            return len(text.split())

    def factory(**keywords: Any) -> ReferenceSystem:
        system = reference_factory(**keywords)
        system.retriever.embedder = ShortSighted()
        return system

    dataset = load_dataset(write_dataset(tmp_path / "data"))
    (tmp_path / "grid.toml").write_text(GRID, encoding="utf-8")
    grid = replace(load_grid(tmp_path / "grid.toml"), reranks=("none",))
    results = evaluate(dataset, factory, grid=grid).report
    (cut,) = results["truncated_chunks"].values()
    assert cut["limit"] == 3
    assert 0 < cut["truncated"] <= cut["embedded"]
    summary = _summary(results, [])
    assert f"the embedder cut {cut['truncated']} of {cut['embedded']} chunks" in summary
    # an embedder that does not say its limit: nothing said, results as before
    assert "truncated_chunks" not in evaluate(dataset, grid=grid).report
