"""SciFact's labelled claim files as grounding claims.

SciFact (Wadden et al., "Fact or Fiction: Verifying Scientific Claims", EMNLP 2020,
arXiv:2004.14974) labels each claim of ``claims_<split>.jsonl`` with the abstracts that
SUPPORT or CONTRADICT it and the rationale sentences that carry the evidence. The
sentences are read from SciFact's own ``corpus.jsonl`` (or ``corpus.jsonl.gz``) beside the
claims file, and located in the BEIR text of the abstract (Thakur et al., BEIR,
arXiv:2104.08663), which joins the stripped sentences with one space.

A claim is ``supported`` (kind ``supported``) when a rationale says SUPPORT; otherwise it
is unsupported, of kind ``contradicted`` (its rationales say CONTRADICT) or
``no-evidence``. The gold context is the rationale sentences, one :class:`Evidence` each,
or, for a claim without rationales, the whole text of each cited abstract. Every claim is
asked by the default reader of tenant ``default``. Unknown fields are ignored (other
SciFact releases add some); everything else is checked, with file, line and field.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from ragward.errors import InputError
from ragward.evals.jsonl import Record, describe, read_jsonl
from ragward.evals.principals import default_reader
from ragward.evals.records import Evidence, LabelledClaim

__all__ = ["LABELS", "LocatedClaim", "load_scifact_claims", "read_scifact_claims"]

#: Rationale labels of SciFact.
LABELS = ("SUPPORT", "CONTRADICT")


class LocatedClaim(NamedTuple):
    """A claim with the file, line and id field it was read from (for later checks)."""

    path: str
    line: int
    id_field: str
    claim: LabelledClaim


def load_scifact_claims(path: str | os.PathLike[str], split: str) -> tuple[LabelledClaim, ...]:
    """The claims of a SciFact ``claims_<x>.jsonl`` file, all in split ``split``."""
    return tuple(located.claim for located in read_scifact_claims(path, split))


def read_scifact_claims(path: str | os.PathLike[str], split: str) -> list[LocatedClaim]:
    """As :func:`load_scifact_claims`, each claim with where it was read."""
    abstracts = _read_abstracts(_corpus_beside(Path(path)))
    asker = default_reader()
    claims: list[LocatedClaim] = []
    seen: dict[int, int] = {}
    for record in read_jsonl(path):
        claim_id = record.integer("id")
        record.first("id", claim_id, seen, "claim id")
        text = record.string("claim")
        for field in ("evidence", "cited_doc_ids"):
            if field not in record.data:
                problem = "missing (claims_test.jsonl has no labels: use the dev or train claims)"
                raise record.error(field, problem)
        rationales = _rationales(record, abstracts)
        cited = _cited(record, abstracts)
        labels = {label for _, _, label in rationales}
        supported = "SUPPORT" in labels
        evidence = (
            _gold(rationales, supported, abstracts)
            if rationales
            else tuple(Evidence(doc_id, 0, " ".join(abstracts[doc_id])) for doc_id in cited)
        )
        kind = "supported" if supported else "contradicted" if labels else "no-evidence"
        claim = LabelledClaim(str(claim_id), text, supported, asker, text, split, 0, evidence, kind)
        claims.append(LocatedClaim(record.path, record.line, "id", claim))
    return claims


def _gold(
    rationales: list[tuple[str, int, str]], supported: bool, abstracts: Mapping[str, list[str]]
) -> tuple[Evidence, ...]:
    """The rationale sentences (the supporting ones of a supported claim), each located in
    the BEIR text of its abstract; documents in file order, sentences in abstract order."""
    docs = list(dict.fromkeys(doc_id for doc_id, _, _ in rationales))
    chosen = {(d, i) for d, i, label in rationales if label == "SUPPORT" or not supported}
    evidence: list[Evidence] = []
    for doc_id, index in sorted(chosen, key=lambda item: (docs.index(item[0]), item[1])):
        sentences = abstracts[doc_id]
        start = sum(len(sentence) + 1 for sentence in sentences[:index])
        evidence.append(Evidence(doc_id, start, sentences[index]))
    return tuple(evidence)


def _rationales(record: Record, abstracts: Mapping[str, list[str]]) -> list[tuple[str, int, str]]:
    value = record.data["evidence"]
    if not isinstance(value, dict):
        raise record.error("evidence", f"expected an object, got {describe(value)}")
    found: list[tuple[str, int, str]] = []
    for doc_id, items in value.items():
        field = f"evidence.{doc_id}"
        sentences = abstracts.get(doc_id)
        if sentences is None:
            raise record.error(field, f"document {doc_id} is not in SciFact's corpus")
        if not isinstance(items, list) or not items:
            raise record.error(field, f"expected a non-empty array, got {describe(items)}")
        for number, item in enumerate(items):
            rationale = record.nested(f"{field}[{number}]", item)
            label = rationale.choice("label", LABELS)
            indices = rationale.array("sentences", required=True)
            if not indices:
                raise rationale.error("sentences", "must not be empty")
            for index in indices:
                if not isinstance(index, int) or isinstance(index, bool):
                    problem = f"expected integers, got {describe(index)}"
                    raise rationale.error("sentences", problem)
                if not 0 <= index < len(sentences):
                    problem = (
                        f"sentence {index} is out of range (document {doc_id} has "
                        f"{len(sentences)} sentences)"
                    )
                    raise rationale.error("sentences", problem)
                if not sentences[index]:
                    problem = f"sentence {index} of document {doc_id} is blank"
                    raise rationale.error("sentences", problem)
                found.append((doc_id, index, label))
    return found


def _cited(record: Record, abstracts: Mapping[str, list[str]]) -> list[str]:
    cited: list[str] = []
    for number, value in enumerate(record.array("cited_doc_ids", required=True)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise record.error(
                f"cited_doc_ids[{number}]", f"expected an integer, got {describe(value)}"
            )
        if str(value) not in abstracts:
            problem = f"document {value} is not in SciFact's corpus"
            raise record.error(f"cited_doc_ids[{number}]", problem)
        if str(value) not in cited:
            cited.append(str(value))
    return cited


def _corpus_beside(claims: Path) -> Path:
    found = [
        p
        for p in (claims.parent / "corpus.jsonl", claims.parent / "corpus.jsonl.gz")
        if p.is_file()
    ]
    if len(found) != 1:
        problem = (
            "SciFact's corpus.jsonl or corpus.jsonl.gz must sit beside the claims file "
            f"(found {len(found)} in {claims.parent})"
        )
        raise InputError.at(claims, None, None, problem)
    return found[0]


def _read_abstracts(path: Path) -> dict[str, list[str]]:
    """Document id -> its stripped sentences (BEIR's text is them joined by a space)."""
    abstracts: dict[str, list[str]] = {}
    for record in read_jsonl(path):
        doc_id = record.integer("doc_id")
        if str(doc_id) in abstracts:
            raise record.error("doc_id", f"duplicate document {doc_id}")
        sentences = record.array("abstract", required=True)
        for number, sentence in enumerate(sentences):
            if not isinstance(sentence, str):
                raise record.error(
                    f"abstract[{number}]", f"expected a string, got {describe(sentence)}"
                )
        abstracts[str(doc_id)] = [s.strip() for s in sentences]
    return abstracts
