"""Retail tenant: hardship case notes HRD-51xx, built from a parameter table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from tidewater.model import DocSpec, FactInfo, QuerySpec, ask, doc
from tidewater.people import R_HEAD, R_SPECIALIST

T = "retail"


class Hardship(NamedTuple):
    number: int
    customer: str
    product: str
    contact: str
    reason: str
    situation: str
    arrears: str
    wrong_arrears: str
    surplus: str
    specialist: str
    versions: tuple[tuple[int, Mapping[str, str]], ...]
    wrong_plan: str
    question: str


def _plan(tick: int, plan: str, review: str) -> tuple[int, Mapping[str, str]]:
    return (tick, {"plan": plan, "review": review})


CASES: tuple[Hardship, ...] = (
    Hardship(
        5101,
        "C-204117",
        "credit card",
        "2026-04-02",
        "redundancy",
        "The customer was made redundant from a warehouse job in March and expects to find "
        "work within six months.",
        "GBP 640",
        "GBP 460",
        "GBP 95",
        "Fiona Gallagher",
        (
            _plan(
                720,
                "A reduced payment plan of GBP 90 a month for 6 months was agreed.",
                "2026-07-15",
            ),
            _plan(
                880,
                "A reduced payment plan of GBP 60 a month for 9 months was agreed, "
                "with interest and fees frozen.",
                "2026-08-14",
            ),
        ),
        "A payment holiday of 3 months was agreed.",
        "what support did we give the card customer who lost their warehouse job",
    ),
    Hardship(
        5102,
        "C-211984",
        "personal loan",
        "2026-03-20",
        "serious illness",
        "The customer is having treatment for cancer and is on statutory sick pay.",
        "GBP 1,210",
        "GBP 2,110",
        "GBP 0",
        "Dev Patel",
        (
            _plan(
                705,
                "A payment holiday of 2 months was agreed and a Customer Needs flag "
                "was recorded with consent.",
                "2026-05-20",
            ),
        ),
        "A reduced payment plan of GBP 150 a month for 12 months was agreed.",
        "loan customer on sick pay during cancer treatment payment holiday",
    ),
    Hardship(
        5103,
        "C-198430",
        "mortgage",
        "2026-02-11",
        "reduced working hours",
        "The customer's employer cut their hours by a third for at least six months.",
        "GBP 2,870",
        "GBP 8,270",
        "GBP 210",
        "Rhiannon Evans",
        (_plan(660, "A switch to interest-only payments for 6 months was agreed.", "2026-08-11"),),
        "The arrears were added to the mortgage balance straight away.",
        "mortgage borrower whose hours were cut - what forbearance was agreed",
    ),
    Hardship(
        5104,
        "C-220556",
        "arranged overdraft",
        "2026-04-18",
        "bereavement",
        "The customer's partner died in April and household income has halved.",
        "GBP 1,450",
        "GBP 4,150",
        "GBP 40",
        "Fiona Gallagher",
        (
            _plan(
                760,
                "Overdraft interest was refunded for April and frozen for 3 months.",
                "2026-07-18",
            ),
        ),
        "Overdraft interest was refunded for April and frozen for 12 months.",
        "widowed customer overdraft interest refund",
    ),
    Hardship(
        5105,
        "C-207731",
        "credit card",
        "2026-03-03",
        "flood damage",
        "The customer's home was flooded in February and they are living with relatives.",
        "GBP 310",
        "GBP 130",
        "GBP 55",
        "Tom Akande",
        (
            _plan(
                650,
                "Card payments were deferred for 3 months under the flood relief "
                "scheme, with no late fees.",
                "2026-06-03",
            ),
        ),
        "Card payments were deferred for 6 months under the flood relief scheme.",
        "what did we offer the customer whose house flooded",
    ),
    Hardship(
        5106,
        "C-215002",
        "personal loan",
        "2026-04-27",
        "a mental health crisis",
        "A mental health crisis breathing space notice was received from the customer's "
        "approved mental health professional.",
        "GBP 455",
        "GBP 545",
        "GBP 0",
        "Dev Patel",
        (
            _plan(
                800,
                "All collections contact was stopped and interest and fees were frozen "
                "for the length of the crisis breathing space.",
                "2026-07-27",
            ),
        ),
        "Collections contact continued but interest was frozen for 60 days.",
        "HRD-5106",
    ),
    Hardship(
        5107,
        "C-193388",
        "credit card",
        "2026-01-29",
        "a terminal illness",
        "The customer has a terminal diagnosis and asked us to deal with their daughter, "
        "who holds a lasting power of attorney.",
        "GBP 1,480",
        "GBP 4,180",
        "GBP 0",
        "Rhiannon Evans",
        (
            _plan(
                630,
                "The arrears of GBP 1,480 were written off and the card was closed at "
                "the customer's request.",
                "2026-04-29",
            ),
        ),
        "The arrears of GBP 1,480 were moved to a reduced payment plan of GBP 20 a month.",
        "card arrears write off terminal diagnosis power of attorney",
    ),
    Hardship(
        5108,
        "C-224871",
        "mortgage",
        "2026-04-09",
        "divorce",
        "The customer is divorcing and is now paying the mortgage alone.",
        "GBP 1,980",
        "GBP 9,180",
        "GBP 120",
        "Rhiannon Evans",
        (
            _plan(
                790,
                "A term extension is being assessed by the mortgage underwriters.",
                "2026-05-09",
            ),
            _plan(
                915,
                "The mortgage term was extended by 5 years, reducing the monthly "
                "payment by GBP 210.",
                "2026-10-09",
            ),
        ),
        "The mortgage term was extended by 10 years, reducing the monthly payment by GBP 410.",
        "HRD-5108 term extension",
    ),
    Hardship(
        5109,
        "C-202219",
        "personal loan",
        "2026-02-24",
        "a fall in self-employed income",
        "The customer is a self-employed electrician whose work dropped sharply over the winter.",
        "GBP 720",
        "GBP 270",
        "GBP 130",
        "Tom Akande",
        (
            _plan(
                700,
                "A reduced payment plan of GBP 150 a month for 12 months was agreed.",
                "2026-05-24",
            ),
            _plan(
                870,
                "A reduced payment plan of GBP 120 a month for 12 months was agreed.",
                "2026-08-24",
            ),
        ),
        "A reduced payment plan of GBP 220 a month for 12 months was agreed.",
        "how much is the self-employed electrician paying on his loan now",
    ),
    Hardship(
        5110,
        "C-218640",
        "credit card",
        "2026-05-06",
        "gambling-related harm",
        "The customer told us they have a gambling problem and asked for help to stop.",
        "GBP 890",
        "GBP 980",
        "GBP 45",
        "Fiona Gallagher",
        (
            _plan(
                835,
                "Gambling transactions were blocked on the card and a reduced payment "
                "plan of GBP 40 a month was agreed.",
                "2026-08-06",
            ),
        ),
        "The card was closed and the full balance was demanded within 30 days.",
        "customer with a gambling problem card block",
    ),
)


def _lower(sentence: str) -> str:
    return sentence[0].lower() + sentence[1:]


def _doc(h: Hardship) -> DocSpec:
    key = f"h{h.number}"
    opening = (
        f"Case HRD-{h.number}: customer {h.customer} contacted us on {h.contact} about their "
        f"{h.product} because of {h.reason}.",
        f"On {h.contact} customer {h.customer} asked for help with their {h.product} "
        f"following {h.reason} (case HRD-{h.number}).",
    )[h.number % 2]
    source = f"""
