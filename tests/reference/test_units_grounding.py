"""Hand-worked grounding: which retrieved chunk supports which claim, and why."""

from __future__ import annotations

import pytest

from ragward.reference import (
    AuthorizedRetriever,
    Claim,
    ReferenceAsker,
    ReferenceDoc,
    ScoredChunk,
    check_grounding,
    chunk_document,
)

from .hand_made import made_hit

# -- Grounding -------------------------------------------------------------------------

FREEZE_POLICY = """## Frozen transfers
A transfer stopped by the watch-list filter stays frozen until an analyst clears the alert
and signs the case file. Transfers above EUR 50,000 need sign-off from two Treasury
Operations officers.

## Escalation
A name match of 0.85 or higher goes to the Financial Crime desk before any release.
"""

TRANSFER_RECORD = """## Transfer TRF-3318
Transfer TRF-3318 of EUR 84,500 to Halden Marine Services is currently FROZEN. The
watch-list filter stopped it at the 14:00 cut-off on 2025-11-04.

## Beneficiary
Halden Marine Services is a shipping agent registered in Bergen, company number
918404772, owned by Skarv Shipping Group.
"""

KESTREL_NOTE = """## Project Kestrel
Project Kestrel is a private buyer's planned takeover of Halden Marine Services. Signing
is expected in the spring; nothing about it may leave the deal team.
"""

POLICY_DOC = ReferenceDoc(
    "pol-frozen", "corporate", "Frozen transfers", FREEZE_POLICY, updated_tick=100
)
RECORD_DOC = ReferenceDoc(
    "trf-3318",
    "corporate",
    "Transfer TRF-3318",
    TRANSFER_RECORD,
    classification="confidential",
    updated_tick=140,
)
DEAL_DOC = ReferenceDoc(
    "deal-kestrel",
    "corporate",
    "Project Kestrel",
    KESTREL_NOTE,
    classification="restricted",
    barrier="deal-team",
    updated_tick=150,
)

FROZEN = Claim("Transfer TRF-3318 of EUR 84,500 to Halden Marine Services is currently FROZEN")
SIGN_OFF = Claim("Transfers above EUR 50,000 need sign-off from two Treasury Operations officers")
INVENTED = Claim("The cardholder was informed by telephone")
ACQUIRED = Claim("Halden Marine Services was acquired")
KESTREL = Claim("Project Kestrel is a planned takeover of Halden Marine Services")


def _span(text: str, first: str, last: str) -> tuple[int, int]:
    """Offsets in ``text`` from the start of ``first`` to the end of ``last``."""
    start = text.index(first)
    return start, text.index(last, start) + len(last)


def _evidence() -> list[ScoredChunk]:
    chunks = chunk_document(POLICY_DOC) + chunk_document(RECORD_DOC)
    return [ScoredChunk(c, 1.0) for c in chunks]


def test_grounding_worked_example() -> None:
    report = check_grounding([FROZEN, SIGN_OFF, INVENTED, ACQUIRED], _evidence())
    frozen = _span(TRANSFER_RECORD, "Transfer TRF-3318 of", "2025-11-04.")
    sign_off = _span(FREEZE_POLICY, "A transfer stopped", "Operations officers.")
    assert frozen == (21, 168)
    assert report.supported == (
        Claim(FROZEN.text, f"trf-3318@v1#Transfer TRF-3318[{frozen[0]}:{frozen[1]}]"),
        Claim(SIGN_OFF.text, f"pol-frozen@v1#Frozen transfers[{sign_off[0]}:{sign_off[1]}]"),
        # halden, marine, services of {halden, marine, services, acquired}: 3/4 = 0.75 >=
        # 0.6, and a tie between trf-3318::1 and trf-3318::2 -> the smaller chunk_id
        Claim(ACQUIRED.text, f"trf-3318@v1#Transfer TRF-3318[{frozen[0]}:{frozen[1]}]"),
    )
    assert report.unsupported == (INVENTED,)
    assert not report.is_grounded
    assert report.coverage == 3 / 4
    overlaps = {check.claim.text: (check.overlap, check.chunk_id) for check in report.checks}
    assert overlaps == {
        # transfer, trf-3318, eur, 84, 500, halden, marine, services, currently, frozen: 10/10
        FROZEN.text: (1.0, "trf-3318::1"),
        # transfers, above, eur, 50, 000, need, sign-off, two, treasury, operations,
        # officers: 11/11
        SIGN_OFF.text: (1.0, "pol-frozen::1"),
        # cardholder, informed, telephone: none retrieved
        INVENTED.text: (0.0, None),
        ACQUIRED.text: (0.75, "trf-3318::1"),
    }


