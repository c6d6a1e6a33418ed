"""The entitlement rule behind qrels, leakage and gold contexts, worked by hand."""

from __future__ import annotations

import doctest

import pytest

from ragward.conformance.records import Asker, Doc
from ragward.evals import visibility
from ragward.evals.records import Dataset
from ragward.evals.visibility import current_docs, hidden_because, rank, visible

ASKER = Asker("u", "acme", "confidential", ("deals",))


@pytest.mark.parametrize(
    ("doc", "reason"),
    [
        (Doc("acme", "d", "x", classification="public"), None),
        (Doc("acme", "d", "x", classification="confidential", barrier="deals"), None),
        (
            Doc("other", "d", "x", classification="public"),
            "tenant 'other' is not the asker's tenant 'acme'",
        ),
        (
            Doc("acme", "d", "x", classification="restricted"),
            "classification 'restricted' is above the asker's clearance 'confidential'",
        ),
        (
            Doc("acme", "d", "x", classification="internal", barrier="hr"),
            "barrier 'hr' is not held by the asker",
        ),
    ],
)
def test_visible_and_its_reason_agree(doc: Doc, reason: str | None) -> None:
    assert hidden_because(doc, ASKER) == reason
    assert visible(doc, ASKER) is (reason is None)


def test_ranks_follow_the_classification_order() -> None:
    assert [rank(c) for c in ("public", "internal", "confidential", "restricted")] == [0, 1, 2, 3]


def test_current_docs_keeps_the_highest_version_per_tenant_and_id() -> None:
    docs = (
        Doc("a", "d", "v2", version=2),
        Doc("a", "d", "v1", version=1),
        Doc("b", "d", "b1"),
        Doc("a", "d", "v3", version=3),
    )
    dataset = Dataset("x", docs, {}, {})
    current = current_docs(dataset)
    assert {key: doc.text for key, doc in current.items()} == {("a", "d"): "v3", ("b", "d"): "b1"}
    assert current == current_docs(docs)


def test_the_module_example_runs() -> None:
    results = doctest.testmod(visibility)
    assert (results.failed, results.attempted > 0) == (0, True)
