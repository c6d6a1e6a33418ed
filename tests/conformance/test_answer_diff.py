"""Reasons that compare two answers say what changed, in aligned lines and numbers."""

from __future__ import annotations

import re
from dataclasses import replace as dc_replace
from typing import Any

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.answer_diff import asked, changes, differ, number_pair
from ragward.conformance.contract import Capabilities
from ragward.conformance.invariant import REGISTRY, Violation
from ragward.conformance.records import Asker, Hit, Policy, Result
from ragward.conformance.runner import replay, run_invariant
from ragward.engines.reference import ReferenceSystem, reference_factory
from tests.conformance.broken import BROKEN
from tests.conformance.planted import FACTORIES

_CAPS = Capabilities(modes=("hybrid", "lexical"), rerank_toggle=True)


def _hit(chunk_id: str, score: float, version: int = 1) -> Hit:
    doc_id = chunk_id.split("::")[0]
    return Hit(chunk_id, doc_id, version, 0, 4, "text", score)


def _result(*hits: Hit, counts: tuple[int, int, int] = (3, 1, 0)) -> Result:
    return Result(hits, *counts)


def test_only_what_changed_aligned_by_chunk_id() -> None:
    before = _result(_hit("d1::1", 0.6614), _hit("d2::1", 0.5), _hit("gone::1", 0.25))
    after = _result(
        _hit("d2::1", 0.5), _hit("d1::1", 1.0439), _hit("new::2", 0.125), counts=(4, 2, 0)
    )
    assert changes(before, after, _CAPS) == [
        "d1::1                    rank 1 -> 2, score 0.661 -> 1.044",
        "d2::1                    rank 2 -> 1",
        "gone::1                  removed: rank 3 -> none, score 0.250",
        "new::2                   added: none -> rank 3, score 0.125",
        "considered               3 -> 4",
        "excluded_by_entitlement  1 -> 2",
    ]


def test_undeclared_scores_and_counts_are_not_compared() -> None:
    caps = Capabilities(scores=False, counts=False)
    before = _result(_hit("d1::1", 0.1), _hit("d2::1", 0.2))
    after = _result(_hit("d1::1", 0.9, version=2), _hit("d2::1", 0.3), counts=(9, 9, 9))
    assert changes(before, after, caps) == ["d1::1  d1 v1 -> d1 v2"]
    assert changes(before, before, _CAPS) == []


def test_scores_that_agree_to_three_decimals_show_more() -> None:
    assert number_pair(0.30688440799713135, 0.3068844079971314) == (
        "0.30688440799713135 -> 0.3068844079971314"
    )
    assert number_pair(0.2881, 0.2884) == "0.288100 -> 0.288400"
    assert number_pair(1.0, 2.5) == "1.000 -> 2.500"


def test_the_header_names_only_declared_knobs() -> None:
    policy = Policy(mode="lexical", rerank=False, result_limit=3, max_stale_ticks=2)
    asker = Asker("u1", "acme", "public", ("deal",))
    assert asked("payment", asker, 7, policy, _CAPS) == (
        "'payment' asked by u1@acme (public, barriers ['deal']) at tick 7: lexical, "
        "rerank off, max_stale_ticks 2"
    )
    bare = Capabilities(barriers=False, freshness=False, rerank_toggle=False)
    assert asked("payment", asker, 7, policy, bare) == (
        "'payment' asked by u1@acme (public) at tick 7: lexical"
    )


def test_the_violation_puts_the_first_change_on_its_first_line() -> None:
    before = _result(_hit("d1::1", 0.661), _hit("d2::1", 0.5))
    after = _result(_hit("d1::1", 1.044), _hit("d2::1", 0.75))
    with pytest.raises(Violation) as caught:
        differ("answer alone vs among others", "'q' asked by u1@acme", before, after, _CAPS)
    assert str(caught.value) == (
        "answer alone vs among others: d1::1 score 0.661 -> 1.044 (+1 more)\n"
        "'q' asked by u1@acme\n"
        "  d1::1  score 0.661 -> 1.044\n"
        "  d2::1  score 0.500 -> 0.750"
    )
    differ("the same answer", "'q'", before, before, _CAPS)  # equal: nothing raised


def test_a_rounding_wobble_is_named() -> None:
    before = _result(_hit("d1::1", 2.077599287033081))
    after = _result(_hit("d1::1", 2.07759952545166))
    with pytest.raises(Violation, match=r"^scores: d1::1 score .* -> .*: rounding\)\n"):
        differ("scores", "'q'", before, after, _CAPS)


def _full_reason(plant: str, invariant_id: str) -> tuple[str, str]:
    """The report's one-line reason for ``plant`` on ``invariant_id`` and the whole
    message of its counterexample replayed, which the verdict's detail keeps whole."""
    factory = FACTORIES[plant]
    verdict = run_invariant(REGISTRY[invariant_id], factory, baseline=reference_factory)
    assert verdict.status == "fail", verdict.reason
    case: Any = verdict.counterexample
    with pytest.raises(Violation) as caught:
        replay(factory, invariant_id, case)
    whole = str(caught.value)
    assert verdict.detail == tuple(whole.splitlines()[1:]), (verdict.detail, whole)
    return verdict.reason, whole


