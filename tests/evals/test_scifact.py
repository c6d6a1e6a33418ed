"""SciFact claim files: labels, kinds and gold sentences located in the BEIR text.

The fixtures are tiny hand-written files in SciFact's format; one test reads the real files
when ``RAGWARD_DATA`` names a directory holding ``scifact/`` (see its SOURCE.md).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest

from ragward.conformance.records import Asker
from ragward.errors import InputError
from ragward.evals.datasets import load_dataset
from ragward.evals.records import Evidence
from ragward.evals.scifact import load_scifact_claims

from .dataset_files import write_lines

ABSTRACTS = {
    11: ["BACKGROUND: Mice were fed.  ", "Weight rose.\n", " Nothing else changed."],
    22: ["Drug X lowers pressure.", "Side effects were rare."],
    33: ["Unrelated finding."],
}
CLAIMS: list[dict[str, Any]] = [
    {
        "id": 1,
        "claim": "Feeding mice raises weight.",
        "evidence": {"11": [{"sentences": [1], "label": "SUPPORT"}]},
        "cited_doc_ids": [11],
    },
    {
        "id": 2,
        "claim": "Drug X raises pressure.",
        "evidence": {"22": [{"sentences": [1, 0], "label": "CONTRADICT"}]},
        "cited_doc_ids": [22, 33],
    },
    {"id": 3, "claim": "Y cures Z.", "evidence": {}, "cited_doc_ids": [33, 22]},
]


def scifact(root: Path, claims: list[dict[str, Any]] = CLAIMS, gz: bool = False) -> Path:
    """SciFact's corpus and a claims file in ``root``; return the claims file."""
    corpus = [
        json.dumps({"doc_id": d, "title": f"T{d}", "abstract": s, "structured": False})
        for d, s in ABSTRACTS.items()
    ]
    path = write_lines(root / "corpus.jsonl", corpus)
    if gz:
        (root / "corpus.jsonl.gz").write_bytes(gzip.compress(path.read_bytes()))
        path.unlink()
    return write_lines(root / "claims_dev.jsonl", [json.dumps(c) for c in claims])


def beir(root: Path, texts: dict[int, str] | None = None) -> Path:
    """The BEIR directory of the fixture (BEIR's rules, optionally other ``texts``)."""
    texts = texts or {d: " ".join(s.strip() for s in a) for d, a in ABSTRACTS.items()}
    corpus = [json.dumps({"_id": str(d), "title": "", "text": t}) for d, t in texts.items()]
    write_lines(root / "corpus.jsonl", corpus)
    write_lines(root / "queries.jsonl", [json.dumps({"_id": "1", "text": "q"})])
    write_lines(root / "qrels/test.tsv", ["query-id\tcorpus-id\tscore", "1\t11\t1"], "\r\n")
    return root


def test_labels_kinds_and_gold_sentences(tmp_path: Path) -> None:
    supported, contradicted, bare = load_scifact_claims(scifact(tmp_path, gz=True), "dev")
    reader = Asker("reader", "default", "restricted", ())
    assert (supported.claim_id, supported.supported, supported.kind) == ("1", True, "supported")
    assert (supported.asker, supported.query, supported.split) == (reader, supported.text, "dev")
    # "BACKGROUND: Mice were fed." is 26 characters, then one space.
    assert supported.evidence == (Evidence("11", 27, "Weight rose."),)
    assert (contradicted.supported, contradicted.kind) == (False, "contradicted")
    assert contradicted.evidence == (
        Evidence("22", 0, "Drug X lowers pressure."),
        Evidence("22", 24, "Side effects were rare."),
    )
    assert (bare.supported, bare.kind) == (False, "no-evidence")
    assert bare.evidence == (
        Evidence("33", 0, "Unrelated finding."),
        Evidence("22", 0, "Drug X lowers pressure. Side effects were rare."),
    )


def test_scifact_claims_load_into_a_beir_dataset(tmp_path: Path) -> None:
    claims = scifact(tmp_path)
    dataset = load_dataset(beir(tmp_path / "beir"), claims={"test": claims})
    assert [c.claim_id for c in dataset.split_claims("test")] == ["1", "2", "3"]
    assert dataset.sources["claims:test"] == claims.name  # a name: reports carry no local paths
    assert dataset.qrels == {"test": {"1": {"11": 1}}}


