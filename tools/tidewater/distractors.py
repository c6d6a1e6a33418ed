"""Background documents of every tenant: newsletters, FAQs, training and general terms.

They share vocabulary with the answers without giving them (or give only part of them), as
a real knowledge base does; some are judged 1 (partly relevant) for nearby questions.

Content module: long by nature (prose tables), no logic.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc, fact

DOCS: list[DocSpec] = [
    doc(
        "wholesale",
        "ops-newsletter-2026-03",
        "Payments Operations newsletter, March 2026",
        "internal",
        """
## From the Head of Payments Operations
March was our busiest month for held payments since the new sanctions regimes came in. Thank
you to everyone who stayed late to clear the queue before the USD cut-off on quarter end.

## Reminders
Releases of held payments still need the approvals set out in the hold release policy, and a
release without a recorded review will be reported as a breach. Please also check that every
recall request quotes the UETR of the original payment.

## People
We welcome four new Level 1 analysts in Dubai. Hannah Lindqvist moves to the Level 2 team in
London.
""",
        tick=665,
        doc_type="newsletter",
    ),
    doc(
        "wholesale",
        "ops-newsletter-2026-05",
        "Payments Operations newsletter, May 2026",
        "internal",
        """
## Queue statistics
The Sentinel payment queue averaged 1,140 alerts a day in April, and 97 percent were
dispositioned within their service level. Customer screening volumes fell after the periodic
review backlog was cleared.

## Systems
The SWIFT gateway restart runbook has been rewritten after April's incident. The Sentinel
certificate monitoring that went live in March has already caught two expiring certificates.

## Recognition
Special thanks to the Singapore team for covering the London queue during the May bank
holidays.
""",
        tick=845,
        doc_type="newsletter",
    ),
    doc(
        "wholesale",
        "pol-payment-repair",
        "Payment repair standard",
        "internal",
        """
## What a repair is
A repair is any manual change to a payment message before it is sent: a corrected account
number, a completed beneficiary address or a changed charging option.

## Approvals
[[repair-threshold|Repairs to payments above GBP 1 million need a second checker from a
different team.]] Repairs below that amount follow the normal four-eyes check.

## Limits on repairs
A repair may never change the amount, the currency or the beneficiary name. Such changes need
a new instruction from the client.
""",
        tick=575,
        facts={
            "repair-threshold": fact(
                "For payments over GBP 1 million a checker from another team must approve any "
                "repair.",
                "Repairs to payments above GBP 10 million need a second checker from a different "
                "team.",
                "Who must check a repair to a very large payment?",
            ),
        },
    ),
    doc(
        "wholesale",
        "proc-sentinel-access",
        "Sentinel user access and training",
        "internal",
        """
## Access levels
Sentinel has three roles: Level 1 analyst, Level 2 screening officer and administrator.
Access is requested through the identity portal and approved by the Head of Sanctions
Operations.

## Training
[[sentinel-training|New users must pass the sanctions screening assessment with a score of at
least 80 percent before their access is activated.]] Refresher training is due every year.

## Leavers
Access is removed on the user's last working day.
""",
        tick=300,
        doc_type="procedure",
        facts={
            "sentinel-training": fact(
                "Sentinel access is only switched on after the user scores 80 percent or more in "
                "the screening assessment.",
                "New users must pass the sanctions screening assessment with a score of at least "
                "60 percent before their access is activated.",
                "What score is needed to get Sentinel access?",
            ),
        },
    ),
    doc(
        "wholesale",
        "proc-vessel-screening",
        "Vessel and port screening for payments and trade",
        "confidential",
        """
## What is screened
Vessel names, IMO numbers, flags and ports of call in payment messages and trade documents are
screened against the sanctions lists and the commercial ship-tracking service.

## Dark activity
[[vessel-ais|A vessel whose AIS transponder was switched off for more than 48 hours near a
high-risk port in the last 12 months is treated as a possible match.]]