@pytest.mark.parametrize(
    ("plant", "invariant_id", "change"),
    [
        ("avgdl-over-live", "STAT-001", r"\S+::\d+ +score \d\.\d{3,} -> \d\.\d{3,}"),
        ("freshness-edge-inclusive", "PRE-006", r"\S+::\d+ +removed: rank \d+ -> none"),
    ],
)
def test_a_planted_defect_reads_as_a_diff(plant: str, invariant_id: str, change: str) -> None:
    reason, whole = _full_reason(plant, invariant_id)
    assert "->" in reason, reason
    assert "..." not in whole, whole
    first, question, *lines = whole.splitlines()
    assert reason.startswith(first), (reason, first)
    assert re.search(r"' asked by \S+ \(.*\) at tick \d+: ", question), question
    assert lines, whole
    assert all(line.startswith("  ") for line in lines), lines
    assert any(re.fullmatch(r"  " + change, line) for line in lines), lines
    assert "((" not in whole, whole  # no raw tuple of an answer


def test_a_tie_out_of_order_names_ranks_scores_and_the_question() -> None:
    reason, whole = _full_reason("ties-by-row", "DET-001")
    assert re.fullmatch(
        r"identical chunks '\S+' and '\S+' out of id order \(ranks \d+ and \d+\)", reason
    )
    first, question, *lines = whole.splitlines()
    assert first == reason
    assert " asked by u" in question, question
    assert len(lines) == 2, lines
    assert all(re.fullmatch(r"  \S+ +rank \d+, score [0-9.e-]+", line) for line in lines), lines


class _DepthScoresDoubled(ReferenceSystem):
    """Lexical only; every score under limits counted in documents doubled."""

    capabilities = dc_replace(ReferenceSystem.capabilities, modes=("lexical",))

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        result = super().retrieve(query, asker, now_tick, policy)
        if policy.limit_unit != "documents":
            return result
        return dc_replace(result, hits=tuple(dc_replace(h, score=2 * h.score) for h in result.hits))


class _FloorDropsBest(ReferenceSystem):
    """Under a rerank floor set near the scores, the best hit is left out."""

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        result = super().retrieve(query, asker, now_tick, policy)
        if not policy.rerank or policy.rerank_min_score < -1e6:
            return result
        return dc_replace(result, hits=result.hits[1:])


@pytest.mark.parametrize(
    ("factory", "invariant_id", "reason", "lines"),
    [
        (
            FACTORIES["fusion-reads-result-limit"],
            "FUS-004",
            r"hybrid answer vs the (rrf|minmax|zscore) fusion of the lexical and dense answers"
            r"( \(its first \d+\))?: \S+ .*",
            [r"'.*' asked by .*: hybrid, rerank off, .*; lexical \[.*\], dense \[.*\]"],
        ),
        (
            _FloorDropsBest,
            "FUS-006",
            r"hits with the floor on a rerank score \(\S+\) vs those above it under a floor "
            r"far below: \S+ removed: rank 1 -> none( \(\+\d+ more\))?",
            [r"'.*' asked by .*: \w+, rerank on, .*rerank_min_score .*", r"  \S+ +removed: .*"],
        ),
        (
            FACTORIES["rrf-sum-in-order"],
            "FUS-002",
            r"fuse of the rankings listed in order \[[0-9, ]+\]: \S+ score \S+ -> \S+",
            [r"fuse of \d+ rankings at k=\S+", r"  \S+ +score \S+ -> \S+"],
        ),
        (
            FACTORIES["grounding-ties-by-order"],
            "GRD-004",
            r"reordering the retrieved hits changed the verdicts: claim .* -> .*",
            [r"\d+ claims grounded at min_overlap=\S+ against \[.*\], then against \[.*\]"],
        ),
        (
            BROKEN["double-counted"][0],
            "PRE-003",
            r"counts after adding \d+ hidden and \d+ stale one-chunk matching documents "
            r"\(\d+ of other tenants\): \S+ \d+ -> \d+ \([+-]\d+\), expected (at most )?[+-]\d+",
            [r"'.*' asked by .*", r"  \S+ +\d+ -> \d+ \([+-]\d+\), expected .*"],
        ),
        (
            BROKEN["double-counted"][0],
            "PRE-002",
            r"eligible matches after adding .* outside the view: eligible \(considered - "
            r"excluded\) -?\d+ -> -?\d+( \(\+\d+ more\))?",
            [r"'.*' asked by .*", r"  eligible \(considered - excluded\)  -?\d+ -> -?\d+"],
        ),
        (
            _DepthScoresDoubled,
            "DEPTH-001",
            r"lexical hits at document depth \d+ vs the wide ranking cut there: "
            r"\S+ score \S+ -> \S+( \(\+\d+ more\))?",
            [r"'.*' asked by .*: lexical, .*limits in documents.*", r"  \S+ +score \S+ -> \S+"],
        ),
    ],
)
def test_comparisons_of_two_answers_read_as_diffs(
    factory: Any, invariant_id: str, reason: str, lines: list[str]
) -> None:
    """Fused rankings, grounding verdicts, audit counts and document-depth answers compared
    read as the same aligned diff: no raw tuple, no record repr, no "became"."""
    verdict = run_invariant(REGISTRY[invariant_id], factory, shrink=False)
    assert verdict.status == "fail", verdict.reason
    assert re.fullmatch(reason, verdict.reason), verdict.reason
    for pattern, line in zip(lines, verdict.detail, strict=False):
        assert re.fullmatch(pattern, line), (pattern, verdict.detail)
    whole = "\n".join((verdict.reason, *verdict.detail))
    for raw in ("((", "Support(", "Hit(", "Policy(", "became"):
        assert raw not in whole, whole
