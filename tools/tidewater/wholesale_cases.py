"""Wholesale tenant: payment case files PMT-41xx, built from a parameter table.

Several beneficiaries recur (near-duplicate case files), and eight cases change status
between versions, so the superseded status is a claim that was once true.
"""

from __future__ import annotations

from typing import NamedTuple

from tidewater.model import Asker, DocSpec, FactInfo, QuerySpec, ask, doc
from tidewater.people import W_HEAD, W_OFFICER, W_RM

T = "wholesale"


class Party(NamedTuple):
    name: str
    city: str
    country: str
    bank: str
    purpose: str
    descriptor: str


PARTIES: dict[str, Party] = {
    "acme": Party(
        "Acme Trading FZE",
        "Dubai",
        "UAE",
        "Gulf Meridian Bank",
        "steel pipes",
        "pipe trading house",
    ),
    "sahel": Party(
        "Sahel Agro SARL",
        "Dakar",
        "Senegal",
        "Banque Atlantique du Sahel",
        "cashew nuts",
        "West African agricultural exporter",
    ),
    "kestrel": Party(
        "Kestrel Marine Services",
        "Piraeus",
        "Greece",
        "Aegean Commercial Bank",
        "vessel charter hire",
        "Greek ship operator",
    ),
    "lotus": Party(
        "Golden Lotus Import Export Co",
        "Hong Kong",
        "China",
        "Pearl Delta Bank",
        "industrial solvents",
        "Hong Kong chemicals distributor",
    ),
    "caspian": Party(
        "Caspian Drilling Supplies",
        "Baku",
        "Azerbaijan",
        "Absheron Trade Bank",
        "drilling equipment spares",
        "oilfield equipment supplier in Baku",
    ),
    "zephyr": Party(
        "Zephyr Aviation Parts",
        "Sharjah",
        "UAE",
        "Gulf Meridian Bank",
        "aircraft landing gear parts",
        "aviation spares dealer in Sharjah",
    ),
    "redsea": Party(
        "Red Sea Freight Forwarders",
        "Jeddah",
        "Saudi Arabia",
        "Hijaz National Bank",
        "freight forwarding charges",
        "Jeddah freight agent",
    ),
    "tigris": Party(
        "Tigris Construction Materials",
        "Erbil",
        "Iraq",
        "Kurdistan Capital Bank",
        "reinforcing steel bar",
        "building materials supplier in northern Iraq",
    ),
    "karakum": Party(
        "Karakum Cotton Trading",
        "Istanbul",
        "Türkiye",
        "Bosphorus Merchant Bank",
        "raw cotton",
        "Istanbul cotton broker",
    ),
    "marlin": Party(
        "Marlin Bunkering Pte Ltd",
        "Singapore",
        "Singapore",
        "Straits Pacific Bank",
        "marine fuel",
        "Singapore bunker supplier",
    ),
    "adriatic": Party(
        "Adriatic Fresh Produce d.o.o.",
        "Split",
        "Croatia",
        "Dalmatian Savings Bank",
        "fresh fruit and vegetables",
        "Croatian produce wholesaler",
    ),
    "andes": Party(
        "Andes Copper Brokers SA",
        "Santiago",
        "Chile",
        "Banco del Pacífico Sur",
        "copper cathodes",
        "Chilean metals broker",
    ),
    "novaya": Party(
        "Novaya Logistics LLC",
        "Almaty",
        "Kazakhstan",
        "Steppe Commercial Bank",
        "rail freight services",
        "Kazakh rail logistics firm",
    ),
    "baltic": Party(
        "Baltic Timber OÜ",
        "Tallinn",
        "Estonia",
        "Baltic Coastal Bank",
        "sawn timber",
        "Estonian timber exporter",
    ),
    "nile": Party(
        "Blue Nile Medical Supplies",
        "Khartoum",
        "Sudan",
        "Omdurman Commercial Bank",
        "medical consumables",
        "Sudanese medical distributor",
    ),
    "meridian": Party(
        "Meridian Steel Trading FZE",
        "Jebel Ali",
        "UAE",
        "Gulf Meridian Bank",
        "hot-rolled coil",
        "Jebel Ali steel trader",
    ),
    "harbour": Party(
        "Harbourline Containers Ltd",
        "Limassol",
        "Cyprus",
        "Troodos Bank",
        "container leasing",
        "Cypriot container lessor",
    ),
}