## Case HRD-{h.number}
{opening} {h.situation}

## Assessment
[[{key}-arrears|When we spoke to customer {h.customer}, the {h.product} was {h.arrears} in
arrears.]] The income and expenditure assessment shows a monthly surplus of {h.surplus}.

## Support agreed
[[{key}-plan|For customer {h.customer}, {{plan}}]]

## Next steps
The case will be reviewed on {{review}} by {h.specialist}, hardship specialist.
"""
    facts = {
        f"{key}-arrears": FactInfo(
            f"Customer {h.customer} was {h.arrears} behind on the {h.product} when they got in "
            "touch.",
            f"When we spoke to customer {h.customer}, the {h.product} was {h.wrong_arrears} in "
            "arrears.",
            f"How far behind was customer {h.customer}?",
            private=True,
        ),
        f"{key}-plan": FactInfo(
            None,
            f"For customer {h.customer}, {_lower(h.wrong_plan)}",
            f"What was agreed in hardship case HRD-{h.number}?",
            private=True,
        ),
    }
    versions = tuple(
        (tick, {**values, "plan": _lower(values["plan"])}) for tick, values in h.versions
    )
    return doc(
        T,
        f"hrd-{h.number}",
        f"Hardship case HRD-{h.number}",
        "confidential",
        source,
        versions=versions,
        doc_type="hardship-case",
        facts=facts,
    )


DOCS: list[DocSpec] = [_doc(h) for h in CASES]

_POLICY: dict[str, str] = {
    "5101": "proc-reduced-payment-plan",
    "5102": "proc-payment-holiday",
    "5103": "proc-mortgage-forbearance",
    "5105": "proc-flood-relief-2026",
    "5106": "proc-breathing-space",
    "5107": "proc-hardship-authorities",
    "5108": "proc-mortgage-forbearance",
    "5109": "proc-reduced-payment-plan",
}


_KINDS: dict[int, str] = {
    5101: "paraphrase",
    5102: "keyword",
    5103: "paraphrase",
    5104: "keyword",
    5105: "paraphrase",
    5106: "id",
    5107: "keyword",
    5108: "id",
    5109: "paraphrase",
    5110: "keyword",
}


def _query(h: Hardship) -> QuerySpec:
    judged = {f"hrd-{h.number}": 2}
    related = _POLICY.get(str(h.number))
    if related and h.question != f"HRD-{h.number}":  # a bare reference asks for the case only
        judged[related] = 1
    kind = _KINDS[h.number]
    asker = R_HEAD if h.number % 3 == 0 else R_SPECIALIST
    return ask(h.question, asker, judged, kind=kind)


QUERIES: list[QuerySpec] = [_query(h) for h in CASES]