## Ship-to-ship transfers
Transfers of cargo between ships at sea in high-risk areas are escalated to Group Compliance
with the tracking report attached.
""",
        tick=720,
        doc_type="standard",
        facts={
            "vessel-ais": fact(
                "Ships that went dark for over two days near a high-risk port within the past "
                "year are handled as possible matches.",
                "A vessel whose AIS transponder was switched off for more than 12 hours near a "
                "high-risk port in the last 12 months is treated as a possible match.",
                "How do we treat a ship that turned off its AIS?",
                private=True,
            ),
        },
    ),
    doc(
        "wholesale",
        "terms-trade-finance-fees",
        "Trade finance tariff",
        "public",
        """
## Letters of credit
Issuing a letter of credit costs 0.25 percent per quarter, minimum GBP 150. Amendments cost
GBP 75 each.

## Documents
[[tariff-discrepancy|A discrepancy fee of USD 95 is charged for each presentation with
discrepant documents.]] Document examination is included in the issuing fee.

## Guarantees
Bank guarantees cost from 1 percent a year, depending on the risk of the applicant.
""",
        tick=505,
        doc_type="product-terms",
        facts={
            "tariff-discrepancy": fact(
                "Each presentation with discrepant documents is charged USD 95.",
                "A discrepancy fee of USD 59 is charged for each presentation with discrepant "
                "documents.",
                "How much is the discrepancy fee?",
            ),
        },
    ),
    doc(
        "wholesale",
        "pol-credit-authorities",
        "Credit approval authorities",
        "confidential",
        """
## Delegated authorities
Senior credit officers may approve exposures up to GBP 50 million to investment-grade
clients. Larger exposures and all leveraged loans go to Credit Committee.

## Underwriting
[[credit-underwrite|Any underwriting commitment above GBP 250 million needs Credit Committee
approval and a sell-down plan.]] Final holds above GBP 100 million in a single leveraged loan
need the Chief Risk Officer's consent.

## Meetings
Credit Committee meets every Wednesday and can meet at 24 hours' notice for live deals.
""",
        tick=600,
        facts={
            "credit-underwrite": fact(
                "Underwriting more than GBP 250 million requires Credit Committee sign-off and a "
                "plan to sell down.",
                "Any underwriting commitment above GBP 500 million needs Credit Committee approval "
                "and a sell-down plan.",
                "Who approves a large underwriting commitment?",
            ),
        },
    ),
    doc(
        "retail",
        "faq-collections-agents",
        "Collections floor FAQ",
        "internal",
        """
## Can I agree a payment date after the customer's payday?
Yes, as long as it is within the promise to pay limits in your call script. Note the payday
in the contact history.

## The customer wants to talk about a late fee during an arrears call
Deal with the arrears first, then follow the late fee script. Do not trade a fee refund for a
promise to pay.

## The customer asks for more time than I can agree
Transfer them to the Hardship Team with a warm handover, and tell them a specialist will take
over the conversation.
""",
        tick=690,
        doc_type="faq",
    ),
    doc(
        "retail",
        "proc-arrears-letters",
        "Arrears letters schedule",
        "internal",
        """
## Letters and texts
Customers in arrears receive a text message on day 3, a reminder letter on day 15 and an
arrears information sheet on day 30. [[letters-day60|A final reminder letter is sent on day 60,
before any default notice.]]

## Suppression
Letters are suppressed while a customer is in breathing space, in a bereavement pause or
in an agreed arrangement that is being kept.
""",
        tick=615,
        doc_type="procedure",
        facts={
            "letters-day60": fact(
                "The final reminder goes out at 60 days in arrears, ahead of a default notice.",
                "A final reminder letter is sent on day 45, before any default notice.",
                "When is the final reminder letter sent?",
            ),
        },
    ),
    doc(
        "retail",
        "pol-responsible-lending",
        "Responsible lending standard",
        "internal",
        """
## Affordability
Every new loan, card and overdraft is assessed for affordability using verified income and
credit reference data. [[lending-dti|Applications where unsecured debt repayments would exceed
40 percent of net monthly income are declined.]]

