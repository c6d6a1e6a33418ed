"""Wholesale tenant: payments, sanctions and markets policies, minutes and incidents.

Content module: long by nature (prose tables), no logic.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc, fact

T = "wholesale"

DOCS: list[DocSpec] = [
    doc(
        T,
        "pol-sanctions-hold-release",
        "Sanctions hold release policy",
        "internal",
        """
## Purpose
This policy governs how Payments Operations releases an inbound or outbound payment that
the screening engine has placed on sanctions hold. It applies to the London, Dubai and
Singapore clearing centres and to every currency Tidewater clears.

## Hold release
[[hold-review|A payment on sanctions hold may be released only after a screening review is
completed and recorded in Sentinel.]] The reviewer records the list, the matched name, the
reason the match was discounted and any documents obtained from the client.

## Dual control
[[hold-dual|Releases above {limit} (or the equivalent in another currency) require dual
control by two authorised officers.]] The second officer must not have worked the alert.
Releases at or below the threshold may be approved by a single Level 2 screening officer.

## Escalation
[[hold-escalation|If a possible match scores above {score}, the case must be escalated to
Group Compliance before any release.]] Matches against vessel names, ports or IMO numbers
are always escalated, whatever their score.

## Ownership
[[hold-owner|The policy owner is the Head of Sanctions Operations, Daniel Achterberg.]] The
policy is reviewed at least once a year and after any regulatory finding.
""",
        versions=(
            (310, {"limit": "AED 100,000", "score": "0.80"}),
            (655, {"limit": "AED 50,000", "score": "0.80"}),
            (930, {"limit": "AED 50,000", "score": "0.85"}),
        ),
        facts={
            "hold-review": fact(
                "Before a payment stopped for sanctions can go out, someone has to finish the "
                "screening review and log it in Sentinel.",
                "A payment on sanctions hold may be released before the screening review is "
                "completed, provided the review is recorded within one business day.",
                "When is it allowed to let a payment on sanctions hold go?",
            ),
            "hold-dual": fact(
                "Letting go of a held payment worth more than {limit} needs sign-off from two "
                "authorised officers.",
                "Releases above {limit} require approval by a single Level 2 screening officer.",
                "How many people must approve releasing a large payment stuck on a sanctions hold?",
            ),
            "hold-escalation": fact(
                "Any possible match with a score over {score} goes to Group Compliance before the "
                "payment is let go.",
                "If a possible match scores above {score}, the payment may be released and Group "
                "Compliance informed afterwards.",
                "Which sanctions hits must go to Group Compliance before release?",
            ),
            "hold-owner": fact(
                "Daniel Achterberg, who heads Sanctions Operations, owns the hold release policy.",
                "The policy owner is the Head of Payments Operations, Daniel Achterberg.",
                "Who owns the sanctions hold release policy?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "minutes-sanctions-committee-2026-03",
        "Sanctions Committee minutes, March 2026",
        "restricted",
        """
## Attendance
Chair: Chief Compliance Officer, Ingrid Solheim. Members present: Head of Sanctions
Operations, Head of Payments Operations, Head of Screening Analytics, Group General Counsel's
delegate. Quorum was confirmed.

## Dual control threshold for releasing held payments
The committee reviewed the dual control threshold for releasing payments on sanctions hold.
[[min-threshold|The committee approved lowering the dual control threshold for sanctions hold
releases from AED 100,000 to AED 50,000, effective 1 April 2026.]] The change follows the
internal audit finding that 11 percent of single-approver releases in Q4 2025 lacked a
recorded rationale.

## Kestrel Marine Services
[[min-kestrel|The committee agreed that Tidewater will not process further payments to
Kestrel Marine Services until enhanced due diligence on its vessel fleet is complete.]]
Relationship managers of the three remitting clients will be informed by Group Compliance.