HITS: dict[str, str] = {
    "acme": "Acme Trading Company LLC",
    "sahel": "Sahel Agro Industries",
    "kestrel": "Kestrel Maritime Services",
    "lotus": "Golden Lotus Trading",
    "caspian": "Caspian Drilling Services",
    "zephyr": "Zephyr Air Parts FZC",
    "redsea": "Red Sea Shipping Agency",
    "tigris": "Tigris Construction Group",
    "karakum": "Karakum Cotton Holding",
    "marlin": "MARLIN STAR (vessel)",
    "adriatic": "Adriatic Produce Export",
    "andes": "Andes Copper Brokerage",
    "novaya": "Novaya Logistika OOO",
    "baltic": "Baltic Timber Export",
    "nile": "Blue Nile Trading",
    "meridian": "Meridian Steel Co",
    "harbour": "Harbourline Container Lines",
}


#: How a banker would describe each remitting client without naming it.
CLIENT_KINDS: dict[str, str] = {
    "Northgate Holdings Ltd": "Gulf-focused holding company",
    "Almond Grove Foods plc": "listed food importer",
    "Castlemere Shipping Ltd": "bulk carrier owner",
    "Brightwater Chemicals AG": "Swiss chemicals maker",
    "Seacrest Commodities DMCC": "Dubai metals and energy trader",
    "Halden Aerospace Components": "Norwegian aircraft parts manufacturer",
    "Orion Pharma Distribution": "Irish drug wholesaler",
    "Valemont Steel": "Belgian steel stockholder",
    "Pennant Textiles": "Portuguese textile mill",
    "Larkspur Energy Trading": "Singapore oil trader",
}


class Step(NamedTuple):
    tick: int
    status: str  # held, released, rejected, escalated, blocked
    date: str = ""


class Case(NamedTuple):
    number: int
    client: str
    party: str
    ccy: str
    amount: str
    wrong_amount: str
    value_date: str
    listname: str
    score: str
    officer: str
    steps: tuple[Step, ...]
    classification: str
    reason: str


