"""Wholesale tenant: client due diligence profiles and customer screening alerts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from tidewater.model import DocSpec, FactInfo, QuerySpec, ask, doc
from tidewater.people import W_HEAD, W_OFFICER, W_RM

T = "wholesale"


class Profile(NamedTuple):
    slug: str
    name: str
    business: str
    country: str
    year: str
    volume: str
    corridors: str
    review: str
    versions: tuple[tuple[int, Mapping[str, str]], ...]
    wrong_risk: str


def _v(tick: int, rm: str, risk: str, why: str) -> tuple[int, Mapping[str, str]]:
    return (tick, {"rm": rm, "risk": risk, "why": why})


PROFILES: tuple[Profile, ...] = (
    Profile(
        "northgate",
        "Northgate Holdings Ltd",
        "investment holding company with trading subsidiaries in the Gulf",
        "England",
        "1998",
        "GBP 18 million",
        "the UAE and Oman",
        "2026-09-30",
        (
            _v(380, "Oliver Grant", "medium", "because of its Gulf trading subsidiaries"),
            _v(760, "Sofia Marin", "medium", "because of its Gulf trading subsidiaries"),
        ),
        "low",
    ),
    Profile(
        "almond",
        "Almond Grove Foods plc",
        "listed food importer",
        "England",
        "1987",
        "GBP 9 million",
        "West Africa and the Balkans",
        "2027-01-31",
        (_v(420, "Sofia Marin", "low", "as a listed company with simple ownership"),),
        "high",
    ),
    Profile(
        "castlemere",
        "Castlemere Shipping Ltd",
        "ship owner and operator of eleven bulk carriers",
        "Cyprus",
        "2004",
        "USD 22 million",
        "Greece, Singapore and the Baltic states",
        "2026-08-15",
        (
            _v(300, "James Whitfield", "low", "with a clean screening history"),
            _v(
                770,
                "James Whitfield",
                "medium",
                "after repeated payments to a beneficiary later named in a sanctions case",
            ),
        ),
        "high",
    ),
    Profile(
        "brightwater",
        "Brightwater Chemicals AG",
        "speciality chemicals manufacturer",
        "Switzerland",
        "1972",
        "EUR 14 million",
        "Hong Kong, Chile and Azerbaijan",
        "2026-07-01",
        (
            _v(350, "Anna Keller", "medium", "because some of its products are dual-use"),
            _v(
                655,
                "Anna Keller",
                "high",
                "after a rejected payment for controlled dual-use solvents",
            ),
        ),
        "low",
    ),
    Profile(
        "seacrest",
        "Seacrest Commodities DMCC",
        "metals and energy trading house",
        "the UAE",
        "2011",
        "USD 35 million",
        "Central Asia and the Caucasus",
        "2026-06-30",
        (
            _v(400, "Karim Nasser", "medium", "because of its trading corridors"),
            _v(610, "Karim Nasser", "high", "after a director was escalated on a UN list match"),
        ),
        "low",
    ),
    Profile(
        "halden",
        "Halden Aerospace Components",
        "maker of aircraft hydraulic parts",
        "Norway",
        "1993",
        "NOK 60 million",
        "the UAE and Singapore",
        "2026-11-30",
        (_v(480, "Ingrid Dahl", "high", "because its products are subject to export controls"),),
        "low",
    ),
    Profile(
        "orion",
        "Orion Pharma Distribution",
        "pharmaceutical wholesaler",
        "Ireland",
        "2009",
        "EUR 6 million",
        "the Gulf and East Africa",
        "2026-12-31",
        (_v(500, "Sofia Marin", "medium", "because it ships to higher-risk countries"),),
        "low",
    ),
    Profile(
        "valemont",
        "Valemont Steel",
        "steel stockholder",
        "Belgium",
        "1965",
        "EUR 27 million",
        "Iraq, the UAE and Kazakhstan",
        "2026-10-15",
        (_v(455, "James Whitfield", "medium", "because of its export markets"),),
        "high",
    ),
    Profile(
        "pennant",
        "Pennant Textiles",
        "textile manufacturer",
        "Portugal",
        "1979",
        "EUR 4 million",
        "Türkiye and Cyprus",
        "2027-03-31",
        (_v(515, "Anna Keller", "low", "with a long and clean payment history"),),
        "high",
    ),
    Profile(
        "larkspur",
        "Larkspur Energy Trading",
        "physical oil products trader",
        "Singapore",
        "2015",
        "USD 48 million",
        "Singapore, Hong Kong and the Gulf",
        "2026-07-31",
        (_v(530, "Karim Nasser", "high", "because of bunkering and ship-to-ship transfer risk"),),
        "low",
    ),
)


def _profile_doc(p: Profile, index: int) -> DocSpec:
    key = f"k{p.slug}"
    opening = (
        f"{p.name} is a {p.business}, incorporated in {p.country} in {p.year}.",
        f"Client: {p.name}, a {p.business} founded in {p.country} in {p.year}.",
    )[index % 2]
    source = f"""