## Actions
[[min-action|The Head of Screening Analytics will present a proposal to raise the escalation
score from 0.80 to 0.85 at the June meeting.]]
""",
        tick=652,
        doc_type="minutes",
        facts={
            "min-threshold": fact(
                "In March 2026 the sanctions committee cut the dual control limit for releasing "
                "held payments from AED 100,000 to AED 50,000.",
                "The committee approved raising the dual control threshold for sanctions hold "
                "releases from AED 50,000 to AED 100,000, effective 1 April 2026.",
                "Why did the dual control threshold for held payments change in 2026?",
            ),
            "min-kestrel": fact(
                "No more payments to Kestrel Marine Services will be processed until the enhanced "
                "due diligence on its ships is finished.",
                "The committee agreed that Tidewater will continue to process payments to Kestrel "
                "Marine Services while enhanced due diligence on its vessel fleet is completed.",
                "Can we still send payments to Kestrel Marine Services?",
                private=True,
            ),
            "min-action": fact(
                None,
                "The Head of Screening Analytics will present a proposal to lower the escalation "
                "score from 0.85 to 0.80 at the June meeting.",
                "Who will propose changing the sanctions escalation score?",
            ),
        },
    ),
    doc(
        T,
        "pol-screening-thresholds",
        "Screening match thresholds and tuning standard",
        "confidential",
        """
## Matching thresholds
Sentinel uses fuzzy name matching against the consolidated sanctions lists. [[thr-individual|An
alert is raised for an individual when the name similarity score reaches 0.82.]]
[[thr-entity|For entities and vessels the alert threshold is 0.78.]] Dates of birth,
nationality and country of registration are secondary identifiers: they are used to discount
alerts, never to suppress them before they are raised.

## Tuning
Thresholds are tuned every quarter on a labelled sample of 2,000 closed alerts.
[[thr-tuning|A threshold change may not reduce the true-match detection rate on the sample
below 99.5 percent.]] Every change runs in the pre-production environment for at least ten
business days before go-live.

## Ownership
[[thr-owner|Threshold tuning is owned by the Head of Screening Analytics, {owner}]], with
independent validation by Group Model Risk.
""",
        versions=((400, {"owner": "Martin Okafor"}), (880, {"owner": "Priya Raman"})),
        facts={
            "thr-individual": fact(
                "Sentinel flags a person once the name similarity hits 0.82.",
                "An alert is raised for an individual when the name similarity score reaches 0.78.",
                "At what similarity score does screening alert on a person's name?",
                private=True,
            ),
            "thr-entity": fact(
                "Companies and ships generate an alert from a score of 0.78.",
                "For entities and vessels the alert threshold is 0.82.",
                "What match score triggers an alert for a company or a ship?",
                private=True,
            ),
            "thr-tuning": fact(
                "No tuning change may let detection of true matches on the test sample fall under "
                "99.5 percent.",
                "A threshold change may not reduce the false-positive rate on the sample below "
                "99.5 percent.",
                "What limit applies when recalibrating screening thresholds?",
                private=True,
            ),
            "thr-owner": fact(
                "{owner} is responsible for tuning the screening thresholds.",
                "Threshold tuning is owned by Group Model Risk, with independent validation by "
                "the Head of Screening Analytics.",
                "Who owns screening threshold tuning?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "proc-alert-triage",
        "Screening alert triage procedure",
        "internal",
        """
## Scope
This procedure covers alerts raised by Sentinel on wholesale payments and on periodic
customer screening, from the moment an alert reaches the Level 1 queue until it is closed.

## Service levels
[[triage-sla-payment|Level 1 analysts must disposition a payment alert within {psla} of it
being raised.]] [[triage-sla-customer|Customer screening alerts must be dispositioned within
2 business days.]] Alerts that breach their service level turn red on the Sentinel queue and
are reported daily to the Head of Sanctions Operations.

## Disposition
An analyst may close an alert as a false positive only when at least two secondary
identifiers differ from the listed party. [[triage-l2|Alerts that cannot be discounted are
referred to a Level 2 screening officer with a written rationale.]] Analysts never contact
the client about a possible sanctions match; requests for information go through the
relationship manager using the approved template.

