"""Advisory tenant: live deal papers behind the ``deal-falcon``, ``deal-osprey`` and
``deal-heron`` barriers.

Content module: long by nature (prose tables), no logic.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc, fact

T = "advisory"
FALCON = "deal-falcon"
OSPREY = "deal-osprey"
HERON = "deal-heron"

DOCS: list[DocSpec] = [
    doc(
        T,
        "falcon-deal-memo",
        "Project Falcon: transaction memo",
        "restricted",
        """
## Transaction
Project Falcon is the proposed acquisition of Solent Cold Chain plc by our client Harrowgate
Industrial plc, by way of a scheme of arrangement. Tidewater acts as lead financial adviser to
Harrowgate.

## Offer
[[falcon-price|The proposed offer for Solent Cold Chain is {price} per share in cash.]]
[[falcon-ev|The offer values Solent at an enterprise value of about {ev}.]]
[[falcon-premium|The offer is a premium of {premium} percent to Solent's undisturbed share
price.]]

## Financing
The cash consideration is funded from a new GBP 900 million acquisition facility and existing
cash. Cash confirmation will be given by Tidewater as financial adviser.

## Status
Solent's board has said it would be minded to recommend an offer at this level. Confirmatory
due diligence is in its final week.
""",
        versions=(
            (520, {"price": "410 pence", "ev": "GBP 1.18 billion", "premium": "28"}),
            (790, {"price": "435 pence", "ev": "GBP 1.25 billion", "premium": "36"}),
            (960, {"price": "445 pence", "ev": "GBP 1.28 billion", "premium": "39"}),
        ),
        barrier=FALCON,
        doc_type="deal-paper",
        facts={
            "falcon-price": fact(
                "Harrowgate is proposing to pay {price} cash for each Solent Cold Chain share.",
                "The proposed offer for Solent Cold Chain is {price} per share in Harrowgate "
                "shares.",
                "What price per share is Harrowgate offering for Solent?",
                private=True,
            ),
            "falcon-ev": fact(
                "At the offer price Solent is worth roughly {ev} in enterprise value.",
                "The offer values Solent at an enterprise value of about GBP 2.28 billion.",
                "What enterprise value does the Falcon offer imply?",
                private=True,
            ),
            "falcon-premium": fact(
                "Solent shareholders are being offered {premium} percent over the undisturbed "
                "price.",
                "The offer is a discount of {premium} percent to Solent's undisturbed share price.",
                "What premium does the Falcon offer represent?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "falcon-timetable",
        "Project Falcon: timetable and leak protocol",
        "restricted",
        """
## Key dates
[[falcon-board|The Harrowgate board will approve the final offer terms on 14 May 2026.]]
[[falcon-announce|The Rule 2.7 announcement of the firm offer is planned for {announce}.]] The
scheme document will be posted within 28 days of the announcement.

## Leak protocol
If there is a leak or an untoward movement in Solent's share price of 10 percent or more, the
Takeover Panel must be consulted at once. [[falcon-holding|A holding announcement is kept ready
to be released within 30 minutes.]]
""",
        versions=((600, {"announce": "19 May 2026"}), (880, {"announce": "2 June 2026"})),
        barrier=FALCON,
        doc_type="deal-paper",
        facts={
            "falcon-board": fact(
                "Harrowgate's directors sign off the final terms on 14 May 2026.",
                "The Harrowgate board will approve the final offer terms on 4 May 2026.",
                "When does the Harrowgate board approve the offer?",
                private=True,
            ),
            "falcon-announce": fact(
                "The firm offer for Solent is due to be announced on {announce}.",
                "The Rule 2.7 announcement of the firm offer is planned for 2 July 2026.",
                "When will the Falcon offer be announced?",
                private=True,
            ),
            "falcon-holding": fact(
                "We can put out a holding announcement on Falcon within half an hour if needed.",
                "A holding announcement is kept ready to be released within 24 hours.",
                "How fast can we respond to a leak on Falcon?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "falcon-valuation",
        "Project Falcon: valuation summary",
        "restricted",
        """
## Discounted cash flow
[[falcon-dcf|Our DCF valuation range for Solent is 395 to 470 pence per share, using a WACC of
8.4 percent.]] The terminal growth rate is 2 percent.

## Synergies
[[falcon-synergies|Harrowgate expects cost synergies of GBP 42 million a year by the third year
after completion]], mainly from merging the two warehouse networks.

## Trading comparables
Listed cold chain peers trade at 9 to 11 times EBITDA; the offer implies 11.8 times.
""",
        tick=810,
        barrier=FALCON,
        doc_type="deal-paper",
        facts={
            "falcon-dcf": fact(
                "The DCF puts Solent at between 395p and 470p a share on an 8.4 percent discount "
                "rate.",
                "Our DCF valuation range for Solent is 395 to 470 pence per share, using a WACC "
                "of 7.4 percent.",
                "What does our DCF say Solent is worth?",
                private=True,
            ),
            "falcon-synergies": fact(
                "By year three Harrowgate expects to save GBP 42 million of costs annually.",
                "Harrowgate expects revenue synergies of GBP 42 million a year by the third year "
                "after completion",
                "What synergies does Harrowgate expect from buying Solent?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "falcon-insider-list",
        "Project Falcon: insider list summary",
        "confidential",
        """