## Client
{opening} [[{key}-rm|The relationship manager for {p.name} is {{rm}}.]]

## Risk assessment
[[{key}-risk|{p.name} is rated {{risk}} risk for financial crime {{why}}.]] Enhanced due
diligence applies to every client rated high.

## Expected activity
[[{key}-activity|Expected activity for {p.name} is about {p.volume} a month, mainly to
{p.corridors}.]]
Activity more than 50 percent above the expected level for two months running triggers a
review by the relationship manager.

## Review
The next periodic review of {p.name} is due on {p.review}.
"""
    current = p.versions[-1][1]
    facts = {
        f"{key}-rm": FactInfo(
            f"{{rm}} looks after the {p.name} relationship.",
            f"The relationship manager for {p.name} is "
            f"{'Karim Nasser' if current['rm'] != 'Karim Nasser' else 'Sofia Marin'}.",
            f"Who is the relationship manager for {p.name}?",
            private=True,
        ),
        f"{key}-risk": FactInfo(
            f"Our financial crime risk rating for {p.name} is {{risk}}.",
            f"{p.name} is rated {p.wrong_risk} risk for financial crime {{why}}.",
            f"What financial crime risk rating does {p.name} have?",
            private=True,
        ),
        f"{key}-activity": FactInfo(
            f"{p.name} is expected to move roughly {p.volume} per month, mostly to {p.corridors}.",
            None,
            f"How much does {p.name} normally pay out each month?",
            private=True,
        ),
    }
    return doc(
        T,
        f"kyc-{p.slug}",
        f"Client due diligence profile: {p.name}",
        "confidential",
        source,
        versions=p.versions,
        doc_type="client-profile",
        facts=facts,
    )


class Alert(NamedTuple):
    number: int
    subject: str
    relation: str
    client: str
    listname: str
    hit: str
    score: str
    date: str
    assessment: str
    disposition: str
    wrong: str
    analyst: str
    classification: str
    tick: int


ALERTS: tuple[Alert, ...] = (
    Alert(
        8801,
        "Viktor Halloran",
        "ultimate beneficial owner",
        "Northgate Holdings Ltd",
        "OFAC SDN",
        "Viktor Hallorin",
        "0.86",
        "2026-02-03",
        "The listed person was born in 1974 and is a Belarusian national; our client's owner "
        "was born in 1961 and holds Irish and British passports.",
        "was closed as a false positive on 2026-02-04.",
        "was escalated to Group Compliance on 2026-02-04.",
        "Mei Chen",
        "confidential",
        560,
    ),
    Alert(
        8802,
        "Farid Al-Mansouri",
        "director",
        "Seacrest Commodities DMCC",
        "UN Consolidated",
        "Farid Al Mansoori",
        "0.91",
        "2026-02-19",
        "Date of birth and nationality match the listing; the passport number could not be "
        "verified.",
        "was escalated to Group Compliance on 2026-02-20 and the client was re-rated high risk.",
        "was closed as a false positive on 2026-02-20.",
        "Omar Haddad",
        "restricted",
        600,
    ),
    Alert(
        8803,
        "CASTLEMERE DAWN",
        "vessel",
        "Castlemere Shipping Ltd",
        "OFAC SDN",
        "CASTLE DAWN",
        "0.83",
        "2026-01-22",
        "The listed vessel has IMO 9187342; the client's vessel has IMO 9412276 and a "
        "different flag.",
        "was closed as a false positive on 2026-01-22.",
        "was escalated to Group Compliance on 2026-01-22.",
        "Grace Mbeki",
        "confidential",
        520,
    ),
    Alert(
        8804,
        "Elena Vasquez-Moreau",
        "ultimate beneficial owner",
        "Valemont Steel",
        "EU Consolidated",
        "Elena Vasquez",
        "0.80",
        "2026-03-02",
        "The listed person is a Venezuelan official; our client's owner is a Belgian citizen "
        "born in Liège with no public role.",
        "was closed as a false positive on 2026-03-03.",
        "was escalated to Group Compliance on 2026-03-03.",
        "Tomasz Nowak",
        "confidential",
        615,
    ),
    Alert(
        8805,
        "Larkspur Energy Trading",
        "client entity",
        "Larkspur Energy Trading",
        "UK HMT",
        "Larkspur Petroleum Trading",
        "0.84",
        "2026-03-09",
        "The listed company is registered in the Marshall Islands; our client is registered "
        "in Singapore under a different UEN and has different directors.",
        "was closed as a false positive on 2026-03-10.",
        "remains open pending documents from the client.",
        "Lucas Ferreira",
        "confidential",
        628,
    ),
    Alert(
        8806,
        "Klaus Brenner",
        "director",
        "Brightwater Chemicals AG",
        "internal watchlist",
        "Klaus Brenner",
        "1.00",
        "2026-03-16",
        "The watchlist entry records adverse media about a 2019 export control fine imposed "
        "on a previous employer of this director.",
        "was confirmed as a true match and referred to Financial Crime Compliance for enhanced due "
        "diligence on 2026-03-17.",
        "was closed as a false positive on 2026-03-17.",
        "Aisha Rahman",
        "confidential",
        642,
    ),
    Alert(
        8807,
        "Halden Aerospace Components",
        "client entity",
        "Halden Aerospace Components",
        "internal watchlist",
        "Halden Aero Components",
        "0.92",
        "2026-03-27",
        "The watchlist entry was created by Trade Compliance after a shipment of hydraulic "
        "actuators was diverted to a third country in 2025.",
        "was escalated to Group Compliance on 2026-03-28 and new payments need "
        "Trade Compliance approval.",
        "was closed as a false positive on 2026-03-28.",
        "Rajiv Menon",
        "restricted",
        666,
    ),
    Alert(
        8808,
        "Samir Haddad",
        "ultimate beneficial owner",
        "Orion Pharma Distribution",
        "OFAC SDN",
        "Samir Hadad",
        "0.88",
        "2026-04-01",
        "The listed person was born in 1958 in Damascus; our client's owner was born in 1980 "
        "in Dublin.",
        "was closed as a false positive on 2026-04-01.",
        "was escalated to Group Compliance on 2026-04-01.",
        "Hannah Lindqvist",
        "confidential",
        682,
    ),
    Alert(
        8809,
        "Almond Grove Foods plc",
        "client entity",
        "Almond Grove Foods plc",
        "EU Consolidated",
        "Almond Grove Trading SRL",
        "0.81",
        "2026-04-10",
        "The listed company is a Moldovan trading firm with no link to our client, which is "
        "listed on the London Stock Exchange.",
        "was closed as a false positive on 2026-04-10.",
        "was escalated to Group Compliance on 2026-04-10.",
        "Mei Chen",
        "confidential",
        708,
    ),
    Alert(
        8810,
        "Li Wei",
        "director",
        "Pennant Textiles",
        "UN Consolidated",
        "Li Wei",
        "0.97",
        "2026-04-22",
        "The name is very common; the listed person's date of birth and nationality both "
        "differ from our client's director.",
        "was closed as a false positive on 2026-04-23.",
        "was confirmed as a true match and referred to Financial Crime Compliance on 2026-04-23.",
        "Tomasz Nowak",
        "confidential",
        748,
    ),
    Alert(
        8811,
        "Seacrest Commodities DMCC",
        "client entity",
        "Seacrest Commodities DMCC",
        "UK HMT",
        "Seacrest Commodities Ltd",
        "0.89",
        "2026-05-12",
        "The listed company shares the client's trading name but the registration numbers "
        "differ; the client has been asked for its shareholder register.",
        "remains open pending documents from the client.",
        "was closed as a false positive on 2026-05-13.",
        "Aisha Rahman",
        "confidential",
        818,
    ),
    Alert(
        8812,
        "Kestrel Marine Services",
        "payment beneficiary",
        "Castlemere Shipping Ltd",
        "OFAC SDN",
        "Kestrel Maritime Services",
        "0.91",
        "2026-03-19",
        "Counterparty screening linked to payment PMT-4103 found two vessels with IMO "
        "numbers named in the listing.",
        "was confirmed as a true match and referred to Group Compliance on 2026-03-23.",
        "was closed as a false positive on 2026-03-23.",
        "Grace Mbeki",
        "restricted",
        662,
    ),
)


def _alert_doc(a: Alert) -> DocSpec:
    key = f"s{a.number}"
    opening = (
        f"Periodic screening of {a.subject} ({a.relation} of {a.client}) on {a.date} raised "
        f'an alert against the {a.listname} entry "{a.hit}", score {a.score}.',
        f'On {a.date} the {a.listname} entry "{a.hit}" was matched to {a.subject}, the '
        f"{a.relation} of {a.client}, with a score of {a.score}.",
        f'Alert raised {a.date}: {a.subject} ({a.relation}, {a.client}) against "{a.hit}" on '
        f"the {a.listname} list, score {a.score}.",
    )[a.number % 3]
    source = f"""