## Quality assurance
[[triage-qa|Five percent of closed false positives are re-checked each week by the Screening
Quality team.]] Errors are fed back to the analyst and counted in the monthly quality score.
""",
        versions=((420, {"psla": "8 business hours"}), (845, {"psla": "4 business hours"})),
        doc_type="procedure",
        facts={
            "triage-sla-payment": fact(
                "A payment alert has to be worked by Level 1 within {psla} after it appears.",
                "Level 1 analysts must disposition a payment alert within 2 business days of it "
                "being raised.",
                "How quickly must a payment screening alert be handled?",
            ),
            "triage-sla-customer": fact(
                "Periodic customer screening hits get two working days to be resolved.",
                "Customer screening alerts must be dispositioned within 4 business hours.",
                "What is the deadline for clearing customer screening alerts?",
            ),
            "triage-l2": fact(
                "If an analyst cannot rule out a match, it goes to a Level 2 officer together with "
                "a written explanation.",
                "Alerts that cannot be discounted are closed by the Level 1 analyst with a written "
                "rationale.",
                "What happens to an alert the analyst cannot discount?",
            ),
            "triage-qa": fact(
                "Every week the Screening Quality team rechecks one in twenty closed false "
                "positives.",
                "Fifteen percent of closed false positives are re-checked each week by the "
                "Screening Quality team.",
                "How many closed false positives get a quality re-check?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "bulletin-2025-07-screening",
        "Operations bulletin, July 2025: screening queue changes",
        "internal",
        """
## What is changing
From 1 August 2025 the Sentinel queue is split in two: a payment alert queue staffed in
London and Dubai, and a customer screening queue staffed in Singapore. Analysts will be
assigned to one queue per rota week.

## Why
Mixed queues made it hard to see which payments were waiting on an alert. Splitting them
lets team leaders move analysts to payment alerts ahead of the currency cut-offs.

## What you need to do
Check your rota in WorkForce by 25 July. The service levels for both queues are under review
and will be confirmed in the next version of the triage procedure.
""",
        tick=380,
        doc_type="bulletin",
    ),
    doc(
        T,
        "pol-payment-cutoffs",
        "Payment cut-off times for same-day value",
        "public",
        """
## Same-day cut-off times
Instructions received before the cut-off below are processed for same-day value, subject to
screening and sufficient funds.

- GBP (CHAPS): 16:45 London time
- EUR (TARGET2): 15:30 London time
- [[cutoff-usd|USD payments (Fedwire, via our New York correspondent) must reach us by {usd}
  London time.]]
- AED (UAEFTS): 13:30 Dubai time
- SGD (MEPS+): 15:00 Singapore time

## Payments held for screening
[[cutoff-held|A payment that is held for screening keeps its original value date only if it is
released before the cut-off of its currency.]] Otherwise it is processed on the next business
day, and Tidewater is not liable for the delay.

## Bank holidays
Cut-offs follow the holiday calendar of the currency's clearing system. Client service
publishes the holiday calendar every December for the year ahead.
""",
        versions=((200, {"usd": "20:30"}), (760, {"usd": "21:00"})),
        doc_type="client-guide",
        facts={
            "cutoff-usd": fact(
                "US dollar payments have to reach us by {usd} UK time to go out the same day.",
                "USD payments (Fedwire, via our New York correspondent) must reach us by 17:00 "
                "London time.",
                "What is the latest time to send a dollar payment for same-day value?",
            ),
            "cutoff-held": fact(
                "If screening holds a payment past its currency's cut-off, it loses its original "
                "value date.",
                "A payment that is held for screening always keeps its original value date, even "
                "if it is released after the cut-off of its currency.",
                "Does a payment held for screening keep its value date?",
            ),
        },
    ),
    doc(
        T,
        "faq-payment-holds",
        "Client FAQ: why has my payment been held?",
        "public",
        """