def test_a_beir_text_that_does_not_hold_the_rationale_is_refused(tmp_path: Path) -> None:
    claims = scifact(tmp_path)
    texts = {11: "BACKGROUND: Mice were fed. Weight fell.", 22: "a", 33: "b"}
    with pytest.raises(InputError) as caught:
        load_dataset(beir(tmp_path / "beir", texts), claims={"test": claims})
    assert str(caught.value) == (
        f"{claims} line 1: field 'evidence': the passage of document '11' is not at 27 of its "
        "current text (version 1): the corpus differs from the one the claims were labelled on"
    )


def with_claim(**fields: Any) -> list[dict[str, Any]]:
    return [CLAIMS[0], {**CLAIMS[1], **fields}]


SCIFACT_ERRORS = [
    (with_claim(id="2"), "field 'id': expected an integer, got string \"2\""),
    (with_claim(id=1), "field 'id': duplicate claim id 1 (first at line 1)"),
    (with_claim(claim=" "), "field 'claim': must not be empty"),
    (
        [CLAIMS[0], {"id": 2, "claim": "x", "cited_doc_ids": []}],
        "field 'evidence': missing (claims_test.jsonl has no labels: use the dev or train claims)",
    ),
    (with_claim(evidence=[]), "field 'evidence': expected an object, got an array"),
    (
        with_claim(evidence={"44": [{"sentences": [0], "label": "SUPPORT"}]}),
        "field 'evidence.44': document 44 is not in SciFact's corpus",
    ),
    (
        with_claim(evidence={"22": []}),
        "field 'evidence.22': expected a non-empty array, got an array",
    ),
    (
        with_claim(evidence={"22": [{"sentences": [2], "label": "SUPPORT"}]}),
        "field 'evidence.22[0].sentences': sentence 2 is out of range "
        "(document 22 has 2 sentences)",
    ),
    (
        with_claim(evidence={"22": [{"sentences": ["0"], "label": "SUPPORT"}]}),
        "field 'evidence.22[0].sentences': expected integers, got string \"0\"",
    ),
    (
        with_claim(evidence={"22": [{"sentences": [], "label": "SUPPORT"}]}),
        "field 'evidence.22[0].sentences': must not be empty",
    ),
    (
        with_claim(evidence={"22": [{"sentences": [0], "label": "NEUTRAL"}]}),
        "field 'evidence.22[0].label': unknown value 'NEUTRAL' (allowed: SUPPORT, CONTRADICT)",
    ),
    (
        with_claim(cited_doc_ids=["22"]),
        "field 'cited_doc_ids[0]': expected an integer, got string \"22\"",
    ),
    (
        with_claim(cited_doc_ids=[44]),
        "field 'cited_doc_ids[0]': document 44 is not in SciFact's corpus",
    ),
]


@pytest.mark.parametrize(("claims", "message"), SCIFACT_ERRORS)
def test_a_bad_scifact_claim_names_file_line_and_field(
    tmp_path: Path, claims: list[dict[str, Any]], message: str
) -> None:
    path = scifact(tmp_path, claims)
    with pytest.raises(InputError) as caught:
        load_scifact_claims(path, "dev")
    assert str(caught.value) == f"{path} line 2: {message}"


def test_the_corpus_must_sit_beside_the_claims(tmp_path: Path) -> None:
    path = scifact(tmp_path)
    (tmp_path / "corpus.jsonl").unlink()
    with pytest.raises(InputError) as caught:
        load_scifact_claims(path, "dev")
    assert str(caught.value) == (
        f"{path}: SciFact's corpus.jsonl or corpus.jsonl.gz must sit beside the claims file "
        f"(found 0 in {tmp_path})"
    )


@pytest.mark.skipif(
    not (Path(os.environ.get("RAGWARD_DATA", "/nonexistent")) / "scifact").is_dir(),
    reason="set RAGWARD_DATA to a directory holding scifact/ to read the real files",
)
def test_the_real_scifact_files_match_their_data_card() -> None:
    root = Path(os.environ["RAGWARD_DATA"]) / "scifact"
    dataset = load_dataset(root / "beir", claims={"test": root / "claims_dev.jsonl"})
    assert len(dataset.docs) == 5183
    assert len(dataset.split_queries("test")) == 300
    assert sum(len(judged) for judged in dataset.qrels["test"].values()) == 339
    claims = dataset.split_claims("test")
    assert len(claims) == 300
    assert sum(c.kind != "no-evidence" for c in claims) == 188
    assert sum(c.supported for c in claims) == 124
    assert len(load_scifact_claims(root / "claims_train.jsonl", "train")) == 809
