"""``ragward eval`` from the command line: the report, its bytes, and one-line errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragward.cli import main
from tests.evals.dataset_files import write_dataset
from tests.evals.grids import grid_toml

SMALL_GRID = grid_toml(
    name="small",
    depth=3,
    measures=["ndcg_cut_3", "recall_3", "recip_rank"],
    chunking=[(16, 2), (8, 0)],
    rrf_k=[10, 60],
    candidate_limit=[5],
    min_overlap=[0.5, 0.8],
)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _grid(tmp_path: Path, text: str = SMALL_GRID) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_eval_writes_a_deterministic_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    grid = _grid(tmp_path)
    outputs = []
    for run in ("one", "two"):
        out = tmp_path / run
        code, stdout, _ = _run(
            ["eval", "--dataset", str(data), "--grid", str(grid), "--out", str(out)], capsys
        )
        assert code == 0
        assert "ndcg_cut_3" in stdout
        assert "leakage_3" in stdout
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outputs[0] == outputs[1]
    names = set(outputs[0])
    assert {"results.json", "summary.md", "grounding_vs_min_overlap.svg"} <= names
    assert "ndcg_cut_3_vs_rrf_k.svg" in names
    results = json.loads(outputs[0]["results.json"])
    ids = [s["id"] for s in results["settings"]]
    assert len(ids) == 2 * (2 * 2 + 2 + 2)  # per chunking: hybrid x rrf_k x rerank + 2 + 2
    assert results["work"]["indexes"] == 2  # one index per chunking, not per setting
    assert results["first_stages_reused"] is True
    first = results["settings"][0]
    # q2 judges nothing relevant: it still counts, with 0, as in trec_eval
    assert set(first["per_query"]["recall_3"]) == {"q1", "q2", "q3"}
    assert first["per_query"]["recall_3"]["q2"] == 0.0
    assert all(s["means"]["leakage_3"] == 0.0 for s in results["settings"])


def test_reuse_changes_no_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_dataset(tmp_path / "data")
    grid = _grid(tmp_path)
    runs = []
    for flag in ([], ["--no-reuse"]):
        out = tmp_path / ("plain" if flag else "reused")
        assert (
            _run(
                ["eval", "--dataset", str(data), "--grid", str(grid), "--out", str(out), *flag],
                capsys,
            )[0]
            == 0
        )
        results = json.loads((out / "results.json").read_text())
        runs.append([(s["id"], s["per_query"], s["per_claim"]) for s in results["settings"]])
    assert runs[0] == runs[1]


def _claim(claim_id: str, text: str, label: str, evidence: str, **more: str) -> str:
    return json.dumps(
        {"_id": claim_id, "claim": text, "label": label, **more}
        | {"evidence": [{"doc_id": "d1", "text": evidence}]}
    )


#: Claims of three kinds: c1 quotes d1 (called supported either way); c2 shares no word
#: with anything (never); c3, unlabelled, is quoted from d1 but asked with a query only d3
#: matches, so end to end the lexical setting finds no evidence for it, gold evidence does;
#: c4 is of the dev split, not the one evaluated. The grid has that one setting.
KIND_CLAIMS = [
    _claim("c1", "Alpha beta gamma.", "supported", "Alpha beta gamma.", kind="a"),
    _claim("c2", "Zebra quantum flux.", "unsupported", "Alpha beta gamma.", kind="a"),
    _claim("c3", "Delta epsilon.", "supported", "Delta epsilon.", query="new text?"),
    _claim("c4", "Merger.", "unsupported", "Delta", kind="b", split="dev"),
]

KIND_GRID = grid_toml(
    depth=3,
    measures=["recall_3"],
    mode=["lexical"],
    rerank=[False],
    candidate_limit=[5],
    min_overlap=[0.5, 0.8],
)


def test_results_hold_the_claims_and_the_share_called_supported_by_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data", files={"claims.jsonl": KIND_CLAIMS})
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(data), "--grid", str(_grid(tmp_path, KIND_GRID))]
    assert _run([*argv, "--out", str(out)], capsys)[0] == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["dataset"]["claims"] == 3
    assert results["claim_kinds"] == {
        "a": {"supported": 1, "unsupported": 1},
        "unlabelled": {"supported": 1, "unsupported": 0},
    }
    shares = {
        "a": {"claims": 2.0, "end_to_end": 0.5, "gold": 0.5},
        "unlabelled": {"claims": 1.0, "end_to_end": 0.0, "gold": 1.0},
    }
    assert results["called_supported_by_kind"] == {"0.5": shares, "0.8": shares}


BAD_INPUTS = [
    pytest.param(
        {"corpus.jsonl": {2: '{"_id": "d2", "text": "x",'}},
        "corpus.jsonl line 2: invalid JSON",
        id="broken-json",
    ),
    pytest.param(
        {"queries.jsonl": {1: '{"_id": "q1"}'}},
        "queries.jsonl line 1: field 'text': missing",
        id="missing-field",
    ),
    pytest.param(
        {"corpus.jsonl": {1: '{"_id": "d1", "text": "x", "classification": "secret"}'}},
        "corpus.jsonl line 1: field 'classification': unknown value 'secret'",
        id="unknown-classification",
    ),
    pytest.param(
        {"queries.jsonl": {3: '{"_id": "q1", "text": "again"}'}},
        "queries.jsonl line 3: field '_id': duplicate query id 'q1'",
        id="duplicate-id",
    ),
    pytest.param(
        {"qrels/test.tsv": {2: "q1\td9\t1"}},
        "test.tsv line 2: field 'corpus-id': no document 'd9'",
        id="qrels-unknown-document",
    ),
    pytest.param(
        {"qrels/test.tsv": {2: "q9\td1\t1"}},
        "test.tsv line 2: field 'query-id': unknown query 'q9'",
        id="qrels-unknown-query",
    ),
]


@pytest.mark.parametrize(("changes", "expected"), BAD_INPUTS)
def test_bad_dataset_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    changes: dict[str, dict[int, str]],
    expected: str,
) -> None:
    data = write_dataset(tmp_path / "data", changes)
    out = tmp_path / "out"
    code, stdout, stderr = _run(
        ["eval", "--dataset", str(data), "--grid", str(_grid(tmp_path)), "--out", str(out)],
        capsys,
    )
    assert code == 2
    assert stdout == ""
    assert stderr.count("\n") == 1
    assert stderr.startswith("ragward eval: error: ")
    assert expected in stderr
    assert "Traceback" not in stderr
    assert not out.exists()  # nothing half-written


@pytest.mark.parametrize(
    ("grid", "expected"),
    [
        ("[retrieval\n", "grid.toml line 1: not valid TOML"),
        ('[retrieval]\nmode = ["fuzzy"]\n', "grid.toml line 2: field 'retrieval.mode'"),
        ("depth = -1\n", "grid.toml line 1: field 'depth'"),
    ],
)
def test_bad_grid_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], grid: str, expected: str
) -> None:
    data = write_dataset(tmp_path / "data")
    out = tmp_path / "out"
    code, _, stderr = _run(
        ["eval", "--dataset", str(data), "--grid", str(_grid(tmp_path, grid)), "--out", str(out)],
        capsys,
    )
    assert code == 2
    assert stderr.count("\n") == 1
    assert expected in stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--split", "nope"], "split 'nope' has no qrels"),
        (["--claims", "oops"], "expected SPLIT=FILE"),
        (["--impl", "no.such.module:factory"], "module 'no.such.module' not found"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    data = write_dataset(tmp_path / "data")
    code, _, stderr = _run(
        [
            "eval",
            "--dataset",
            str(data),
            "--grid",
            str(_grid(tmp_path)),
            "--out",
            str(tmp_path / "out"),
            *argv,
        ],
        capsys,
    )
    assert code == 2
    assert stderr.count("\n") == 1
    assert expected in stderr


TOY_GRID = grid_toml(
    chunking=[(96, 16)], mode=["lexical"], rrf_k=[60], rerank=[True], candidate_limit=[10]
)


def test_any_adapter_can_be_evaluated_within_what_it_declares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    out = tmp_path / "toy"
    toy = "ragward.conformance.examples.toy:factory"
    argv = ["eval", "--dataset", str(data), "--impl", toy, "--out", str(out)]
    assert main([*argv, "--grid", str(_grid(tmp_path, TOY_GRID))]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["grounding"] is False  # the toy does not declare grounding
    assert results["first_stages_reused"] is False  # nor the staged verbs
    assert results["index_settings_passed"] is False
    assert "Grounding: n/a" in (out / "summary.md").read_text()
    capsys.readouterr()
    # the default grid asks for modes and knobs the toy does not declare: it is fitted to
    # the toy, and one line says what was dropped
    assert main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    fitted = [line for line in err if "grid fitted" in line]
    assert len(fitted) == 1
    assert fitted[0].startswith(f"ragward eval: grid fitted to {toy}: dropped index settings ")
    assert "rerank lexical-overlap (it takes no reranker)" in fitted[0]
    assert "mode hybrid, dense (not declared)" in fitted[0]
    results = json.loads((out / "results.json").read_text())
    assert results["grid"]["retrieval"]["mode"] == ["lexical"]
    assert len(results["settings"]) == 1


def test_a_grid_asking_an_undeclared_mode_is_fitted_to_the_adapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    grid = _grid(tmp_path, TOY_GRID.replace('["lexical"]', '["lexical", "dense"]'))
    toy = "ragward.conformance.examples.toy:factory"
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(data), "--impl", toy, "--grid", str(grid), "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    # the toy takes no index settings either: the grid's one is dropped, said first
    assert "dropped index settings c96o16/hash-96 (it takes no max_tokens" in err
    assert "; mode dense (not declared)" in err
    modes = {s["mode"] for s in json.loads((out / "results.json").read_text())["settings"]}
    assert modes == {"lexical"}


def test_a_grid_left_with_no_declared_mode_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    grid = _grid(tmp_path, TOY_GRID.replace('["lexical"]', '["dense"]'))
    toy = "ragward.conformance.examples.toy:factory"
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(data), "--impl", toy, "--grid", str(grid), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "declares none of the grid's modes (dense; it has lexical)" in err
    assert not out.exists()


ONE_INDEX = grid_toml(
    depth=3,
    measures=["ndcg_cut_3", "recall_3"],
    chunking=[(96, 16)],
    mode=["hybrid", "lexical"],
    rrf_k=[60],
    rerank=[True, False],
    candidate_limit=[5],
    min_overlap=[0.6],
)


@pytest.mark.slow
def test_a_peer_over_the_wire_scores_as_the_same_implementation_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    grid = str(_grid(tmp_path, ONE_INDEX))
    runs = {}
    for name, source in (
        ("wire", ["--external", f"{sys.executable} -m ragward.wire_reference"]),
        ("local", []),
    ):
        out = tmp_path / name
        argv = ["eval", "--dataset", str(data), "--grid", grid, "--out", str(out), *source]
        assert main(argv) == 0
        results = json.loads((out / "results.json").read_text())
        runs[name] = [(s["id"], s["per_query"], s["per_claim"]) for s in results["settings"]]
    capsys.readouterr()
    # The peer takes no index settings: it chunked and embedded its own way (the
    # reference's defaults, as it happens), and its settings are named so.
    own = [(i.replace("c96o16/hash-96/", "own/", 1), q, c) for i, q, c in runs["local"]]
    assert runs["wire"] == own
    assert json.loads((tmp_path / "wire" / "results.json").read_text())[
        "implementation"
    ].startswith("external: ")


def test_exported_trec_runs_score_the_same_with_ragward_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_dataset(tmp_path / "data")
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(data), "--grid", str(_grid(tmp_path)), "--out", str(out)]
    assert main([*argv, "--trec"]) == 0
    results = json.loads((out / "results.json").read_text())
    capsys.readouterr()
    for setting in results["settings"]:
        run = out / "trec" / (setting["id"].replace("/", "_") + ".run")
        qrels = out / "trec" / "qrels.test.txt"
        # every judged query is scored, an empty answer included: trec_eval's -c
        code = main(["metrics", str(qrels), str(run), "-m", "ndcg_cut_3", "-c", "--digits", "15"])
        assert code == 0
        line = capsys.readouterr().out.strip().splitlines()[-1]
        measure, query, value = (part.strip() for part in line.split("\t"))
        assert (measure, query) == ("ndcg_cut_3", "all")
        assert float(value) == pytest.approx(setting["means"]["ndcg_cut_3"], abs=1e-12)