## Why payments are held
Every payment Tidewater processes is screened against sanctions lists. If a name, a bank or a
place in the payment looks like an entry on a list, the payment is held while a specialist
checks it. Most holds are resolved the same day.

## How long a review takes
[[faq-duration|Most reviews of held payments are completed within one to two business
days.]] Reviews can take
longer when we need more information from you, for example an invoice, a bill of lading or
details of the goods.

## What we may ask for
Your relationship manager may ask for documents about the beneficiary or the underlying trade.
We cannot tell you which list or name caused the hold. Please do not resend the payment: a
duplicate will also be held.
""",
        tick=735,
        doc_type="client-guide",
        facts={
            "faq-duration": fact(
                "A held payment is usually checked within a business day or two.",
                "Most reviews of held payments are completed within five to ten business days.",
                "How long does it take to review a held payment?",
            ),
        },
    ),
    doc(
        T,
        "training-sanctions-basics",
        "Training: sanctions screening basics for payments staff",
        "internal",
        """
## What sanctions are
Sanctions are restrictions imposed by governments and international bodies on countries,
entities, individuals and vessels. Tidewater screens against the UN, EU, UK and US lists and
its own internal watchlist.

## How screening works
Each payment message is compared field by field with the lists. A hit does not mean the
party is sanctioned: most hits are false positives caused by common names or partial matches.

## Your role
If you handle payments, never release a payment that is on hold yourself and never tell a
client why a payment was held. Refer questions to the screening team through the Sentinel
queue. Tipping off a client about a possible sanctions match can be a criminal offence.
""",
        tick=240,
        doc_type="training",
    ),
    doc(
        T,
        "proc-payment-recall",
        "Payment recall and return procedure",
        "internal",
        """
## When a recall is requested
A client may ask Tidewater to recall a payment that was sent in error, sent twice or sent to
the wrong beneficiary. [[recall-window|Recall requests are accepted up to 10 business days after
the value date.]] Later requests are handled as a beneficiary bank enquiry with no guarantee.

## How to recall
Send a SWIFT gpi stop and recall request (camt.056) through the payments workstation, quoting
the original UETR. [[recall-fee|A recall fee of GBP 45 is charged to the client whether or not
the funds come back.]] Recalls of payments above GBP 1 million are also phoned through to the
beneficiary bank's investigations desk.

## Returned funds
Funds returned by the beneficiary bank are credited to the client at the exchange rate of the
day of return. Tidewater does not cover exchange losses on a recall.
""",
        tick=540,
        doc_type="procedure",
        facts={
            "recall-window": fact(
                "Clients can ask to pull back a payment for ten working days after its value date.",
                "Recall requests are accepted up to 30 business days after the value date.",
                "How long after sending can a client still recall a wire?",
            ),
            "recall-fee": fact(
                "Clients pay GBP 45 for a recall even when the money is not recovered.",
                "A recall fee of GBP 45 is charged to the client only if the funds come back.",
                "Is there a charge for recalling a payment?",
            ),
        },
    ),
    doc(
        T,
        "proc-four-eyes",
        "Four-eyes principle for payments and static data",
        "internal",
        """
## Principle
Every payment release, manual repair and change to client static data is made by one person
(the maker) and approved by another (the checker). [[four-eyes-same|The same person may never
act as maker and checker on the same item, even with a second user ID.]]

## Static data
Changes to standing settlement instructions are called back to the client on a number held on
file before approval. A change requested by email alone is never approved.

## Exceptions
In a declared business continuity event the Payments Duty Manager may approve items alone,
and every such item is reviewed the next business day.
""",
        tick=260,
        doc_type="procedure",
        facts={
            "four-eyes-same": fact(
                "One person can never both make and approve the same item, not even using another "
                "login.",
                "The same person may act as maker and checker on the same item if they use a "
                "second user ID.",
                "Can I approve a payment repair I made myself?",
            ),
        },
    ),
    doc(
        T,
        "pol-correspondent-dd",
        "Correspondent banking due diligence standard",
        "internal",
        """
