"""The one conversion between the kit's records and the reference's."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given

from ragward.conformance.records import Asker, Doc, Policy
from ragward.conformance.strategies import askers, corpora, policies
from ragward.engines.reference_records import (
    kit_asker,
    kit_doc,
    reference_asker,
    reference_doc,
    reference_policy,
)
from ragward.reference import ReferenceAsker, ReferenceDoc, ReferencePolicy


def test_the_document_and_asker_records_name_their_fields_alike() -> None:
    assert {f.name for f in fields(Doc)} == {f.name for f in fields(ReferenceDoc)}
    assert {f.name for f in fields(Asker)} == {f.name for f in fields(ReferenceAsker)}


@given(corpora())
def test_a_document_goes_there_and_back_unchanged(docs: list[Doc]) -> None:
    for doc in docs:
        document = reference_doc(doc)
        assert isinstance(document, ReferenceDoc)
        assert (document.tenant, document.doc_id, document.text) == (
            doc.tenant,
            doc.doc_id,
            doc.text,
        )
        assert kit_doc(document) == doc


@given(askers())
def test_an_asker_goes_there_and_back_unchanged(asker: Asker) -> None:
    principal = reference_asker(asker)
    assert isinstance(principal, ReferenceAsker)
    assert kit_asker(principal) == asker


@given(policies())
def test_every_field_of_a_policy_is_passed(policy: Policy) -> None:
    settings = reference_policy(policy)
    assert isinstance(settings, ReferencePolicy)
    assert settings.enable_rerank is policy.rerank  # the one field named otherwise
    for name in ("mode", "rrf_k", "rerank_min_score", "candidate_limit", "result_limit"):
        assert getattr(settings, name) == getattr(policy, name), name
    assert (settings.max_stale_ticks, settings.limit_unit) == (
        policy.max_stale_ticks,
        policy.limit_unit,
    )