CASES: tuple[Case, ...] = (
    Case(
        4101,
        "Northgate Holdings Ltd",
        "acme",
        "AED",
        "250,000",
        "520,000",
        "2026-03-12",
        "OFAC SDN",
        "0.84",
        "Hannah Lindqvist",
        (Step(612, "held"), Step(668, "released", "2026-03-16")),
        "confidential",
        "The listed company is registered in Sharjah in 2019; the beneficiary was incorporated "
        "in Dubai in 2008 and its owners do not appear on any list.",
    ),
    Case(
        4102,
        "Almond Grove Foods plc",
        "sahel",
        "EUR",
        "86,400",
        "68,400",
        "2026-03-14",
        "EU Consolidated",
        "0.81",
        "Omar Haddad",
        (Step(620, "released", "2026-03-15"),),
        "confidential",
        "The listed entity is a Malian cooperative with a different address and no link to "
        "the beneficiary's directors.",
    ),
    Case(
        4103,
        "Castlemere Shipping Ltd",
        "kestrel",
        "USD",
        "1,240,000",
        "1,420,000",
        "2026-03-18",
        "OFAC SDN",
        "0.91",
        "Grace Mbeki",
        (
            Step(630, "held"),
            Step(660, "escalated", "2026-03-23"),
            Step(760, "blocked", "2026-04-20"),
        ),
        "restricted",
        "Two of the beneficiary's vessels share IMO numbers with ships named in the listing.",
    ),
    Case(
        4104,
        "Brightwater Chemicals AG",
        "lotus",
        "USD",
        "318,750",
        "381,750",
        "2026-03-19",
        "UK HMT",
        "0.83",
        "Tomasz Nowak",
        (Step(640, "rejected", "2026-03-20"),),
        "confidential",
        "Trade Compliance found that the solvents are controlled dual-use chemicals and no "
        "export licence was provided.",
    ),
    Case(
        4105,
        "Seacrest Commodities DMCC",
        "caspian",
        "USD",
        "742,000",
        "472,000",
        "2026-03-21",
        "EU Consolidated",
        "0.82",
        "Aisha Rahman",
        (Step(646, "held"), Step(690, "released", "2026-03-30")),
        "confidential",
        "The listed company was dissolved in 2017 and shares neither address nor directors "
        "with the beneficiary.",
    ),
    Case(
        4106,
        "Halden Aerospace Components",
        "zephyr",
        "AED",
        "1,870,000",
        "1,780,000",
        "2026-03-24",
        "OFAC SDN",
        "0.93",
        "Lucas Ferreira",
        (Step(650, "escalated", "2026-03-25"),),
        "restricted",
        "The beneficiary's trade licence lists the same manager as the designated company.",
    ),
    Case(
        4107,
        "Orion Pharma Distribution",
        "redsea",
        "USD",
        "54,300",
        "45,300",
        "2026-03-25",
        "UN Consolidated",
        "0.79",
        "Mei Chen",
        (Step(655, "held"), Step(700, "released", "2026-03-27")),
        "confidential",
        "The listed agency operates from Port Sudan; the beneficiary is a Jeddah company with "
        "a different commercial registration.",
    ),
    Case(
        4108,
        "Valemont Steel",
        "tigris",
        "USD",
        "2,450,000",
        "4,250,000",
        "2026-03-26",
        "UK HMT",
        "0.88",
        "Rajiv Menon",
        (Step(662, "escalated", "2026-03-27"), Step(745, "released", "2026-04-14")),
        "confidential",
        "Group Compliance confirmed that the listed group and the beneficiary have different "
        "owners after reviewing the Kurdistan company registry extract.",
    ),
    Case(
        4109,
        "Pennant Textiles",
        "karakum",
        "USD",
        "127,900",
        "172,900",
        "2026-03-27",
        "OFAC SDN",
        "0.82",
        "Hannah Lindqvist",
        (Step(664, "released", "2026-03-30"),),
        "confidential",
        "The listed holding company is registered in Turkmenistan and has no shareholders in "
        "common with the beneficiary.",
    ),
    Case(
        4110,
        "Larkspur Energy Trading",
        "marlin",
        "USD",
        "3,100,000",
        "1,300,000",
        "2026-03-30",
        "OFAC SDN",
        "0.90",
        "Omar Haddad",
        (Step(672, "held"), Step(705, "escalated", "2026-04-02")),
        "confidential",
        "The remittance information names the vessel MARLIN STAR, which appears on the list.",
    ),
    Case(
        4111,
        "Northgate Holdings Ltd",
        "kestrel",
        "EUR",
        "415,000",
        "145,000",
        "2026-04-01",
        "OFAC SDN",
        "0.91",
        "Grace Mbeki",
        (Step(680, "rejected", "2026-04-02"),),
        "confidential",
        "Group Compliance instructed the screening team to reject it.",
    ),
    Case(
        4112,
        "Almond Grove Foods plc",
        "adriatic",
        "EUR",
        "61,250",
        "16,250",
        "2026-04-02",
        "EU Consolidated",
        "0.80",
        "Tomasz Nowak",
        (Step(684, "released", "2026-04-02"),),
        "confidential",
        "The listed exporter is based in Montenegro and the beneficiary's VAT number and "
        "directors do not match it.",
    ),
    Case(
        4113,
        "Brightwater Chemicals AG",
        "andes",
        "USD",
        "905,000",
        "950,000",
        "2026-04-06",
        "internal watchlist",
        "0.84",
        "Aisha Rahman",
        (Step(690, "held"),),
        "confidential",
        "A request for the sales contract and the copper assay certificates has been sent to "
        "the client through the relationship manager.",
    ),
    Case(
        4114,
        "Seacrest Commodities DMCC",
        "novaya",
        "USD",
        "488,000",
        "848,000",
        "2026-04-07",
        "EU Consolidated",
        "0.87",
        "Lucas Ferreira",
        (Step(694, "escalated", "2026-04-08"), Step(780, "rejected", "2026-04-24")),
        "restricted",
        "The beneficiary is 50 percent owned by a person added to the EU list in March 2026.",
    ),
    Case(
        4115,
        "Castlemere Shipping Ltd",
        "baltic",
        "EUR",
        "212,800",
        "282,100",
        "2026-04-08",
        "UK HMT",
        "0.81",
        "Mei Chen",
        (Step(698, "released", "2026-04-09"),),
        "confidential",
        "The listed exporter is a Belarusian company; the beneficiary is registered in "
        "Estonia with Estonian owners.",
    ),
    Case(
        4116,
        "Orion Pharma Distribution",
        "nile",
        "USD",
        "76,000",
        "67,000",
        "2026-04-09",
        "UN Consolidated",
        "0.86",
        "Rajiv Menon",
        (Step(702, "rejected", "2026-04-10"),),
        "confidential",
        "Financial Crime Compliance declined the Tier 2 approval because the beneficiary bank "
        "could not confirm the end user of the goods.",
    ),
    Case(
        4117,
        "Halden Aerospace Components",
        "zephyr",
        "AED",
        "640,000",
        "460,000",
        "2026-04-13",
        "OFAC SDN",
        "0.93",
        "Hannah Lindqvist",
        (Step(715, "held"),),
        "confidential",
        "A request for the end-user certificate and the aircraft registration has been sent "
        "to the client through the relationship manager.",
    ),
    Case(
        4118,
        "Valemont Steel",
        "meridian",
        "AED",
        "3,675,000",
        "3,765,000",
        "2026-04-14",
        "internal watchlist",
        "0.83",
        "Omar Haddad",
        (Step(720, "held"), Step(752, "released", "2026-04-17")),
        "confidential",
        "The watchlist entry concerns a different steel trader in Ajman with no common owners.",
    ),
    Case(
        4119,
        "Larkspur Energy Trading",
        "lotus",
        "USD",
        "1,050,000",
        "1,500,000",
        "2026-04-15",
        "UK HMT",
        "0.83",
        "Grace Mbeki",
        (Step(725, "released", "2026-04-16"),),
        "confidential",
        "This payment is for bulk lubricants, not controlled chemicals, and the listed company "
        "is based in Macau.",
    ),
    Case(
        4120,
        "Pennant Textiles",
        "karakum",
        "USD",
        "98,600",
        "89,600",
        "2026-04-16",
        "OFAC SDN",
        "0.82",
        "Tomasz Nowak",
        (Step(728, "held"),),
        "confidential",
        "A request for the cotton purchase contract has been sent to the client through the "
        "relationship manager.",
    ),
    Case(
        4121,
        "Northgate Holdings Ltd",
        "acme",
        "AED",
        "410,000",
        "140,000",
        "2026-04-20",
        "OFAC SDN",
        "0.84",
        "Aisha Rahman",
        (Step(740, "released", "2026-04-21"),),
        "confidential",
        "The same discounting rationale as for the March payment to this beneficiary applies.",
    ),
    Case(
        4122,
        "Seacrest Commodities DMCC",
        "redsea",
        "USD",
        "233,000",
        "323,000",
        "2026-04-21",
        "UN Consolidated",
        "0.79",
        "Lucas Ferreira",
        (Step(744, "held"), Step(800, "rejected", "2026-05-06")),
        "confidential",
        "The client did not provide the bill of lading within ten business days.",
    ),
    Case(
        4123,
        "Brightwater Chemicals AG",
        "caspian",
        "EUR",
        "158,000",
        "185,000",
        "2026-04-23",
        "EU Consolidated",
        "0.86",
        "Mei Chen",
        (Step(750, "escalated", "2026-04-24"),),
        "restricted",
        "The goods description mentions well-control valves that may be subject to export "
        "restrictions.",
    ),
    Case(
        4124,
        "Castlemere Shipping Ltd",
        "marlin",
        "USD",
        "820,000",
        "280,000",
        "2026-04-27",
        "OFAC SDN",
        "0.90",
        "Rajiv Menon",
        (Step(764, "blocked", "2026-04-29"),),
        "restricted",
        "The fuel was delivered to the listed vessel MARLIN STAR in a ship-to-ship transfer.",
    ),
    Case(
        4125,
        "Almond Grove Foods plc",
        "sahel",
        "EUR",
        "92,000",
        "29,000",
        "2026-05-04",
        "EU Consolidated",
        "0.81",
        "Hannah Lindqvist",
        (Step(786, "released", "2026-05-05"),),
        "confidential",
        "The same discounting rationale as for the March payment to this beneficiary applies.",
    ),
    Case(
        4126,
        "Valemont Steel",
        "novaya",
        "USD",
        "300,000",
        "30,000",
        "2026-05-06",
        "EU Consolidated",
        "0.87",
        "Omar Haddad",
        (Step(796, "held"),),
        "confidential",
        "A request for the rail waybills and the beneficiary's ownership chart has been sent "
        "to the client through the relationship manager.",
    ),
    Case(
        4127,
        "Pennant Textiles",
        "harbour",
        "USD",
        "445,500",
        "455,500",
        "2026-05-11",
        "UK HMT",
        "0.80",
        "Grace Mbeki",
        (Step(812, "released", "2026-05-12"),),
        "confidential",
        "The listed container line is registered in the Marshall Islands and the beneficiary "
        "in Cyprus, with different directors.",
    ),
    Case(
        4128,
        "Northgate Holdings Ltd",
        "harbour",
        "USD",
        "1,980,000",
        "1,890,000",
        "2026-05-14",
        "UK HMT",
        "0.80",
        "Tomasz Nowak",
        (Step(826, "held"), Step(890, "released", "2026-05-19")),
        "confidential",
        "The same discounting rationale as for the May payment from Pennant Textiles to this "
        "beneficiary applies.",
    ),
    Case(
        4129,
        "Castlemere Shipping Ltd",
        "kestrel",
        "USD",
        "265,000",
        "625,000",
        "2026-05-18",
        "OFAC SDN",
        "0.91",
        "Aisha Rahman",
        (Step(840, "rejected", "2026-05-18"),),
        "confidential",
        "Group Compliance instructed the screening team to reject it.",
    ),
    Case(
        4130,
        "Brightwater Chemicals AG",
        "harbour",
        "EUR",
        "72,000",
        "27,000",
        "2026-05-21",
        "UK HMT",
        "0.80",
        "Lucas Ferreira",
        (Step(852, "held"),),
        "confidential",
        "A request for the container lease agreement has been sent to the client through the "
        "relationship manager.",
    ),
)


