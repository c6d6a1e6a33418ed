"""The JSON report's own fields, as a reader of the file sees them."""

from __future__ import annotations

import json

import pytest

from ragward.conformance.report import to_json
from ragward.conformance.runner import Report, Verdict

_CASE = {"doc": {"tenant": "acme", "doc_id": "Ωmega", "text": "café"}, "query": "naïve"}


@pytest.mark.parametrize(("steps", "complete"), [(7, False), (0, True), (1, True)])
def test_the_minimiser_s_steps_and_ending_are_reported_as_run(steps: int, complete: bool) -> None:
    verdict = Verdict(
        "ISO-001", "isolation", "t", "fail", 3, "r", _CASE, minimised=(steps, complete)
    )
    entry = json.loads(to_json(Report("impl", "ci", (verdict,))))["invariants"][0]
    assert entry["minimised"] == {"steps": steps, "complete": complete}
    assert type(entry["minimised"]["steps"]) is int
    assert type(entry["minimised"]["complete"]) is bool


def test_a_case_never_minimised_says_so() -> None:
    verdict = Verdict("ISO-001", "isolation", "t", "fail", 3, "r", _CASE)
    entry = json.loads(to_json(Report("impl", "ci", (verdict,))))["invariants"][0]
    assert entry["minimised"] is None


def test_text_is_written_as_itself_so_a_person_can_search_the_file() -> None:
    """A report is read by people (``grep café report.json``): no \\u escapes of text."""
    verdict = Verdict("ISO-001", "isolation", "t", "fail", 3, "naïve", _CASE)
    text = to_json(Report("impl", "ci", (verdict,)))
    assert "Ωmega" in text
    assert "café" in text
    assert '"reason": "naïve"' in text
    assert "\\u" not in text


def test_a_stored_case_leaves_out_its_defaults_and_reads_back_whole() -> None:
    """``case_data``: a counterexample as short as it can be said, ``from_data`` the same
    record again (a float kept where the default is an int, so it reads back as drawn)."""
    from ragward.conformance.records import Asker, Doc, Policy, case_data, from_data, to_data

    docs = (Doc("acme", "d1", "q"), Doc("acme", "d2", "q r", classification="restricted"))
    policy = Policy(mode="lexical", rrf_k=60.0)
    assert case_data(docs) == [
        {"tenant": "acme", "doc_id": "d1", "text": "q"},
        {"tenant": "acme", "doc_id": "d2", "text": "q r", "classification": "restricted"},
    ]
    assert case_data(policy) == {"mode": "lexical", "rrf_k": 60.0}
    assert case_data(Asker("u1", "acme")) == {"user_id": "u1", "tenant": "acme"}
    for record in (*docs, policy, Asker("u1", "acme", "public", ("b",))):
        back = from_data(type(record), case_data(record))
        assert back == record
        assert to_data(back) == to_data(record)
    assert type(from_data(Policy, case_data(policy)).rrf_k) is float