## Onboarding
Every respondent bank completes the Wolfsberg correspondent banking questionnaire and
provides its AML policy, ownership structure and the names of its senior management.

## Periodic review
[[corr-review|High-risk respondent banks are reviewed every 12 months and all other
respondents every 24 months.]] A review is also triggered by adverse media, a regulatory
action or a change of ownership.

## Nested relationships
[[corr-nested|A respondent may offer services to other banks through its Tidewater account only
with the prior approval of the Correspondent Banking Committee.]] Shell banks are never
accepted as respondents or as nested banks.
""",
        tick=610,
        doc_type="standard",
        facts={
            "corr-review": fact(
                "Respondents rated high risk are reviewed every year; the rest every two years.",
                "High-risk respondent banks are reviewed every 24 months and all other respondents "
                "every 12 months.",
                "How often do we re-review correspondent banks?",
            ),
            "corr-nested": fact(
                "Downstream clearing for other banks through a Tidewater account needs the "
                "Correspondent Banking Committee's approval first.",
                "A respondent may offer services to other banks through its Tidewater account "
                "without approval, provided it notifies the Correspondent Banking Committee.",
                "Can a respondent bank let other banks use its account with us?",
            ),
        },
    ),
    doc(
        T,
        "pol-high-risk-jurisdictions",
        "High-risk jurisdictions standard",
        "confidential",
        """
## Tiers
Financial Crime Compliance keeps a list of jurisdictions in three tiers. Tier 1 countries are
under comprehensive sanctions; Tier 2 countries have targeted sanctions or strategic AML
deficiencies; Tier 3 countries carry elevated corruption or tax risk.

## Treatment of payments
[[hrj-tier1|Payments involving a Tier 1 jurisdiction are blocked and reported to Group
Compliance the same day.]] [[hrj-tier2|Payments involving a Tier 2 jurisdiction need approval
from a Financial Crime Compliance officer before release.]] Tier 3 payments follow normal
screening but are sampled monthly.

## Updates
The list is reviewed every month and whenever a sanctions regime changes. Changes are
published on the compliance intranet and loaded into Sentinel within one business day.
""",
        tick=905,
        doc_type="standard",
        facts={
            "hrj-tier1": fact(
                "Anything touching a Tier 1 country is stopped and reported to Group Compliance "
                "on the day.",
                "Payments involving a Tier 1 jurisdiction need approval from a Financial Crime "
                "Compliance officer before release.",
                "What do we do with a payment involving a comprehensively sanctioned country?",
                private=True,
            ),
            "hrj-tier2": fact(
                "A Financial Crime Compliance officer must approve Tier 2 payments before they go.",
                "Payments involving a Tier 2 jurisdiction are blocked and reported to Group "
                "Compliance the same day.",
                "Who approves payments to a Tier 2 country?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "proc-trade-docs-checking",
        "Documentary credit examination procedure",
        "internal",
        """
## Examination period
Documents presented under a letter of credit are examined against the credit and UCP 600.
[[trade-days|Under a letter of credit, the examiner has a maximum of five banking days after
presentation to decide whether the documents comply.]]

## Discrepancies
If documents are discrepant, the examiner contacts the applicant for a waiver before refusing.
A refusal notice lists every discrepancy in a single message; a second refusal notice for the
same presentation is not allowed.

## Goods, vessels and ports
Every bill of lading is screened for the vessel name, IMO number and ports of loading and
discharge. [[trade-dualuse|Goods that may be dual-use are referred to the Trade Compliance desk
before payment.]]
""",
        tick=470,
        doc_type="procedure",
        facts={
            "trade-days": fact(
                "Checkers get at most five banking days from presentation to accept or refuse "
                "documents.",
                "Under a letter of credit, the examiner has a maximum of ten banking days after "
                "presentation to decide whether the documents comply.",
                "How long do we have to examine documents under a letter of credit?",
            ),
            "trade-dualuse": fact(
                "Possible dual-use goods go to Trade Compliance before we pay.",
                "Goods that may be dual-use are referred to the Trade Compliance desk after "
                "payment.",
                "What happens when a shipment might contain dual-use items?",
            ),
        },
    ),
    doc(
        T,
        "pol-fx-dealing-limits",
        "FX dealing limits",
        "confidential",
        """
