"""Labelled claims in ragward's format: evidence by slice and by text, and each error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragward.errors import InputError
from ragward.evals.datasets import load_dataset
from ragward.evals.records import Evidence

from .dataset_files import INTERNAL, write_dataset, write_lines


def claim(**fields: Any) -> str:
    """A claim record: a supported claim on d1 unless ``fields`` say otherwise."""
    base: dict[str, Any] = {"_id": "c9", "claim": "Gamma.", "label": "supported"}
    base["evidence"] = [{"doc_id": "d1", "start": 12, "end": 17}]
    return json.dumps({**base, **fields})


def test_evidence_is_located_in_the_current_version(tmp_path: Path) -> None:
    by_text = claim(_id="c3", evidence=[{"doc_id": "d3", "text": "text"}])
    by_slice = claim(_id="c4", evidence=[{"doc_id": "d3", "start": 0, "end": 3}])
    write_dataset(tmp_path, {"claims.jsonl": {3: by_text, 4: by_slice}})
    claims = {c.claim_id: c for c in load_dataset(tmp_path).claims}
    assert claims["c3"].evidence == (Evidence("d3", 4, "text"),)
    assert claims["c4"].evidence == (Evidence("d3", 0, "New"),)


def test_evidence_found_by_text_is_its_first_occurrence(tmp_path: Path) -> None:
    write_dataset(tmp_path, {"claims.jsonl": {3: claim(evidence=[{"doc_id": "d1", "text": "a"}])}})
    (evidence,) = load_dataset(tmp_path).claims[2].evidence
    assert evidence == Evidence("d1", 4, "a")


def test_an_unsupported_claim_may_rest_on_invisible_evidence_or_none(tmp_path: Path) -> None:
    hidden = claim(label="unsupported", evidence=[{"doc_id": "d2", "text": "merger"}])
    bare = claim(_id="c8", label="unsupported", evidence=[], principal=INTERNAL)
    write_dataset(tmp_path, {"claims.jsonl": {3: hidden, 4: bare}})
    assert [c.supported for c in load_dataset(tmp_path).claims] == [True, False, False, False]


def test_claims_given_on_the_command_line_take_their_split(tmp_path: Path) -> None:
    write_dataset(tmp_path)
    extra = write_lines(tmp_path / "more.jsonl", [claim(split="test"), claim(_id="c8")])
    dataset = load_dataset(tmp_path, claims={"train": extra})
    assert [c.split for c in dataset.claims] == ["test", "dev", "train", "train"]
    assert dataset.split_claims("train") == dataset.claims[2:]
    assert dataset.sources["claims:train"] == extra.name


CLAIM_ERRORS = [
    (
        claim(lable="supported"),
        "field 'lable': unknown field (allowed: _id, claim, label, "
        "split, principal, query, now_tick, evidence, kind)",
    ),
    (claim(label="true"), "field 'label': unknown value 'true' (allowed: supported, unsupported)"),
    (claim(claim=""), "field 'claim': must not be empty"),
    (claim(query=""), "field 'query': must not be empty"),
    (claim(kind=3), "field 'kind': expected a string, got integer 3"),
    (claim(evidence={"doc_id": "d1"}), "field 'evidence': expected an array, got an object"),
    (claim(evidence=["d1"]), "field 'evidence[0]': expected an object, got string \"d1\""),
    (
        claim(evidence=[{"doc_id": "d1", "text": "Alpha", "start": 0}]),
        "field 'evidence[0].start': unknown field (allowed: doc_id, text)",
    ),
    (
        claim(evidence=[{"doc_id": "d1", "start": 0}]),
        "field 'evidence[0].end': missing (required)",
    ),
    (
        claim(evidence=[{"doc_id": "d1", "start": 30, "end": 40}]),
        "field 'evidence[0].end': slice [30:40] is empty or out of range: document 'd1' "
        "(current version 1) has 32 characters",
    ),
    (
        claim(evidence=[{"doc_id": "d1", "start": 5, "end": 5}]),
        "field 'evidence[0].end': slice [5:5] is empty or out of range: document 'd1' "
        "(current version 1) has 32 characters",
    ),
    (
        claim(evidence=[{"doc_id": "d1", "start": -1, "end": 5}]),
        "field 'evidence[0].start': must be >= 0, got -1",
    ),
    (
        claim(evidence=[{"doc_id": "d3", "text": "Old"}]),
        "field 'evidence[0].text': not found in document 'd3' (current version 2)",
    ),
    (
        claim(evidence=[{"doc_id": "d9", "text": "x"}]),
        "field 'evidence[0].doc_id': no document 'd9' in tenant 'default' (the asker's)",
    ),
    (
        claim(evidence=[{"doc_id": "d2", "text": "merger"}], principal=INTERNAL),
        "field 'evidence': a supported claim needs evidence its asker may see; "
        "its one passage is not visible to it",
    ),
    (
        claim(evidence=[]),
        "field 'evidence': a supported claim needs evidence its asker may see; it has none",
    ),
    (claim(_id="c1"), "field '_id': duplicate claim id 'c1' (first at {dir}/claims.jsonl line 1)"),
]


@pytest.mark.parametrize(("line", "message"), CLAIM_ERRORS)
def test_a_bad_claim_names_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    write_dataset(tmp_path, {"claims.jsonl": {3: line}})
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path)
    expected = f"{tmp_path / 'claims.jsonl'} line 3: {message.format(dir=tmp_path)}"
    assert str(caught.value) == expected


def test_a_claim_id_may_not_repeat_across_files(tmp_path: Path) -> None:
    write_dataset(tmp_path)
    extra = write_lines(tmp_path / "more.jsonl", [claim(_id="c2")])
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path, claims={"test": extra})
    assert str(caught.value) == (
        f"{extra} line 1: field '_id': duplicate claim id 'c2' "
        f"(first at {tmp_path / 'claims.jsonl'} line 2)"
    )


def test_a_claims_file_of_unknown_format_is_refused(tmp_path: Path) -> None:
    write_dataset(tmp_path)
    unlabelled = write_lines(tmp_path / "claims_test.jsonl", ['{"id": 7, "claim": "x"}'])
    with pytest.raises(InputError) as caught:
        load_dataset(tmp_path, claims={"test": unlabelled})
    assert str(caught.value) == (
        f"{unlabelled} line 1: cannot tell the claims format: a ragward claim has 'label', a "
        "SciFact claim has 'evidence' and 'cited_doc_ids' (SciFact's claims_test.jsonl has no "
        "labels)"
    )
    empty = write_lines(tmp_path / "empty.jsonl", [])
    with pytest.raises(InputError, match=r"empty\.jsonl: no claims in the file$"):
        load_dataset(tmp_path, claims={"test": empty})