## Alert SCR-{a.number}
{opening}

## Assessment
{a.assessment}

## Disposition
[[{key}-disp|Alert SCR-{a.number} on {a.subject} {a.disposition}]] Analyst: {a.analyst}.
"""
    facts = {
        f"{key}-disp": FactInfo(
            None,
            f"Alert SCR-{a.number} on {a.subject} {a.wrong}",
            f"What was the outcome of the screening alert on {a.subject}?",
            private=True,
        )
    }
    return doc(
        T,
        f"scr-{a.number}",
        f"Screening alert SCR-{a.number}: {a.subject}",
        a.classification,
        source,
        tick=a.tick,
        doc_type="screening-alert",
        facts=facts,
    )


DOCS: list[DocSpec] = [_profile_doc(p, i) for i, p in enumerate(PROFILES)] + [
    _alert_doc(a) for a in ALERTS
]


def _alert_query(a: Alert) -> QuerySpec:
    asker = W_HEAD if a.classification == "restricted" else W_OFFICER
    judged = {f"scr-{a.number}": 2}
    if a.number == 8802:  # the client's profile records the re-rating this alert caused
        judged["kyc-seacrest"] = 1
    texts = (
        f"SCR-{a.number}",
        f"Is {a.subject} a real match to {a.hit}?",
        f"{a.subject} {a.listname} alert outcome",
        f"what did screening conclude about the {a.relation} of {a.client}",
    )
    return ask(
        texts[a.number % 4],
        asker,
        judged,
        kind=("id", "question", "keyword", "paraphrase")[a.number % 4],
    )


def _profile_query(p: Profile, index: int) -> QuerySpec:
    asker = W_RM if index % 2 else W_OFFICER
    texts = (
        (f"who manages the {p.name} relationship", "question"),
        (f"{p.name} risk rating", "keyword"),
        (f"how much money does the {p.business} we bank normally move each month", "paraphrase"),
    )
    text, kind = texts[index % 3]
    return ask(text, asker, {f"kyc-{p.slug}": 2}, kind=kind)


QUERIES: list[QuerySpec] = [_alert_query(a) for a in ALERTS] + [
    _profile_query(p, i) for i, p in enumerate(PROFILES)
]