## Insiders
[[falcon-insiders|As of 20 May 2026, 23 people at Tidewater are on the Project Falcon insider
list.]] The deal team is led by managing director Victoria Ashdown, with vice president
Samuel Okoye, associate Lena Fischer and analyst Ravi Kulkarni.

## External insiders
Harrowgate's legal counsel, its corporate broker and two wall-crossed shareholders of Solent
are recorded on the external section of the list.
""",
        tick=930,
        barrier=FALCON,
        doc_type="deal-paper",
        facts={
            "falcon-insiders": fact(
                "The Falcon insider list had 23 Tidewater names on 20 May 2026.",
                "As of 20 May 2026, 32 people at Tidewater are on the Project Falcon insider list.",
                "How many people are on the Falcon insider list?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "falcon-fee-letter",
        "Project Falcon: fee letter summary",
        "confidential",
        """
## Fees
[[falcon-fee|Tidewater's success fee on Project Falcon is 0.65 percent of the enterprise value,
payable on completion.]] [[falcon-retainer|Harrowgate pays a monthly retainer of GBP 150,000
on Project Falcon, credited against the success fee.]]

## Expenses
Out-of-pocket expenses are reimbursed monthly; legal fees above GBP 50,000 need Harrowgate's
prior consent.
""",
        tick=600,
        barrier=FALCON,
        doc_type="deal-paper",
        facts={
            "falcon-fee": fact(
                "On completion of Falcon we earn 0.65 percent of enterprise value.",
                "Tidewater's success fee on Project Falcon is 0.85 percent of the enterprise "
                "value, payable on completion.",
                "What is our success fee on Falcon?",
                private=True,
            ),
            "falcon-retainer": fact(
                "Harrowgate pays GBP 150,000 a month as a retainer, which is offset against the "
                "success fee.",
                "Harrowgate pays a monthly retainer of GBP 150,000 on Project Falcon, paid on top "
                "of the success fee.",
                "Is there a retainer on the Falcon mandate?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "falcon-dd-findings",
        "Project Falcon: key due diligence findings",
        "restricted",
        """
## Commercial
[[falcon-concentration|Solent's largest customer, a national supermarket group, accounts for 31
percent of its revenue]], under a contract that can be ended on 12 months' notice.

## Pensions
[[falcon-pension|Solent's defined benefit pension scheme has a deficit of GBP 64 million on the
technical provisions basis.]] The trustees will seek a higher contribution on a change of
control.

## Property
Three of Solent's eleven warehouses are on leases that expire before 2029.
""",
        tick=840,
        barrier=FALCON,
        doc_type="deal-paper",
        facts={
            "falcon-concentration": fact(
                "Nearly a third of Solent's revenue comes from one supermarket customer.",
                "Solent's largest customer, a national supermarket group, accounts for 13 "
                "percent of its revenue",
                "How dependent is Solent on its biggest customer?",
                private=True,
            ),
            "falcon-pension": fact(
                "Solent's final salary pension plan is GBP 64 million in deficit on technical "
                "provisions.",
                "Solent's defined benefit pension scheme has a surplus of GBP 64 million on the "
                "technical provisions basis.",
                "Does Solent have a pension deficit?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "osprey-process-letter",
        "Project Osprey: phase 2 process letter",
        "restricted",
        """
## Process
Tidewater acts as sole financial adviser to Castlemere Infrastructure Partners on the sale of
100 percent of Bramble Water Services.

## Deadline
[[osprey-deadline|Binding phase 2 bids for Bramble Water Services are due by 12:00 London time
on {deadline}.]] Bids must be fully financed and must state any conditions.

## Financing
Bidders may use the staple financing arranged by Tidewater's leveraged finance team, or their
own financing.
""",
        versions=((700, {"deadline": "26 June 2026"}), (900, {"deadline": "10 July 2026"})),
        barrier=OSPREY,
        doc_type="deal-paper",
        facts={
            "osprey-deadline": fact(
                "Final bids for Bramble are due at noon on {deadline}.",
                "Binding phase 2 bids for Bramble Water Services are due by 12:00 London time on "
                "10 August 2026.",
                "When are the binding bids for Osprey due?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "osprey-bidder-shortlist",
        "Project Osprey: phase 2 shortlist",
        "restricted",
        """
## Shortlist
[[osprey-bidders|Four bidders were shortlisted for phase 2: Aldermoor Infrastructure, Pacific
Crown Pension Fund, Hanseatic Utilities Partners and Redwood Capital.]]

