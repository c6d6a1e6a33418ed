"""Advisory tenant: completed mandates (credentials), built from a parameter table.

Several share vocabulary with the live deals on purpose: an earlier Harrowgate acquisition
by scheme, a payments IPO with a 25 percent float, a utility refinancing.
"""

from __future__ import annotations

from typing import NamedTuple

from tidewater.model import DocSpec, FactInfo, QuerySpec, ask, doc
from tidewater.people import A_FALCON_ANALYST, A_JUNIOR, A_PUBLIC

T = "advisory"


class Mandate(NamedTuple):
    slug: str
    title: str
    deal: str
    wrong_deal: str
    role: str
    detail: str
    tick: int
    classification: str
    question: str
    kind: str


MANDATES: tuple[Mandate, ...] = (
    Mandate(
        "calder-foods",
        "Sale of Calder Foods to Brightmoor Group",
        "Calder Foods was sold to Brightmoor Group for GBP 310 million in January 2025.",
        "Calder Foods was sold to Brightmoor Group for GBP 130 million in January 2025.",
        "Tidewater was sole financial adviser to the founding family, the sellers.",
        "The auction drew nine first-round bids and the price was 11 times EBITDA.",
        300,
        "internal",
        "Calder Foods sale price and multiple",
        "keyword",
    ),
    Mandate(
        "penrose-tern",
        "Penrose Logistics acquisition of Tern Freight",
        "Penrose Logistics bought Tern Freight for GBP 520 million in May 2025.",
        "Penrose Logistics bought Tern Freight for GBP 250 million in May 2025.",
        "Tidewater acted as financial adviser to Penrose Logistics, the buyer.",
        "The deal was funded with a GBP 300 million term loan and a share placing.",
        420,
        "internal",
        "which freight deal did we advise the buyer on in 2025",
        "paraphrase",
    ),
    Mandate(
        "harrowgate-kittiwake",
        "Harrowgate Industrial acquisition of Kittiwake Cold Storage",
        "Harrowgate Industrial acquired Kittiwake Cold Storage by scheme of arrangement for "
        "310 pence per share, or GBP 240 million, in October 2024.",
        "Harrowgate Industrial acquired Kittiwake Cold Storage by scheme of arrangement for "
        "410 pence per share, or GBP 240 million, in October 2024.",
        "Tidewater was lead financial adviser to Harrowgate Industrial.",
        "The offer was a 31 percent premium to Kittiwake's undisturbed share price.",
        250,
        "internal",
        "How much did Harrowgate pay for the cold storage business?",
        "question",
    ),
    Mandate(
        "vantage-pay-ipo",
        "IPO of Vantage Pay plc",
        "Vantage Pay plc listed in June 2025 at 240 pence per share, raising GBP 350 "
        "million with a free float of 25 percent.",
        "Vantage Pay plc listed in June 2025 at 420 pence per share, raising GBP 350 "
        "million with a free float of 25 percent.",
        "Tidewater was a joint bookrunner.",
        "The books were covered more than three times and the shares closed 9 percent up on "
        "the first day.",
        460,
        "internal",
        "Vantage Pay listing price",
        "keyword",
    ),
    Mandate(
        "ashgrove-refinancing",
        "Ashgrove Utilities refinancing",
        "Ashgrove Utilities refinanced GBP 1.1 billion of debt in February 2025.",
        "Ashgrove Utilities refinanced GBP 11 billion of debt in February 2025.",
        "Tidewater acted as independent debt adviser to Ashgrove.",
        "The new facilities extended the average maturity from four to nine years.",
        330,
        "internal",
        "debt adviser water utility refinancing maturity",
        "keyword",
    ),
    Mandate(
        "nordhavn-marine",
        "Sale of Nordhavn Marine Services",
        "Nordhavn Marine Services was sold to Gulf Harbour Ports for GBP 180 million in "
        "August 2025.",
        "Nordhavn Marine Services was sold to Gulf Harbour Ports for GBP 810 million in "
        "August 2025.",
        "Tidewater advised the sellers, two private equity funds.",
        "The buyer was introduced by Tidewater's Dubai office.",
        540,
        "public",
        "Who bought Nordhavn Marine?",
        "question",
    ),
    Mandate(
        "corran-restructuring",
        "Restructuring of Corran Retail Group",
        "Corran Retail Group completed a restructuring plan in September 2025 that cut its "
        "debt by GBP 400 million.",
        "Corran Retail Group completed a restructuring plan in September 2025 that cut its "
        "debt by GBP 40 million.",
        "Tidewater advised the senior lenders.",
        "The lenders took 85 percent of the equity in exchange for writing down their loans.",
        570,
        "internal",
        "how did the lenders come out of the retailer's debt deal we worked on",
        "paraphrase",
    ),
    Mandate(
        "sable-healthcare",
        "Sale of Sable Healthcare to Meridale Capital",
        "Sable Healthcare was sold to Meridale Capital for GBP 690 million in December 2025.",
        "Sable Healthcare was sold to Meridale Capital for GBP 960 million in December 2025.",
        "Tidewater was joint financial adviser to Sable's board.",
        "The sale completed after clearance from the competition authority in six weeks.",
        620,
        "public",
        "Sable Healthcare sale to Meridale",
        "keyword",
    ),
)


def _doc(m: Mandate) -> DocSpec:
    key = f"m-{m.slug}"
    source = f"""
## Transaction
[[{key}-deal|{m.deal}]]

## Our role
{m.role}

## Outcome
{m.detail}
"""
    return doc(
        T,
        f"mandate-{m.slug}",
        f"Credentials: {m.title}",
        m.classification,
        source,
        tick=m.tick,
        doc_type="mandate",
        facts={
            f"{key}-deal": FactInfo(None, m.wrong_deal, m.question),
        },
    )


DOCS: list[DocSpec] = [_doc(m) for m in MANDATES]

QUERIES: list[QuerySpec] = [
    ask(
        m.question,
        A_PUBLIC if m.classification == "public" else (A_JUNIOR if i % 2 else A_FALCON_ANALYST),
        {f"mandate-{m.slug}": 2},
        kind=m.kind,
    )
    for i, m in enumerate(MANDATES)
]