def _intro(case: Case, amount: str, variant: int) -> str:
    p = PARTIES[case.party]
    ref = f"PMT-{case.number}"
    if variant == 0:
        return (
            f"Payment reference {ref} for {case.ccy} {amount} from our client {case.client} to "
            f"{p.name}, account held at {p.bank}, {p.city}, {p.country}."
        )
    if variant == 1:
        return (
            f"{case.client} instructed a {case.ccy} {amount} transfer to {p.name} in {p.city} "
            f"under reference {ref}."
        )
    return f"Outbound transfer {ref} of {case.ccy} {amount} from {case.client} to {p.name}."


def _status(case: Case, step: Step) -> str:
    ref = f"PMT-{case.number}"
    return {
        "held": f"{ref} is on hold pending a screening review and no decision has been made.",
        "released": f"{ref} was released on {step.date} after the alert was closed as a false "
        "positive.",
        "rejected": f"{ref} was rejected on {step.date} and the funds were returned to "
        f"{case.client}.",
        "escalated": f"{ref} remains on hold and was escalated to Group Compliance on {step.date}.",
        "blocked": f"{ref} was blocked on {step.date} after Group Compliance confirmed a true "
        "match, and the funds are frozen.",
    }[step.status]


def _status_paraphrase(case: Case, step: Step) -> str:
    p = PARTIES[case.party]
    what = f"The {case.ccy} {case.amount} payment from {case.client} to {p.name}"
    return {
        "held": f"{what} is still waiting for its screening review.",
        "released": f"{what} went out on {step.date} once the hit was cleared as a false match.",
        "rejected": f"{what} was turned down on {step.date} and the money sent back to the client.",
        "escalated": f"{what} is still stopped; Group Compliance has had the case since "
        f"{step.date}.",
        "blocked": f"{what} was frozen on {step.date} because the sanctions match was real.",
    }[step.status]


