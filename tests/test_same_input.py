"""The same input means the same thing in every command.

``ragward metrics`` reads TREC files with the dataset loader's policy (a byte-order mark,
CRLF line ends, gzip); an empty split or one judging nothing relevant is an error in
``eval`` and ``tune`` rather than a report of zeros; a BEIR document with a title and an
empty text loads, indexed by its title.
"""

from __future__ import annotations

import codecs
import gzip
import json
from pathlib import Path

import pytest

from ragward.engines.reference import reference_factory
from ragward.evals.datasets import load_dataset
from tests.commands import TINY_GRID, one_error_line, run
from tests.evals.dataset_files import write_dataset

QRELS = ["q1 0 d1 1", "q2 0 d2 1"]
RUN = ["q1 Q0 d1 1 2.0 t", "q2 Q0 d3 1 1.0 t"]


def _write(path: Path, lines: list[str], *, bom: bool = False, newline: str = "\n") -> Path:
    data = "".join(line + newline for line in lines).encode("utf-8")
    data = (codecs.BOM_UTF8 if bom else b"") + data
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def _metrics(qrels: Path, run_file: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run(["metrics", str(qrels), str(run_file), "-q", "-m", "P_1"], capsys)
    assert code == 0, err
    return out


@pytest.mark.parametrize(
    ("bom", "newline", "suffix"),
    [
        pytest.param(True, "\n", ".txt", id="bom"),
        pytest.param(False, "\r\n", ".txt", id="crlf"),
        pytest.param(True, "\r\n", ".txt", id="bom-crlf"),
        pytest.param(True, "\n", ".txt.gz", id="gzip-bom"),
    ],
)
def test_metrics_reads_what_the_dataset_loader_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bom: bool, newline: str, suffix: str
) -> None:
    plain = _metrics(_write(tmp_path / "q.txt", QRELS), _write(tmp_path / "r.txt", RUN), capsys)
    assert "P_1                   \tq1\t1.0000" in plain  # the first query is kept
    qrels = _write(tmp_path / f"q2{suffix}", QRELS, bom=bom, newline=newline)
    run_file = _write(tmp_path / f"r2{suffix}", RUN, bom=bom, newline=newline)
    assert _metrics(qrels, run_file, capsys) == plain


def test_the_loader_takes_the_same_byte_order_mark(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data")
    queries = data / "queries.jsonl"
    queries.write_bytes(codecs.BOM_UTF8 + queries.read_bytes().replace(b"\n", b"\r\n"))
    assert next(iter(load_dataset(data).queries)) == "q1"


def test_an_empty_qrels_file_is_an_error_in_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = _write(tmp_path / "q.txt", ["# nothing judged"])
    code, _, err = run(["metrics", str(qrels), str(_write(tmp_path / "r.txt", RUN))], capsys)
    assert code == 2
    assert "q.txt: no judgements" in one_error_line(err, "metrics")


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param(
            ["query-id\tcorpus-id\tscore"], "no judgements: split 'test' is empty", id="empty"
        ),
        pytest.param(
            ["q1\td1\t0", "q3\td3\t0"],
            "no query of split 'test' has a relevant document (grade > 0)",
            id="nothing-relevant",
        ),
    ],
)
@pytest.mark.parametrize("command", ["eval", "tune"])
def test_a_split_that_would_score_zeros_is_an_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rows: list[str],
    expected: str,
    command: str,
) -> None:
    files = {"qrels/test.tsv": rows, "qrels/train.tsv": ["q1\td1\t1"]}
    data = write_dataset(tmp_path / "data", files=files)
    grid = tmp_path / "grid.toml"
    grid.write_text(TINY_GRID, encoding="utf-8")
    out = tmp_path / "out"
    argv = [command, "--dataset", str(data), "--grid", str(grid), "--out", str(out)]
    if command == "tune":
        argv += ["--tune-split", "train", "--report-split", "test"]
    code, stdout, err = run(argv, capsys)
    assert code == 2
    assert stdout == ""
    line = one_error_line(err, command)
    assert f"qrels/test.tsv: {expected}" in line
    assert not out.exists()


def test_a_beir_document_with_a_title_and_an_empty_text_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    titled = json.dumps({"_id": "d4", "title": "Only a title", "text": ""})
    data = write_dataset(tmp_path / "data", changes={"corpus.jsonl": {5: titled}})
    docs = {doc.doc_id: doc for doc in load_dataset(data).docs}
    # indexed by its title: it gives a chunk, so it can be found
    assert (docs["d4"].title, docs["d4"].text) == ("Only a title", "Only a title")
    spans = reference_factory().chunk(docs["d4"], 96, 0)
    assert [span.text for span in spans] == ["Only a title"]
    grid = tmp_path / "grid.toml"
    grid.write_text(TINY_GRID, encoding="utf-8")
    argv = ["eval", "--dataset", str(data), "--grid", str(grid), "--out", str(tmp_path / "out")]
    assert run([*argv, "--quiet"], capsys)[0] == 0


def test_a_document_with_neither_title_nor_text_is_still_an_error(tmp_path: Path) -> None:
    empty = json.dumps({"_id": "d4", "text": " "})
    data = write_dataset(tmp_path / "data", changes={"corpus.jsonl": {5: empty}})
    with pytest.raises(ValueError, match=r"corpus.jsonl line 5: field 'text': must not be empty"):
        load_dataset(data)