## Limit increases
Credit limit increases are offered only to customers who have not been in arrears in the last
12 months.
""",
        tick=540,
        facts={
            "lending-dti": fact(
                "We turn down applications if unsecured repayments would take more than 40 "
                "percent of take-home pay.",
                "Applications where unsecured debt repayments would exceed 50 percent of net "
                "monthly income are declined.",
                "What debt-to-income limit do we lend to?",
            ),
        },
    ),
    doc(
        "retail",
        "terms-savings-general",
        "General terms for savings accounts",
        "public",
        """
## Interest
Interest on variable rate accounts is calculated daily on the cleared balance. Rates for every
account are on the rate sheet in branches and on our website.

## Rate changes
We tell you at least 14 days before we reduce a variable rate, and at least 2 months before
if the balance is over GBP 100. Increases apply straight away.

## Closing an account
You can close a variable rate account at any time. Fixed rate accounts cannot be closed before
they mature unless their key facts say otherwise.
""",
        tick=450,
        doc_type="product-terms",
    ),
    doc(
        "retail",
        "terms-credit-cards-general",
        "General terms for credit cards",
        "public",
        """
## Paying your bill
You must pay at least the minimum payment shown on your statement by the due date. Interest
on purchases is not charged if you pay the full balance by the due date.

## Promotional rates
Promotional rates end early if you miss a payment; the standard rate then applies to the
promotional balance.

## Fees
Cash withdrawals cost 3 percent of the amount, minimum GBP 3. Fees are listed in each card's
key facts.
""",
        tick=470,
        doc_type="product-terms",
    ),
    doc(
        "retail",
        "terms-mortgage-general",
        "General terms for mortgages",
        "public",
        """
## Overpayments
You can overpay at any time. On fixed and tracker rates with early repayment charges, the
overpayment allowance is shown in the key facts.

## Moving home
Most of our mortgages are portable: you can take the rate with you if you move, subject to
a new affordability assessment.

## Payment difficulties
If you are worried about paying, contact us as early as you can. We have a range of options,
and asking for help will not by itself affect your credit file.
""",
        tick=500,
        doc_type="product-terms",
    ),
    doc(
        "retail",
        "proc-power-of-attorney",
        "Registering a power of attorney",
        "internal",
        """
## Documents we accept
We accept registered lasting powers of attorney, enduring powers of attorney and court
deputyship orders. We need the original or a certified copy.

## Timescales
[[poa-days|A power of attorney is registered on the customer's accounts within five business
days of receipt.]] The attorney receives confirmation by post.
""",
        tick=560,
        doc_type="procedure",
        facts={
            "poa-days": fact(
                "Powers of attorney are added to the accounts within five working days of "
                "arriving.",
                "A power of attorney is registered on the customer's accounts within fifteen "
                "business days of receipt.",
                "How long does it take to register a power of attorney?",
            ),
        },
    ),
    doc(
        "retail",
        "training-hardship-conversations",
        "Training: having a hardship conversation",
        "internal",
        """
## Why it matters
Customers in financial difficulty often wait months before asking for help. A good first
conversation makes it more likely that they stay in touch.

## The conversation
Let the customer tell their story. Use plain words, avoid jargon such as forbearance or
capitalisation, and never pressure the customer into a payment they cannot afford.

## Options to mention
Payment holidays, reduced payment plans, interest freezes and breathing space each suit
different situations. Explain what each would cost the customer before they choose.
""",
        tick=430,
        doc_type="training",
    ),
    doc(
        "advisory",
        "pol-information-barriers",
        "Information barriers",
        "internal",
        """
## What a barrier is
An information barrier separates people who hold inside information on a project from
everyone else. Barriers are set up by the Control Room when a project is opened.

## Working behind a barrier
Deal documents are stored in restricted folders that only the deal team can open. Do not
discuss a project in open-plan areas, lifts or on public transport.

## Crossing a barrier
Bringing someone over a barrier is a wall-crossing and follows the wall-crossing procedure.
""",
        tick=380,
    ),
    doc(
        "advisory",
        "proc-insider-lists",
        "Maintaining insider lists",
        "internal",
        """