## Ticket limits
Limits apply per ticket and are set in the dealing system, which rejects any trade above them.

- Junior dealer: USD 5 million
- [[fx-senior|A senior dealer may trade up to USD {senior} million per ticket.]]
- Head of desk: USD 100 million

## Open positions
[[fx-overnight|The desk's overnight open position may not exceed USD 40 million across all
currency pairs.]] Breaches are reported to Market Risk by 09:00 the next morning.

## Exceptions
Temporary limit increases are approved by the Head of Markets and Market Risk together and
expire after five business days.
""",
        versions=((450, {"senior": "20"}), (815, {"senior": "25"})),
        facts={
            "fx-senior": fact(
                "A senior FX dealer can trade up to USD {senior} million per ticket.",
                "A senior dealer may trade up to USD 50 million per ticket.",
                "What is a senior dealer's per-ticket FX limit?",
                private=True,
            ),
            "fx-overnight": fact(
                "Across all pairs, the desk can hold no more than USD 40 million open overnight.",
                "The desk's overnight open position may not exceed USD 100 million across all "
                "currency pairs.",
                "How big an FX position can the desk carry overnight?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "pol-liquidity-buffer",
        "Internal liquidity buffer targets",
        "restricted",
        """
## Targets
[[liq-lcr|The Board has set an internal liquidity coverage ratio target of 130 percent, above
the regulatory minimum of 100 percent.]] The survival horizon under the group's severe
combined stress must stay above 90 days.

## Intraday liquidity
[[liq-intraday|Treasury holds an intraday liquidity buffer of GBP 1.2 billion for the payment
systems.]] Usage above 60 percent of the buffer before 14:00 is escalated to the Group
Treasurer.
""",
        tick=870,
        facts={
            "liq-lcr": fact(
                "Our own LCR target is 130 percent, well above the 100 percent the regulator "
                "requires.",
                "The Board has set an internal liquidity coverage ratio target of 110 percent, "
                "above the regulatory minimum of 100 percent.",
                "What LCR does the bank target internally?",
                private=True,
            ),
            "liq-intraday": fact(
                "For payment systems, Treasury keeps GBP 1.2 billion of intraday liquidity in "
                "reserve.",
                "Treasury holds an intraday liquidity buffer of GBP 2.1 billion for the payment "
                "systems.",
                "How large is the intraday liquidity buffer?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "inc-2026-014-screening-outage",
        "Incident INC-2026-014: Sentinel screening outage",
        "confidential",
        """
## Summary
[[inc14-duration|On 17 February 2026 the Sentinel screening engine was unavailable for 3 hours
and 20 minutes]], from 10:05 to 13:25 London time. [[inc14-queued|During the Sentinel outage
412 outbound payments were queued and none were released unscreened.]]

## Root cause
An expired TLS certificate on the list-management server stopped the nightly list load from
completing, and the engine refused to start with an incomplete list.

## Actions
Certificate expiry dates are now monitored with a 30-day warning. The business continuity plan
was updated so that payments above GBP 10 million can be screened manually during an outage.
""",
        tick=700,
        doc_type="incident",
        facts={
            "inc14-duration": fact(
                "Sentinel was down for three hours twenty minutes on 17 February 2026.",
                "On 17 February 2026 the Sentinel screening engine was unavailable for 5 hours "
                "and 20 minutes",
                "How long was the screening engine down in February?",
                private=True,
            ),
            "inc14-queued": fact(
                "The outage left 412 outgoing payments waiting, and not one went out without "
                "screening.",
                "During the Sentinel outage 412 outbound payments were released without screening.",
                "Were payments released without screening during the Sentinel outage?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "inc-2026-021-duplicate-mt103",
        "Incident INC-2026-021: duplicate MT103 messages",
        "confidential",
        """