def _status_distortion(case: Case, step: Step) -> str:
    ref = f"PMT-{case.number}"
    when = step.date or case.value_date
    return {
        "held": f"{ref} was released on {when} after the alert was closed as a false positive.",
        "released": f"{ref} was rejected on {when} and the funds were returned to {case.client}.",
        "rejected": f"{ref} was released on {when} after the alert was closed as a false positive.",
        "escalated": f"{ref} was released on {when} after the alert was closed as a false "
        "positive.",
        "blocked": f"{ref} was released on {when} after Group Compliance confirmed the match "
        "was false.",
    }[step.status]


def _detail(case: Case, step: Step) -> str:
    if step.status == "held" and not case.reason.startswith("A request"):
        return "The alert is with a Level 2 screening officer, who has asked for documents."
    if step.status == "escalated" and case.steps[-1].status != "escalated":
        return "The score is above the escalation threshold; Group Compliance is reviewing."
    return case.reason


def _source(case: Case, variant: int) -> str:
    p = PARTIES[case.party]
    key = f"p{case.number}"
    screening = (
        f'Sentinel matched the beneficiary against the {case.listname} entry "{HITS[case.party]}" '
        f"with a name score of {case.score}.",
        f'The {case.listname} list returned a possible match, "{HITS[case.party]}", scored '
        f"{case.score}.",
        f'Possible match: "{HITS[case.party]}" ({case.listname}), similarity {case.score}.',
    )[variant]
    return f"""
## Payment PMT-{case.number}
[[{key}-pay|{_intro(case, case.amount, variant)}]] Value date {case.value_date}. The client
states that the payment is for {p.purpose}.

## Screening result
{screening}

## Decision
[[{key}-status|{{status}}]] {{detail}}

## Case owner
Case officer: {case.officer}, Sanctions Operations.
"""