## Who is listed
Every person with access to inside information on a project is on its insider list, whether
inside Tidewater or at the client and its advisers.

## Updates
[[insider-update|The deal team's insider list owner sends updates to the Control Room within
two hours of anyone being added.]] Lists are kept for at least five years after the project.

## Leaving a list
People are never removed from a list; the date their access ended is recorded instead.
""",
        tick=520,
        doc_type="procedure",
        facts={
            "insider-update": fact(
                "Additions to an insider list must reach the Control Room within two hours.",
                "The deal team's insider list owner sends updates to the Control Room within two "
                "days of anyone being added.",
                "How quickly must insider list changes reach the Control Room?",
            ),
        },
    ),
    doc(
        "advisory",
        "training-takeover-code",
        "Training: the Takeover Code for deal teams",
        "internal",
        """
## Secrecy before an announcement
Before an offer is announced, everyone who knows about it must keep it secret. The number of
people who know should be kept to a minimum.

## Leaks
If there is rumour, speculation or an untoward movement in the target's share price, the
Takeover Panel must be consulted and an announcement may be required at short notice. Deal
teams prepare a short holding announcement early for this reason.

## Firm offers
A firm offer announcement under Rule 2.7 is made only when the bidder is sure it can pay,
and its financial adviser has confirmed that cash is available.
""",
        tick=460,
        doc_type="training",
    ),
    doc(
        "advisory",
        "guide-valuation-methods",
        "Guide: valuation methods in pitch and deal work",
        "internal",
        """
## Discounted cash flow
A DCF values the business on its forecast free cash flows, discounted at the weighted average
cost of capital (WACC). Always show a range, with sensitivity to WACC and terminal growth.

## Comparables
Trading comparables use the multiples of listed peers; precedent transactions use the
multiples paid in past deals, including the control premium.

## Premiums
Offer premiums are measured against the undisturbed share price, the last closing price
before any leak or announcement.
""",
        tick=410,
        doc_type="guide",
    ),
    doc(
        "advisory",
        "pol-fee-approvals",
        "Fee approvals for advisory mandates",
        "internal",
        """
## Minimum fees
[[fee-minimum|Success fees below GBP 1 million need approval from the head of advisory.]]
Retainers are normally credited against the success fee.

## Fee letters
Fee letters are drafted from the standard template and reviewed by Legal before they are
sent. Any fee sharing with another adviser needs Compliance approval.
""",
        tick=555,
        facts={
            "fee-minimum": fact(
                "The head of advisory must approve any success fee under GBP 1 million.",
                "Success fees below GBP 5 million need approval from the head of advisory.",
                "Who approves a low success fee?",
            ),
        },
    ),
    doc(
        "advisory",
        "pol-market-soundings",
        "Market soundings",
        "internal",
        """
## What a sounding is
A market sounding is a conversation with potential investors before a transaction is
announced, to gauge interest, size and price.

## Rules
Soundings that involve inside information follow the wall-crossing procedure and use the
approved script. [[sounding-record|Every sounding, with or without inside information, is
recorded in the soundings log on the day it takes place.]]

## Cleansing
Investors who received inside information are told when it has been made public or is no
longer inside information.
""",
        tick=640,
        doc_type="procedure",
        facts={
            "sounding-record": fact(
                "All soundings go in the soundings log the same day, whether or not inside "
                "information was shared.",
                "Only soundings that involve inside information are recorded in the soundings log.",
                "Do all market soundings need to be logged?",
            ),
        },
    ),
    doc(
        "advisory",
        "faq-ecm-process",
        "FAQ: how an IPO process runs",
        "internal",
        """
## Stages
An IPO runs through preparation, pre-deal investor education, the announcement of the price
range, bookbuilding and pricing. Listing normally follows pricing within three business days.

## Research
Connected research is published before the price range is announced; after pricing, a quiet
period applies to connected analysts.

## Free float
The Listing Rules require a minimum free float; the exact percentage for each deal is agreed
with the company and its advisers.
""",
        tick=500,
        doc_type="faq",
    ),
]