## Summary
On 9 April 2026 a restart of the SWIFT gateway resent 37 MT103 messages that had already been
acknowledged. [[inc21-amount|Duplicate MT103 payments worth GBP 2.3 million were sent, and all
but GBP 180,000 was recovered within five business days.]]

## Root cause
The gateway's message store was restored from a snapshot taken before the acknowledgements
were written. The restart runbook did not require a duplicate check.

## Actions
The runbook now requires a UETR duplicate check before any resend. Clients affected were
contacted by their relationship managers on the same day.
""",
        tick=790,
        doc_type="incident",
        facts={
            "inc21-amount": fact(
                "The duplicated payments totalled GBP 2.3 million; GBP 180,000 of it had not come "
                "back after five business days.",
                "Duplicate MT103 payments worth GBP 2.3 million were sent, and all of it was "
                "recovered within five business days.",
                "How much money went out twice in the April gateway incident?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "inc-2025-088-swift-delay",
        "Incident INC-2025-088: SWIFT gateway delay",
        "internal",
        """
## Summary
On 3 November 2025 outbound SWIFT messages were delayed by up to 70 minutes because of a full
message queue on the gateway. No messages were lost and all USD payments met the Fedwire
cut-off.

## Actions
Queue depth alerts were lowered so that operations are paged before the queue is half full.
""",
        tick=330,
        doc_type="incident",
    ),
    doc(
        T,
        "terms-business-account",
        "Tidewater Business Current Account: fees and terms",
        "public",
        """
## Account fees
The Business Current Account costs GBP 25 a month, which includes 50 electronic payments in
GBP. [[biz-chaps|Each CHAPS payment from the Business Current Account costs GBP {chaps}.]]
[[biz-intl|International payments from the Business Current Account cost USD 30 each, plus any
correspondent charges if you choose the OUR charging option.]]

## Statements
Statements are issued monthly in the online banking portal and are kept there for seven years.

## Closing the account
[[biz-closure|Either party may close a Business Current Account by giving 30 days'
written notice.]] Tidewater
may close an account immediately where the law requires it.
""",
        versions=((150, {"chaps": "20"}), (690, {"chaps": "22"})),
        doc_type="product-terms",
        facts={
            "biz-chaps": fact(
                "A same-day CHAPS transfer from the business account is charged at GBP {chaps}.",
                "Each CHAPS payment from the Business Current Account costs GBP 25.",
                "How much does a CHAPS payment cost on the business account?",
            ),
            "biz-intl": fact(
                "Sending money abroad costs USD 30 per payment, with correspondent fees on top "
                "for OUR payments.",
                "International payments from the Business Current Account cost USD 30 each, and "
                "correspondent charges are always included.",
                "What is the fee for an international payment?",
            ),
            "biz-closure": fact(
                "Either side can end the account relationship with a month's written notice.",
                "Either party may close a Business Current Account by giving 90 days' written "
                "notice.",
                "How much notice is needed to close a business account?",
            ),
        },
    ),
    doc(
        T,
        "terms-cash-pooling",
        "Notional cash pooling: product terms",
        "public",
        """
## How notional pooling works
Balances of the accounts in a pool are added together for interest purposes without moving
funds. Each account keeps its own balance and its own currency.

## Eligibility
[[pool-min|A notional cash pool needs at least three accounts and a combined average credit
balance of GBP 2 million.]] All pool members must belong to the same corporate group and sign the
cross guarantee.

