"""The entitlement rule behind the kit's checks, qrels, leakage and gold contexts, worked
by hand."""

from __future__ import annotations

import doctest
from dataclasses import replace
from types import ModuleType

import pytest

from ragward.conformance import visibility as kit_visibility
from ragward.conformance.records import Asker, Doc, Policy
from ragward.conformance.visibility import entitled, fresh, in_view, rank, refusal
from ragward.evals import visibility
from ragward.evals.records import Dataset
from ragward.evals.visibility import current_docs, hidden_because

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
    assert entitled(doc, ASKER) is (reason is None)
    assert (refusal(doc, ASKER) is None) is (reason is None)
    assert reason is None or reason.startswith(str(refusal(doc, ASKER)))


@pytest.mark.parametrize(
    ("limit", "updated", "now", "expected"),
    [
        (None, 0, 10**6, True),
        (5, 10, 15, True),
        (5, 10, 16, False),
        (0, 7, 7, True),
        (0, 7, 8, False),
    ],
)
def test_fresh_keeps_an_age_equal_to_the_bound(
    limit: int | None, updated: int, now: int, expected: bool
) -> None:
    doc = Doc("acme", "d", "x", updated_tick=updated)
    policy = Policy(max_stale_ticks=limit)
    assert fresh(doc, now, policy) is expected
    assert in_view(doc, ASKER, now, policy) is expected
    assert in_view(replace(doc, tenant="other"), ASKER, now, policy) is False


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


@pytest.mark.parametrize("module", [visibility, kit_visibility])
def test_the_module_example_runs(module: ModuleType) -> None:
    results = doctest.testmod(module)
    assert (results.failed, results.attempted > 0) == (0, True)
