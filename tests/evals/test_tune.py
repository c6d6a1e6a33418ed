"""``ragward tune``: chosen on one split, reported on the other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragward.cli import main
from ragward.evals.tune import choose
from tests.evals.dataset_files import BASE, write_dataset
from tests.evals.test_eval_cli import SMALL_GRID


def test_tune_reports_choices_from_one_split_on_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    c2 = json.loads(BASE["claims.jsonl"][1])
    data = write_dataset(
        tmp_path / "data",
        {"claims.jsonl": {2: json.dumps({**c2, "split": "train"})}},  # a claim to tune on
        files={"qrels/train.tsv": ["q1\td1\t2", "q3\td3\t1"]},
    )
    grid = tmp_path / "grid.toml"
    grid.write_text(SMALL_GRID, encoding="utf-8")
    out = tmp_path / "tuned"
    argv = ["tune", "--dataset", str(data), "--grid", str(grid), "--out", str(out)]
    assert main([*argv, "--tune-split", "train", "--report-split", "test"]) == 0
    stdout = capsys.readouterr().out
    assert "rrf_k (best hybrid)" in stdout
    assert "on train" in stdout
    assert "on test" in stdout
    tuned = json.loads((out / "tune.json").read_text())
    assert tuned["tune_split"] == "train"
    assert tuned["report_split"] == "test"
    assert tuned["chosen"]["rrf_k"] in (10.0, 60.0)
    first = (out / "tune.json").read_bytes()
    assert main([*argv, "--tune-split", "train", "--report-split", "test"]) == 0
    assert (out / "tune.json").read_bytes() == first
    capsys.readouterr()
    # the data of both splits fingerprinted: the report split's as results.json has it
    assert tuned["format"] == "ragward-tune/2"
    assert tuned["implementation"] == "ragward.engines.reference:reference_factory"
    prints = tuned["fingerprints"]
    results = tmp_path / "results"
    assert main(["eval", "--quiet", *argv[1:5], "--out", str(results)]) == 0
    evaluated = json.loads((results / "results.json").read_text())["fingerprints"]
    assert {key: prints["data"][key] for key in evaluated["data"]} == evaluated["data"]
    assert {k: v for k, v in prints.items() if k != "data"} == {
        k: v for k, v in evaluated.items() if k != "data"
    }
    assert set(prints["data"]) - set(evaluated["data"]) == {
        "queries_tune",
        "qrels_tune",
        "claims_tune",
    }
    assert prints["data"]["qrels_tune"] != prints["data"]["qrels"]
    assert prints["data"]["claims_tune"] not in (None, prints["data"]["claims"])


def test_tune_refuses_one_split_for_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    argv = ["tune", "--dataset", str(data), "--tune-split", "test", "--report-split", "test"]
    assert main(argv) == 2
    assert "must differ" in capsys.readouterr().err


def test_choose_breaks_ties_by_grid_order_and_the_stricter_threshold() -> None:
    from dataclasses import dataclass

    from ragward.evals.grounding import GroundingScores

    @dataclass
    class Scores:
        name: str
        means: dict[str, float]
        grounding: dict[float, GroundingScores]

    same = GroundingScores(5, 1, 4, 0)
    first = Scores("a", {"m": 0.5}, {0.4: same, 0.6: same})
    second = Scores("b", {"m": 0.5}, {})
    best, threshold = choose([first, second], "m", "f1")
    assert best.name == "a"
    assert threshold == 0.6
    assert choose([second, Scores("c", {"m": 0.7}, {})], "m", "f1")[0].name == "c"


def test_tune_chooses_the_fusion_method_and_weight_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data", files={"qrels/train.tsv": ["q1\td1\t2", "q3\td3\t1"]})
    grid = tmp_path / "grid.toml"
    text = SMALL_GRID.replace(
        "[retrieval]\n",
        '[retrieval]\nfusion = ["rrf", "minmax", "zscore"]\ndense_weight = [0.2, 0.5]\n',
    )
    assert 'fusion = ["rrf", "minmax", "zscore"]' in text
    grid.write_text(text, encoding="utf-8")
    out = tmp_path / "tuned"
    argv = ["tune", "--dataset", str(data), "--grid", str(grid), "--out", str(out)]
    assert main([*argv, "--tune-split", "train", "--report-split", "test"]) == 0
    assert "fusion (best hybrid)" in capsys.readouterr().out
    chosen = json.loads((out / "tune.json").read_text())["chosen"]
    assert chosen["fusion"] in ("rrf", "minmax", "zscore")
    assert chosen["dense_weight"] in (0.2, 0.5)
    assert (chosen["rrf_k"] is None) == (chosen["fusion"] != "rrf")
    assert (
        f"/hybrid/{chosen['fusion'] if chosen['fusion'] != 'rrf' else 'k'}"
        in chosen["rrf_k_setting"]
    )