## Phase 1 bids
[[osprey-range|Indicative phase 1 bids ranged from GBP 3.1 billion to GBP 3.6 billion of
enterprise value.]] Two bidders asked to form a consortium; the seller has not allowed it.
""",
        tick=760,
        barrier=OSPREY,
        doc_type="deal-paper",
        facts={
            "osprey-bidders": fact(
                "Aldermoor, Pacific Crown, Hanseatic Utilities Partners and Redwood made the phase "
                "2 shortlist.",
                "Three bidders were shortlisted for phase 2: Aldermoor Infrastructure, Pacific "
                "Crown Pension Fund and Redwood Capital.",
                "Who is on the Osprey shortlist?",
                private=True,
            ),
            "osprey-range": fact(
                "First-round bids for Bramble were between GBP 3.1 and 3.6 billion of enterprise "
                "value.",
                "Indicative phase 1 bids ranged from GBP 2.1 billion to GBP 2.6 billion of "
                "enterprise value.",
                "What were the indicative bids for Bramble?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "osprey-vdd-summary",
        "Project Osprey: vendor due diligence summary",
        "confidential",
        """
## Regulated business
[[osprey-rav|Bramble Water Services has a regulated capital value of about GBP 2.9 billion]]
and serves 1.4 million customers in the south of England.

## Reports
The vendor due diligence pack covers financial, tax, regulatory, engineering and pensions.
Bidders receive reliance on the reports after signing a reliance letter.
""",
        tick=690,
        barrier=OSPREY,
        doc_type="deal-paper",
        facts={
            "osprey-rav": fact(
                "Bramble's regulated capital value is roughly GBP 2.9 billion.",
                "Bramble Water Services has a regulated capital value of about GBP 9.2 billion",
                "What is Bramble's regulated capital value?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "osprey-teaser",
        "Project Osprey: anonymised teaser",
        "internal",
        """
## Opportunity
A regulated water and wastewater company in the south of England is being offered for sale by
its infrastructure fund owner. The company serves about 1.4 million customers.

## Process
Interested parties sign a confidentiality agreement before receiving the information
memorandum. Queries go to the Tidewater deal team through the Control Room.
""",
        tick=640,
        doc_type="deal-paper",
    ),
    doc(
        T,
        "heron-ipo-memo",
        "Project Heron: IPO structuring memo",
        "restricted",
        """
## Offering
Project Heron is the initial public offering of Lumen Payments Ltd on the Main Market of the
London Stock Exchange.

## Price range and float
[[heron-range|The indicative price range for the Lumen Payments IPO is {price_range} per
share.]] [[heron-float|The free float of Lumen Payments at listing will be at least {float}
percent.]]

## Selling shareholders
The founders will sell no shares; the growth investors will sell up to half of their holdings.
""",
        versions=(
            (610, {"price_range": "280 to 320 pence", "float": "25"}),
            (870, {"price_range": "265 to 295 pence", "float": "30"}),
        ),
        barrier=HERON,
        doc_type="deal-paper",
        facts={
            "heron-range": fact(
                "Lumen Payments is expected to price its IPO at {price_range} a share.",
                "The indicative price range for the Lumen Payments IPO is 320 to 360 pence per "
                "share.",
                "What is the price range for the Lumen IPO?",
                private=True,
            ),
            "heron-float": fact(
                "At least {float} percent of Lumen Payments will be in free float after listing.",
                "The free float of Lumen Payments at listing will be at most {float} percent.",
                "How much of Lumen will be free float?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "heron-syndicate",
        "Project Heron: syndicate and fees",
        "confidential",
        """
## Roles
[[heron-role|Tidewater is joint global coordinator on the Lumen Payments IPO alongside
Northbridge Securities.]] Two further banks join as bookrunners.

## Fees
[[heron-fee|The gross spread on the Lumen Payments IPO is 2.25 percent]], with a discretionary
incentive fee of up to 0.5 percent.
""",
        tick=720,
        barrier=HERON,
        doc_type="deal-paper",
        facts={
            "heron-role": fact(
                "We share the joint global coordinator role on Lumen with Northbridge Securities.",
                "Tidewater is sole global coordinator on the Lumen Payments IPO.",
                "What is our role on the Heron IPO?",
                private=True,
            ),
            "heron-fee": fact(
                "The banks on the Lumen listing split a 2.25 percent gross spread.",
                "The gross spread on the Lumen Payments IPO is 3.25 percent",
                "What are the fees on the Lumen IPO?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "heron-research-blackout",
        "Project Heron: research and communications blackout",
        "confidential",
        """
## Research
[[heron-blackout|Connected analysts may not publish research on Lumen Payments until 40 days
after the first day of trading.]] Pre-deal investor education ends when the price range is
announced.

## Communications
No one at Tidewater may comment on Lumen Payments to the press. Questions from journalists go
to Group Communications.
""",
        tick=880,
        barrier=HERON,
        doc_type="deal-paper",
        facts={
            "heron-blackout": fact(
                "Our analysts cannot publish on Lumen until forty days after it starts trading.",
                "Connected analysts may not publish research on Lumen Payments until 25 days "
                "after the first day of trading.",
                "When can research on Lumen Payments be published?",
                private=True,
            ),
        },
    ),
]
