"""Labelled claims: ragward's ``claims.jsonl``, or any claims file in a known format.

ragward's format is described in ``DATASET_FORMAT.md``. Unlike corpus and query records
(where BEIR files carry extra fields such as ``metadata``), a claim record with a field
outside the format is an error: the file is written by hand for ragward, so an unknown
field is most likely a typo (``lable``) that would otherwise silently take its default.

A claims file named on the command line (``--claims SPLIT=FILE``) may be in ragward's
format (its first record has ``label``) or SciFact's (its first record has
``cited_doc_ids`` or an ``evidence`` object); all its claims get ``SPLIT``, whatever
their ``split`` field says. Whatever the source, :func:`check_claims` then holds every
claim to the dataset: ids unique across files, evidence found in the current version of
its document in the asker's tenant, and a ``supported`` claim with evidence the asker
may see.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from ragward.conformance.records import Asker, Doc
from ragward.conformance.visibility import entitled
from ragward.errors import InputError
from ragward.evals.jsonl import Record, read_jsonl
from ragward.evals.principals import Principals
from ragward.evals.records import Evidence, LabelledClaim
from ragward.evals.scifact import LocatedClaim, read_scifact_claims

__all__ = ["CLAIM_FIELDS", "LABELS", "check_claims", "read_claim_file", "read_claims"]

#: The fields of a claim record in ragward's format.
CLAIM_FIELDS = (
    "_id", "claim", "label", "split", "principal", "query", "now_tick", "evidence", "kind",
)  # fmt: skip
#: The labels of a claim in ragward's format.
LABELS = ("supported", "unsupported")

Current = Mapping[tuple[str, str], Doc]


def read_claims(
    path: str | os.PathLike[str], principals: Principals, current: Current, split: str | None = None
) -> list[LocatedClaim]:
    """The claims of a file in ragward's format; ``split`` overrides their own."""
    claims: list[LocatedClaim] = []
    for record in read_jsonl(path):
        record.only(CLAIM_FIELDS)
        claim_id = record.string("_id")
        text = record.string("claim")
        label = record.choice("label", LABELS)
        asker = principals.asker(record)
        evidence = tuple(
            _evidence(record.nested(f"evidence[{number}]", item), asker, current)
            for number, item in enumerate(record.array("evidence"))
        )
        claim = LabelledClaim(
            claim_id=claim_id,
            text=text,
            supported=label == "supported",
            asker=asker,
            query=record.string("query", text),
            split=split if split is not None else record.string("split", "test"),
            now_tick=record.integer("now_tick", 0),
            evidence=evidence,
            kind=record.string("kind") if "kind" in record.data else "",
        )
        claims.append(LocatedClaim(record.path, record.line, "_id", claim))
    return claims


def read_claim_file(
    path: str | os.PathLike[str], split: str, principals: Principals, current: Current
) -> list[LocatedClaim]:
    """The claims of a file in ragward's or SciFact's format, told by its first record."""
    records = read_jsonl(path)
    first = next(records, None)
    records.close()
    if first is None:
        raise InputError.at(path, None, None, "no claims in the file")
    if "label" in first.data:
        return read_claims(path, principals, current, split)
    if "cited_doc_ids" in first.data or isinstance(first.data.get("evidence"), dict):
        return read_scifact_claims(path, split)
    problem = (
        "cannot tell the claims format: a ragward claim has 'label', a SciFact claim has "
        "'evidence' and 'cited_doc_ids' (SciFact's claims_test.jsonl has no labels)"
    )
    raise first.error(None, problem)


def check_claims(claims: Iterable[LocatedClaim], current: Current) -> tuple[LabelledClaim, ...]:
    """The claims, once each is consistent with the dataset's documents."""
    seen: dict[str, LocatedClaim] = {}
    for located in claims:
        claim = located.claim
        where = Record(located.path, located.line, {})
        first = seen.setdefault(claim.claim_id, located)
        if first is not located:
            problem = (
                f"duplicate claim id {claim.claim_id!r} (first at {first.path} line {first.line})"
            )
            raise where.error(located.id_field, problem)
        shown = False
        for evidence in claim.evidence:
            doc = current.get((claim.asker.tenant, evidence.doc_id))
            if doc is None:
                raise where.error("evidence", _unknown(evidence.doc_id, claim.asker))
            if doc.text[evidence.start : evidence.start + len(evidence.text)] != evidence.text:
                problem = (
                    f"the passage of document {evidence.doc_id!r} is not at {evidence.start} "
                    f"of its current text (version {doc.version}): the corpus differs from the "
                    "one the claims were labelled on"
                )
                raise where.error("evidence", problem)
            shown = shown or entitled(doc, claim.asker)
        if claim.supported and not shown:
            problem = f"a supported claim needs evidence its asker may see; {_none(claim)}"
            raise where.error("evidence", problem)
    return tuple(located.claim for located in seen.values())


def _evidence(item: Record, asker: Asker, current: Current) -> Evidence:
    by_text = "text" in item.data
    item.only(("doc_id", "text") if by_text else ("doc_id", "start", "end"))
    doc_id = item.string("doc_id")
    doc = current.get((asker.tenant, doc_id))
    if doc is None:
        raise item.error("doc_id", _unknown(doc_id, asker))
    if by_text:
        text = item.string("text")
        start = doc.text.find(text)
        if start < 0:
            problem = f"not found in document {doc_id!r} (current version {doc.version})"
            raise item.error("text", problem)
        return Evidence(doc_id, start, text)
    start, end = item.integer("start"), item.integer("end")
    if not start < end <= len(doc.text):
        problem = (
            f"slice [{start}:{end}] is empty or out of range: document {doc_id!r} "
            f"(current version {doc.version}) has {len(doc.text)} characters"
        )
        raise item.error("end", problem)
    return Evidence(doc_id, start, doc.text[start:end])


def _none(claim: LabelledClaim) -> str:
    count = len(claim.evidence)
    if count < 2:
        return "its one passage is not visible to it" if count else "it has none"
    return f"none of its {count} passages is visible to it"


def _unknown(doc_id: str, asker: Asker) -> str:
    return f"no document {doc_id!r} in tenant {asker.tenant!r} (the asker's)"
