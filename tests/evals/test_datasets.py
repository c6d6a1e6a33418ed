"""The dataset loader: what a valid directory becomes, and each corpus/query error's message."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ragward.conformance.records import Asker, Doc
from ragward.errors import InputError
from ragward.evals.datasets import load_dataset
from ragward.evals.records import Evidence

from .dataset_files import BASE, INTERNAL, write_dataset, write_lines


def test_a_valid_directory_loads_with_every_default(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path), name="tiny")
    reader = Asker("reader", "default", "restricted", ("deals",))
    assert dataset.name == "tiny"
    assert dataset.docs == (
        Doc("default", "d1", "Alpha beta gamma. Delta epsilon.", "T1", "public"),
        Doc("default", "d2", "Secret merger terms.", "", "restricted", "deals"),
        Doc("default", "d3", "Old text.", "", "public", None, 1, 0),
        Doc("default", "d3", "New text here.", "", "public", None, 2, 5),
    )
    assert list(dataset.queries) == ["q1", "q2", "q3"]
    assert dataset.queries["q1"].asker == reader
    assert dataset.queries["q2"].asker == Asker("u", "default", "internal", ())
    assert dataset.queries["q2"].now_tick == 3
    assert dataset.queries["q3"].max_stale_ticks == 2
    assert dataset.qrels == {"test": {"q1": {"d1": 1}, "q2": {"d2": 0}, "q3": {"d3": 2}}}
    c1, c2 = dataset.claims
    assert (c1.supported, c1.asker, c1.query, c1.split, c1.kind) == (
        True,
        reader,
        "Alpha beta.",
        "test",
        "",
    )
    assert c1.evidence == (Evidence("d1", 18, "Delta"),)
    assert (c2.supported, c2.split, c2.query, c2.now_tick, c2.kind) == (
        False,
        "dev",
        "what merger?",
        4,
        "invisible",
    )
    assert c2.evidence == (Evidence("d2", 7, "merger"),)
    assert dataset.sources == {
        "corpus": "corpus.jsonl",
        "queries": "queries.jsonl",
        "qrels:test": "qrels/test.tsv",
        "claims": "claims.jsonl",
    }


def test_versions_go_oldest_first_into_the_places_their_records_held(tmp_path: Path) -> None:
    corpus = [
        json.dumps({"_id": "a", "text": "a3", "version": 3}),
        json.dumps({"_id": "b", "text": "b1"}),
        json.dumps({"_id": "a", "text": "a1"}),
        json.dumps({"_id": "c", "text": "c1"}),
        json.dumps({"_id": "a", "text": "a2", "version": 2}),
    ]
    write_dataset(tmp_path, files={"corpus.jsonl": corpus, "claims.jsonl": None})
    write_lines(tmp_path / "qrels/test.tsv", ["q1\ta\t1"])
    texts = [doc.text for doc in load_dataset(tmp_path).docs]
    assert texts == ["a1", "b1", "a2", "c1", "a3"]


def test_gz_corpus_crlf_lines_and_trailing_blank_lines_load(tmp_path: Path) -> None:
    write_dataset(tmp_path, newline="\r\n")
    corpus = tmp_path / "corpus.jsonl"
    with gzip.open(tmp_path / "corpus.jsonl.gz", "wb") as stream:
        stream.write(corpus.read_bytes() + b"\r\n\n")
    corpus.unlink()
    dataset = load_dataset(tmp_path)
    assert len(dataset.docs) == 4
    assert dataset.qrels["test"]["q3"] == {"d3": 2}
    assert dataset.sources["corpus"] == "corpus.jsonl.gz"
    assert dataset.name == tmp_path.name


def test_the_same_id_in_two_tenants_is_two_documents(tmp_path: Path) -> None:
    other = {"user_id": "o", "tenant": "other", "max_classification": "public"}
    corpus = [
        json.dumps({"_id": "d1", "text": "mine", "tenant": "mine"}),
        json.dumps({"_id": "d1", "text": "other's", "tenant": "other"}),
    ]
    queries = [
        json.dumps({"_id": "q1", "text": "x", "principal": {**INTERNAL, "tenant": "mine"}}),
        json.dumps({"_id": "q2", "text": "y", "principal": other}),
    ]
    write_dataset(
        tmp_path,
        files={"corpus.jsonl": corpus, "queries.jsonl": queries, "claims.jsonl": None},
    )
    write_lines(tmp_path / "qrels/test.tsv", ["q1\td1\t1", "q2\td1\t1"])
    write_lines(tmp_path / "qrels/train.tsv", ["q2\td1\t0"])
    dataset = load_dataset(tmp_path)
    assert [(d.tenant, d.doc_id) for d in dataset.docs] == [("mine", "d1"), ("other", "d1")]
    assert list(dataset.qrels) == ["test", "train"]
    assert dataset.split_queries("train") == (dataset.queries["q2"],)


def test_the_default_reader_holds_every_barrier_of_the_only_tenant(tmp_path: Path) -> None:
    corpus = [
        json.dumps({"_id": "a", "text": "x", "tenant": "acme", "barrier": "zeta"}),
        json.dumps({"_id": "b", "text": "y", "tenant": "acme", "barrier": "alpha"}),
    ]
    write_dataset(tmp_path, files={"corpus.jsonl": corpus, "claims.jsonl": None})
    write_lines(tmp_path / "qrels/test.tsv", ["q1\ta\t1"])
    (asker,) = {q.asker for q in load_dataset(tmp_path).split_queries("test")}
    assert asker == Asker("reader", "acme", "restricted", ("alpha", "zeta"))


CORPUS_ERRORS = [
    ('{"_id": "d1", "text": "x"', "line 1: invalid JSON: Expecting ',' delimiter (column 26)"),
    ('["d1", "x"]', "line 1: expected a JSON object, got an array"),
    ('"d1"', 'line 1: expected a JSON object, got string "d1"'),
    ('{"text": "x"}', "line 1: field '_id': missing (required)"),
    ('{"_id": 1, "text": "x"}', "line 1: field '_id': expected a string, got integer 1"),
    ('{"_id": "d1"}', "line 1: field 'text': missing (required)"),
    ('{"_id": "d1", "text": ""}', "line 1: field 'text': must not be empty"),
    ('{"_id": "d1", "text": " \\n"}', "line 1: field 'text': must not be empty"),
    ('{"_id": "d1", "text": "x", "title": null}', "line 1: field 'title': must not be null"),
    (
        '{"_id": "d1", "text": "x", "version": "2"}',
        "line 1: field 'version': expected an integer, got string \"2\"",
    ),
    (
        '{"_id": "d1", "text": "x", "version": true}',
        "line 1: field 'version': expected an integer, got boolean true",
    ),
    (
        '{"_id": "d1", "text": "x", "version": 1.0}',
        "line 1: field 'version': expected an integer, got number 1.0",
    ),
    ('{"_id": "d1", "text": "x", "version": 0}', "line 1: field 'version': must be >= 1, got 0"),
    (
        '{"_id": "d1", "text": "x", "updated_tick": -1}',
        "line 1: field 'updated_tick': must be >= 0, got -1",
    ),
    (
        '{"_id": "d1", "text": "x", "classification": "secret"}',
        "line 1: field 'classification': unknown value 'secret' "
        "(allowed: public, internal, confidential, restricted)",
    ),
    (
        '{"_id": "d1", "text": "x", "barrier": 5}',
        "line 1: field 'barrier': expected a string, got integer 5",
    ),
    ('{"_id": "d1", "text": "x", "tenant": ""}', "line 1: field 'tenant': must not be empty"),
]


@pytest.mark.parametrize(("line", "message"), CORPUS_ERRORS)
def test_a_bad_corpus_record_names_file_line_and_field(
    tmp_path: Path, line: str, message: str
) -> None:
    write_dataset(tmp_path, {"corpus.jsonl": {1: line}})
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'corpus.jsonl'} {message}"


FILE_ERRORS = [
    (
        {"corpus.jsonl": {4: '{"_id": "d3", "text": "again", "version": 2}'}},
        "corpus.jsonl line 4: field '_id': document 'd3' version 2 of tenant 'default' "
        "is already at line 3",
    ),
    (
        {"corpus.jsonl": {2: ""}},
        "corpus.jsonl line 2: blank line between records (only trailing blank lines are allowed)",
    ),
    (
        {"queries.jsonl": {3: '{"_id": "q1", "text": "again"}'}},
        "queries.jsonl line 3: field '_id': duplicate query id 'q1' (first at line 1)",
    ),
    (
        {"queries.jsonl": {1: '{"_id": "q1", "text": "x", "now_tick": -2}'}},
        "queries.jsonl line 1: field 'now_tick': must be >= 0, got -2",
    ),
    (
        {"queries.jsonl": {1: '{"_id": "q1", "text": "x", "max_stale_ticks": "5"}'}},
        "queries.jsonl line 1: field 'max_stale_ticks': expected an integer, got string \"5\"",
    ),
    (
        {"queries.jsonl": {1: '{"_id": "q1", "text": "x", "principal": null}'}},
        "queries.jsonl line 1: field 'principal': expected an object, got null",
    ),
    (
        {
            "queries.jsonl": {
                1: json.dumps(
                    {"_id": "q1", "text": "x", "principal": {**INTERNAL, "clearance": "x"}}
                )
            }
        },
        "queries.jsonl line 1: field 'principal.clearance': unknown field "
        "(allowed: user_id, tenant, max_classification, barriers)",
    ),
    (
        {
            "queries.jsonl": {
                1: json.dumps({"_id": "q1", "text": "x", "principal": {"user_id": "u"}})
            }
        },
        "queries.jsonl line 1: field 'principal.tenant': missing (required)",
    ),
    (
        {
            "queries.jsonl": {
                1: json.dumps(
                    {
                        "_id": "q1",
                        "text": "x",
                        "principal": {**INTERNAL, "max_classification": "top"},
                    }
                )
            }
        },
        "queries.jsonl line 1: field 'principal.max_classification': unknown value 'top' "
        "(allowed: public, internal, confidential, restricted)",
    ),
    (
        {
            "queries.jsonl": {
                1: json.dumps(
                    {"_id": "q1", "text": "x", "principal": {**INTERNAL, "barriers": "deals"}}
                )
            }
        },
        "queries.jsonl line 1: field 'principal.barriers': expected an array, got string \"deals\"",
    ),
    (
        {
            "queries.jsonl": {
                1: json.dumps(
                    {"_id": "q1", "text": "x", "principal": {**INTERNAL, "barriers": ["a", 7]}}
                )
            }
        },
        "queries.jsonl line 1: field 'principal.barriers[1]': expected a non-empty string, "
        "got integer 7",
    ),
    (
        {"corpus.jsonl": {5: '{"_id": "d9", "text": "x", "tenant": "other"}'}},
        "queries.jsonl line 1: field 'principal': missing; every query and claim needs a "
        "principal when the corpus has several tenants (default, other)",
    ),
]


@pytest.mark.parametrize(("changes", "message"), FILE_ERRORS)
def test_a_bad_line_names_file_line_and_field(
    tmp_path: Path, changes: dict[str, dict[int, str]], message: str
) -> None:
    write_dataset(tmp_path, changes)
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    assert str(caught.value) == f"{tmp_path}/{message}"


def test_missing_or_doubled_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="dataset directory not found"):
        load_dataset(tmp_path / "nowhere")
    write_dataset(tmp_path, files={"corpus.jsonl.gz": BASE["corpus.jsonl"]})
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}: expected corpus.jsonl or corpus.jsonl.gz, found both"
    )
    (tmp_path / "corpus.jsonl.gz").unlink()
    (tmp_path / "corpus.jsonl").unlink()
    with pytest.raises(InputError, match="found neither"):
        load_dataset(tmp_path)
    write_dataset(tmp_path, files={"queries.jsonl": None})
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path / 'queries.jsonl'}: cannot read the file: No such file or directory"
    )
    write_dataset(tmp_path, files={"qrels/test.tsv": None})
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    assert str(caught.value) == f"{tmp_path / 'qrels'}: no qrels: expected qrels/<split>.tsv"


def test_an_empty_corpus_or_query_file_is_an_error(tmp_path: Path) -> None:
    write_dataset(tmp_path, files={"queries.jsonl": []})
    with pytest.raises(InputError, match=r"queries\.jsonl: no queries$"):
        load_dataset(tmp_path)
    write_dataset(tmp_path, files={"corpus.jsonl": ["", ""]})
    with pytest.raises(InputError, match=r"corpus\.jsonl: no documents$"):
        load_dataset(tmp_path)
