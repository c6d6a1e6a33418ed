"""BEIR qrels: the shape of each row, and each row held to the queries and the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragward.errors import InputError
from ragward.evals.datasets import load_dataset

from .dataset_files import write_dataset, write_lines

QRELS_ERRORS = [
    (
        "q1\td1",
        "line 2: expected 3 tab-separated columns (query-id, corpus-id, score), got 2",
    ),
    (
        "q1 d1 1",
        "line 2: expected 3 tab-separated columns (query-id, corpus-id, score), got 1",
    ),
    (
        "q1\td1\t1\t0",
        "line 2: expected 3 tab-separated columns (query-id, corpus-id, score), got 4",
    ),
    ("q1\td1\t1.0", "line 2: field 'score': expected an integer, got '1.0'"),
    ("q1\td1\tyes", "line 2: field 'score': expected an integer, got 'yes'"),
    ("q9\td1\t1", "line 2: field 'query-id': unknown query 'q9' (not in queries.jsonl)"),
    (
        "q1\td9\t1",
        "line 2: field 'corpus-id': no document 'd9' in tenant 'default' "
        "(the asker's of query 'q1')",
    ),
    ("q2\td2\t0", "line 3: field 'corpus-id': query 'q2' already judges 'd2' (line 2)"),
    (
        "q2\td2\t1",
        "line 2: field 'score': grade 1 for document 'd2', which the asker of query 'q2' may "
        "not see (classification 'restricted' is above the asker's clearance 'internal'); "
        "grade it 0 or change the principal",
    ),
    (
        "q3\td2\t3",
        "line 2: field 'score': grade 3 for document 'd2', which the asker of query 'q3' may "
        "not see (barrier 'deals' is not held by the asker); grade it 0 or change the principal",
    ),
]


@pytest.mark.parametrize(("row", "message"), QRELS_ERRORS)
def test_a_bad_row_names_file_line_and_column(tmp_path: Path, row: str, message: str) -> None:
    write_dataset(tmp_path, {"qrels/test.tsv": {2: row, 3: "q2\td2\t0", 4: None}})
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'qrels/test.tsv'} {message}"


def test_a_header_is_only_recognised_on_the_first_line(tmp_path: Path) -> None:
    rows = ["q1\td1\t1", "query-id\tcorpus-id\tscore"]
    write_dataset(tmp_path, files={"qrels/test.tsv": rows})
    with pytest.raises(
        InputError, match=r"line 2: field 'score': expected an integer, got 'score'"
    ):
        load_dataset(tmp_path)


def test_crlf_rows_negative_and_zero_grades_and_several_splits(tmp_path: Path) -> None:
    write_dataset(tmp_path)
    write_lines(tmp_path / "qrels/dev.tsv", ["q1\td3\t-1", "q1\td2\t0", "q2\td1\t+2"], "\r\n")
    qrels = load_dataset(tmp_path).qrels
    assert list(qrels) == ["dev", "test"]
    assert qrels["dev"] == {"q1": {"d3": -1, "d2": 0}, "q2": {"d1": 2}}


def test_visibility_is_judged_on_the_current_version(tmp_path: Path) -> None:
    old_secret = '{"_id": "d3", "text": "Old text.", "classification": "restricted"}'
    write_dataset(tmp_path, {"corpus.jsonl": {4: old_secret}, "qrels/test.tsv": {5: "q2\td3\t1"}})
    assert load_dataset(tmp_path).qrels["test"]["q2"] == {"d2": 0, "d3": 1}
    new_secret = '{"_id": "d3", "text": "New.", "version": 2, "classification": "confidential"}'
    write_dataset(tmp_path, {"corpus.jsonl": {3: new_secret}, "qrels/test.tsv": {5: "q2\td3\t1"}})
    with pytest.raises(InputError, match="classification 'confidential' is above"):
        load_dataset(tmp_path)