def _doc(case: Case) -> DocSpec:
    variant = case.number % 3
    p = PARTIES[case.party]
    last = case.steps[-1]
    ref = f"PMT-{case.number}"
    versions = tuple(
        (step.tick, {"status": _status(case, step), "detail": _detail(case, step)})
        for step in case.steps
    )
    facts = {
        f"p{case.number}-pay": FactInfo(
            f"{case.client} sent {case.ccy} {case.amount} to {p.name} under reference {ref}.",
            _intro(case, case.wrong_amount, variant),
            f"How much was payment {ref} for?",
            private=True,
        ),
        f"p{case.number}-status": FactInfo(
            _status_paraphrase(case, last),
            _status_distortion(case, last),
            f"What happened to the {case.ccy} {case.amount} payment to {p.name}?",
            private=True,
        ),
    }
    return doc(
        T,
        f"pmt-{case.number}",
        f"Payment case file {ref}",
        case.classification,
        _source(case, variant),
        versions=versions,
        doc_type="payment-case",
        facts=facts,
    )


DOCS: list[DocSpec] = [_doc(case) for case in CASES]


def _asker(case: Case) -> Asker:
    if case.classification == "restricted":
        return W_HEAD
    return W_OFFICER if case.number % 2 else W_RM


def _related(case: Case) -> dict[str, int]:
    judged: dict[str, int] = {f"pmt-{case.number}": 2}
    for other in CASES:
        same_party = other.party == case.party and other.number != case.number
        if same_party and _asker(case).sees(T, other.classification, None):
            judged[f"pmt-{other.number}"] = 0
    return judged


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _month(iso_date: str) -> str:
    year, month, _ = iso_date.split("-")
    return f"{_MONTHS[int(month) - 1]} {year}"


def _query(case: Case) -> QuerySpec:
    p = PARTIES[case.party]
    ref = f"PMT-{case.number}"
    last = case.steps[-1].status
    pick = case.number % 4
    if pick == 0:
        options = (ref, f"status of {ref}", f"{ref} decision", f"who is the case officer on {ref}")
        text = options[(case.number // 4) % 4]
        return ask(text, _asker(case), _related(case), kind="id")
    if pick == 1:
        verb = {
            "held": "still on hold",
            "released": "released",
            "rejected": "rejected",
            "escalated": "escalated",
            "blocked": "blocked",
        }[last]
        text = f"Why was the {case.ccy} {case.amount} payment to the {p.descriptor} {verb}?"
        return ask(text, _asker(case), _related(case), kind="question")
    if pick == 2:
        text = (
            f"Our client the {CLIENT_KINDS[case.client]} paid a {p.descriptor} in "
            f"{_month(case.value_date)}. Did the money get there?"
        )
        return ask(text, _asker(case), _related(case), kind="paraphrase")
    text = f"{case.client} {p.purpose} payment {case.value_date} screening"
    return ask(text, _asker(case), _related(case), kind="keyword")


QUERIES: list[QuerySpec] = [_query(case) for case in CASES]