def test_grounding_threshold() -> None:
    strict = check_grounding([ACQUIRED], _evidence(), min_overlap=0.8)
    assert strict.supported == ()
    assert strict.unsupported == (ACQUIRED,)
    assert strict.checks[0].overlap == 0.75
    exact = check_grounding([ACQUIRED], _evidence(), min_overlap=0.75)
    assert [c.text for c in exact.supported] == [ACQUIRED.text]


def test_grounding_unretrieved_chunk_supports_nothing() -> None:
    record_only = [ScoredChunk(c, 1.0) for c in chunk_document(RECORD_DOC)]
    report = check_grounding([SIGN_OFF, FROZEN], record_only)
    assert report.unsupported == (SIGN_OFF,)  # only the policy chunk backs it
    assert [c.text for c in report.supported] == [FROZEN.text]
    assert report.checks[0].overlap == pytest.approx(1 / 11)  # eur


def test_grounding_claim_only_an_invisible_chunk_supports_stays_unsupported() -> None:
    retriever = AuthorizedRetriever()
    for doc in (POLICY_DOC, RECORD_DOC, DEAL_DOC):
        retriever.ingest(doc)
    query = "Halden Marine Services takeover Project Kestrel"
    outside = ReferenceAsker("c-311", "corporate", max_classification="restricted")
    inside = ReferenceAsker("c-312", "corporate", "restricted", barriers=("deal-team",))
    seen = retriever.retrieve(query, outside)
    assert seen.chunks
    assert all(s.chunk.doc_id != "deal-kestrel" for s in seen.chunks)
    blocked = check_grounding([KESTREL], seen.chunks)
    # the record's chunks share halden, marine, services of 7 content words: 3/7 < 0.6
    assert blocked.unsupported == (KESTREL,)
    assert blocked.checks[0].overlap == pytest.approx(3 / 7)
    allowed = check_grounding([KESTREL], retriever.retrieve(query, inside).chunks)
    kestrel = _span(KESTREL_NOTE, "Project Kestrel is", "deal team.")
    assert allowed.supported == (
        Claim(KESTREL.text, f"deal-kestrel@v1#Project Kestrel[{kestrel[0]}:{kestrel[1]}]"),
    )


def test_grounding_ties_go_to_the_smaller_chunk_id_whatever_the_order() -> None:
    twins = [
        made_hit("b::1", 9.0, "dual control release"),
        made_hit("a::7", 1.0, "release dual control"),
    ]
    claim = Claim("dual control on release")
    for retrieved in (twins, twins[::-1]):
        report = check_grounding([claim], retrieved)
        assert report.supported == (Claim(claim.text, "a@v1#body[0:20]"),)
        assert report.checks[0].chunk_id == "a::7"
    # string order of ids, as in every ranking: "d::10" < "d::9"
    tens = [made_hit("d::9", 1.0, "alpha beta"), made_hit("d::10", 1.0, "beta alpha")]
    for retrieved in (tens, tens[::-1]):
        assert check_grounding([Claim("alpha beta")], retrieved).checks[0].chunk_id == "d::10"


def test_grounding_prefers_higher_overlap_over_smaller_id() -> None:
    retrieved = [made_hit("a::1", 1.0, "alpha"), made_hit("z::1", 1.0, "alpha beta gamma")]
    report = check_grounding([Claim("alpha beta gamma")], retrieved)
    assert report.checks[0].chunk_id == "z::1"
    assert report.checks[0].overlap == 1.0


def test_grounding_stopword_only_claim_is_unsupported() -> None:
    pure = Claim("It is as it was, and that has been")
    report = check_grounding([pure], [made_hit("a::1", 1.0, "it is as it was and that has been")])
    assert report.unsupported == (pure,)
    assert report.supported == ()
    assert report.checks[0].overlap == 0.0
    assert report.coverage == 0.0


def test_grounding_coverage() -> None:
    assert check_grounding([], []).coverage == 1.0
    assert check_grounding([], []).is_grounded
    evidence = [made_hit("a::1", 1.0, "alpha beta gamma")]
    claims = [Claim("alpha beta"), Claim("gamma"), Claim("delta"), Claim("alpha delta zeta")]
    report = check_grounding(claims, evidence)
    # 2/2, 1/1, 0/1, 1/3 -> two supported of four
    assert report.coverage == 2 / 4
    assert [c.text for c in report.unsupported] == ["delta", "alpha delta zeta"]
    assert all(c.citation is None for c in report.unsupported)