## Interest
Interest is paid on the net pool balance at the Tidewater pool rate, reviewed monthly.
Debit balances within the pool are charged at SONIA plus 2.5 percent.
""",
        tick=520,
        doc_type="product-terms",
        facts={
            "pool-min": fact(
                "Pooling requires three accounts or more and an average combined credit of GBP 2 "
                "million.",
                "A notional cash pool needs at least five accounts and a combined average credit "
                "balance of GBP 2 million.",
                "What are the minimum requirements to set up a cash pool?",
            ),
        },
    ),
    doc(
        T,
        "terms-fx-forwards",
        "FX forward contracts: product terms",
        "public",
        """
## Tenors
Forward contracts are available in all major currencies for settlement up to 24 months ahead.
Window forwards let you draw down in parts between two dates.

## Margin
[[fwd-margin|If the mark-to-market loss on your forwards exceeds 80 percent of the agreed
credit line, Tidewater may call for cash margin within two business days.]]

## Early close-out
A forward can be closed early at the prevailing market rate; any gain or loss is settled on
the close-out date.
""",
        tick=585,
        doc_type="product-terms",
        facts={
            "fwd-margin": fact(
                "Once forward losses pass 80 percent of the credit line, the bank can ask for cash "
                "collateral within two working days.",
                "If the mark-to-market loss on your forwards exceeds 50 percent of the agreed "
                "credit line, Tidewater may call for cash margin within two business days.",
                "When will the bank make a margin call on FX forwards?",
            ),
        },
    ),
    doc(
        T,
        "pr-instant-treasury",
        "Press release: Tidewater launches Instant Treasury",
        "public",
        """
## Announcement
Tidewater Corporate & Transaction Banking today launched Instant Treasury, a service that
gives corporate clients real-time balances and instant payments in GBP, EUR and SGD from a
single dashboard.

## Availability
[[pr-it-clients|Instant Treasury is available to clients in the United Kingdom and Singapore
from 2 March 2026, with the UAE to follow later in the year.]]
""",
        tick=610,
        doc_type="press-release",
        facts={
            "pr-it-clients": fact(
                "UK and Singapore clients can use Instant Treasury from 2 March 2026; the UAE "
                "comes later in 2026.",
                "Instant Treasury is available to clients in the United Kingdom and the UAE from 2 "
                "March 2026, with Singapore to follow later in the year.",
                "Where can clients use Instant Treasury?",
            ),
        },
    ),
    doc(
        T,
        "pol-channel-payment-limits",
        "Online banking payment limits for corporate clients",
        "internal",
        """
## Default limits
[[chan-daily|New corporate clients start with a default daily limit of GBP 5 million across all
online payments]] and a single-payment limit of GBP 1 million.

## Raising a limit
A client may ask for a higher limit through its relationship manager. Increases up to GBP 25
million a day are approved by the Head of Client Service; higher limits need Credit Risk
approval as well.

## Temporary limits
Temporary increases last at most ten business days and are removed automatically.
""",
        tick=560,
        doc_type="standard",
        facts={
            "chan-daily": fact(
                "A newly onboarded corporate can pay out up to GBP 5 million a day online by "
                "default.",
                "New corporate clients start with a default daily limit of GBP 1 million across "
                "all online payments",
                "What online payment limit does a new corporate client get?",
            ),
        },
    ),
    doc(
        T,
        "sar-statistics-2026-q1",
        "Suspicious activity reporting: wholesale statistics, first quarter 2026",
        "restricted",
        """
## Volumes
[[sar-count|Wholesale banking filed 63 suspicious activity reports in the first quarter of
2026]], 17 of them linked to sanctions evasion typologies such as ship-to-ship transfers and
front companies.

## Timeliness
Ninety-two percent of reports were filed within seven days of the internal referral; the
others needed information from overseas branches.
""",
        tick=870,
        doc_type="management-information",
        facts={
            "sar-count": fact(
                "In Q1 2026 the wholesale bank submitted 63 SARs.",
                "Wholesale banking filed 36 suspicious activity reports in the first quarter of "
                "2026",
                "How many suspicious activity reports did wholesale file in the first quarter?",
                private=True,
            ),
        },
    ),
]
