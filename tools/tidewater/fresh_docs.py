"""Re-issued documents of every tenant: an old circular, bulletin or note next to its successor.

They exist for the freshness questions (``fresh_queries.py``): the old document states the
topic in the words a reader would search with, the newer one answers it as it stands now
(or, for a few topics, only says part of it). Under a freshness contract the old one is
stale, so a retriever that ignores the contract returns the wrong, out-of-date answer.
No facts are marked, so the claims of the set do not change.

Content module: long by nature (prose tables), no logic.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc

WHOLESALE: list[DocSpec] = [
    doc(
        "wholesale",
        "circ-2024-yearend-freeze",
        "Operations circular OC-2024-11: year-end change freeze",
        "internal",
        """
## Year-end change freeze
The year-end change freeze for payment systems runs from 16 December 2024 to 3 January 2025.
No changes may be made to the SWIFT gateway, Sentinel or the payment engine in that period.

## Exceptions
An emergency change during the freeze needs the approval of the Head of Payments Operations
and is logged in the change register.
""",
        tick=310,
        doc_type="circular",
    ),
    doc(
        "wholesale",
        "circ-2025-yearend-freeze",
        "Operations circular OC-2025-14: year-end change freeze",
        "internal",
        """
## Dates
This year systems stay frozen from 8 December 2025 until 9 January 2026, a week longer at
each end than before, to cover the migration of the payment engine.

## What is covered
The SWIFT gateway, Sentinel, the payment engine and the client channels. Changes to
reference data continue as normal.

## Emergency changes
An emergency change needs the approval of both the Head of Payments Operations and the
Chief Information Officer, and a review at the next Change Board.
""",
        tick=780,
        doc_type="circular",
    ),
    doc(
        "wholesale",
        "note-2025-list-loading",
        "Sentinel list management note, 2025",
        "confidential",
        """
## Loading new designations
A new sanctions designation must be loaded into Sentinel within 24 hours of its publication
by the UN, EU, UK or US authorities.

## Checks
After each load a screening officer runs the test names for the new designations and
records the result in the list log.
""",
        tick=290,
        doc_type="note",
    ),
    doc(
        "wholesale",
        "std-sanctions-list-management",
        "Sanctions list management standard",
        "confidential",
        """
## Timeliness
Designations published by the UN, EU, UK or US authorities are added to the Sentinel lists
within 2 hours of publication, day or night. A designation published over a weekend is
loaded by the on-call list manager.

## Testing
Every list update is tested with sample names before it goes live. A failed test stops
the load and is escalated to the Head of Sanctions Operations.

## Records
The list log records the source, the publication time and the time each update went live.
""",
        tick=820,
        doc_type="standard",
    ),
    doc(
        "wholesale",
        "rota-2025-out-of-hours",
        "Payments out-of-hours support, 2025",
        "internal",
        """
## Who to ring
Out of hours, a high-value payment that is stuck is escalated by phone to the duty payments
manager on the London night desk.

## Hours
The night desk is staffed from 18:00 to 07:00 on working days. At weekends call the IT
service desk, which pages the manager on call.
""",
        tick=420,
        doc_type="rota",
    ),
    doc(
        "wholesale",
        "rota-2026-out-of-hours",
        "Payments out-of-hours support from April 2026",
        "internal",
        """
## Cover after London closes
The London night desk has closed. From 1 April 2026, who to ring out of hours is the
Singapore payments control team: urgent payment problems after 18:00 London time go to them,
and they cover every currency until London opens.

## Escalation
A stuck payment above GBP 10 million is escalated by the Singapore team to the global duty
manager, whose number is on the control team's intranet page.
""",
        tick=720,
        doc_type="rota",
    ),
    doc(
        "wholesale",
        "trade-bulletin-2025-lc-confirmation",
        "Trade finance bulletin, 2025: confirming letters of credit",
        "internal",
        """
## Confirmation appetite
We can add our confirmation to a letter of credit issued by any bank on the approved
correspondent list, up to the country limit for the issuing bank's country.

## Process
Requests are sent to the trade credit desk, which answers within one business day.
""",
        tick=430,
        doc_type="bulletin",
    ),
    doc(
        "wholesale",
        "trade-bulletin-2026-lc-confirmation",
        "Trade finance bulletin, 2026: confirmation of documentary credits",
        "internal",
        """
## Issuing banks we confirm
Confirmation of a documentary credit is now limited to issuing banks with a current
counterparty limit approved by Credit Risk. Being on the correspondent list is no longer
enough.

## Country limits
Country limits still apply, and credits from banks in high-risk jurisdictions are not
confirmed.

## Requests
Send requests to the trade credit desk with the draft credit and the issuing bank's name.
""",
        tick=790,
        doc_type="bulletin",
    ),
    doc(
        "wholesale",
        "tariff-intl-payments-2025",
        "International payment charges for business clients, 2025",
        "public",
        """
## SEPA credit transfers
A SEPA credit transfer from a business account costs GBP 4.00 when sent online and GBP 15.00
when instructed in a branch.

## Other international payments
SWIFT payments in other currencies cost GBP 20.00 online. Correspondent bank charges may be
added.
""",
        tick=260,
        doc_type="product-terms",
    ),
    doc(
        "wholesale",
        "tariff-intl-payments-2026",
        "International payment charges for business clients, 2026",
        "public",
        """
## Payments in euro
Euro payments to banks in the SEPA zone are free when sent through online banking. Euro
payments instructed by phone or in a branch cost GBP 10.00.

## Payments in other currencies
SWIFT payments cost GBP 18.00 online. Charges taken by other banks are passed on as before.

## When charges apply
Charges are taken from the paying account at the end of each month.
""",
        tick=870,
        doc_type="product-terms",
    ),
    doc(
        "wholesale",
        "bulletin-2025-callback",
        "Operations bulletin, 2025: call-backs on bank detail changes",
        "internal",
        """
## Call-backs
Before changing a client's bank details on file, phone the client back on a number held on
our records when the change affects payments above GBP 50,000.

## Recording
Record the call-back in the client's static data history.
""",
        tick=450,
        doc_type="bulletin",
    ),
    doc(
        "wholesale",
        "std-callback-verification",
        "Verification standard for changes to client account details",
        "internal",
        """
## Every change is verified
Since the invoice fraud losses of early 2026, every request to change a client's account
details is verified by a call to an authorised signatory, whatever the amounts involved.

## The number to call
Use only the telephone number held on our records. Never use a number given in the request
itself.

## After the call
The verifier records the name of the signatory and the time of the call before the change is
keyed.
""",
        tick=900,
        doc_type="standard",
    ),
    doc(
        "wholesale",
        "dr-test-2025-sentinel",
        "Sentinel disaster recovery test report, 2025",
        "confidential",
        """
## Results of the disaster recovery test
The Sentinel disaster recovery test failed over to the Dublin data centre in 38 minutes,
within the target of one hour. Screening of queued payments resumed without loss.

## Issues found
Two screening officers could not log in to the recovery site. Their access has been fixed.
""",
        tick=350,
        doc_type="report",
    ),
    doc(
        "wholesale",
        "resilience-plan-2026",
        "Operational resilience plan, 2026",
        "confidential",
        """
## Important business services
Sending payments and screening them against sanctions lists are the two important business
services of Payments Operations.

## Testing in 2026
A failover test of Sentinel is planned for the third quarter of 2026. Its results will be
reported to the Operational Risk Committee.

## Impact tolerance
Payments may not be unavailable for more than four hours in a day.
""",
        tick=760,
        doc_type="plan",
    ),
]

RETAIL: list[DocSpec] = [
    doc(
        "retail",
        "notice-2025-branch-hours",
        "Notice: branch opening hours, 2025",
        "public",
        """
## Saturday opening
Branch opening hours on Saturdays are 9:00 to 13:00 in all branches.

## Weekdays
Branches open from 9:00 to 17:00 Monday to Friday.
""",
        tick=300,
        doc_type="notice",
    ),
    doc(
        "retail",
        "notice-2026-branch-hours",
        "Notice: new branch hours from March 2026",
        "public",
        """
## What is changing
From March 2026 only our 40 largest branches open at the weekend, from 9:30 to 12:30 on
Saturday. All other branches close on Saturdays.

## Weekday hours
Monday to Friday hours do not change.

## Finding a branch
The branch finder on our website shows which branches open on Saturday.
""",
        tick=850,
        doc_type="notice",
    ),
    doc(
        "retail",
        "bulletin-2026-04-hardship",
        "Retail bulletin, April 2026: hardship referrals",
        "internal",
        """
## A third hardship site
The Hardship Team has opened a third site in Leeds, next to Cardiff and Glasgow, and the
three sites now share one queue.

## Referrals
From 1 May 2026, a customer who needs more than a short arrangement is referred to the
Hardship Team through the referral form in the case system, not by transferring the call.

## Telling the customer
Tell the customer that a hardship specialist will contact them within 2 business days.
""",
        tick=800,
        doc_type="bulletin",
    ),
    doc(
        "retail",
        "faq-direct-debit-refunds",
        "FAQ: direct debit refunds",
        "internal",
        """
## A direct debit was taken twice
Refund the second collection at once under the Direct Debit Guarantee. You do not need the
merchant's agreement and the customer does not need to contact the merchant first.

## Charges caused by the collection
Refund any overdraft interest or fees that the extra collection caused, and tell the
customer when the refund will show on their account.
""",
        tick=650,
        doc_type="faq",
    ),
    doc(
        "retail",
        "notice-2024-cheque-clearing",
        "Notice: cheque clearing times, 2024",
        "public",
        """
## Cheque clearing times
A cheque paid in at a branch starts earning interest after two working days and can be
withdrawn after four working days.

## Cheques paid in by post
Allow two extra days for the post.
""",
        tick=280,
        doc_type="notice",
    ),
    doc(
        "retail",
        "guide-cheque-clearing-2026",
        "Guide: when money from a cheque reaches your account",
        "public",
        """
## Paying in with images
All cheques are now cleared by image. Money from a cheque paid in before 16:00 on a working
day is available by 23:59 on the next working day.

## Paying in with the app
Cheques up to GBP 2,000 can be paid in by photographing them in the app; the same timing
applies.

## Returned cheques
If a cheque bounces we tell you by the end of the next working day.
""",
        tick=740,
        doc_type="guide",
    ),
    doc(
        "retail",
        "notice-2025-atm-limits",
        "Notice: cash withdrawal limits, 2025",
        "public",
        """
## Daily limit at a cash machine
The daily limit for taking cash out at a cash machine is GBP 300 for Everyday Account
customers and GBP 500 for Premier Account customers.

## In branch
Larger amounts can be taken out at the counter with identification.
""",
        tick=330,
        doc_type="notice",
    ),
    doc(
        "retail",
        "notice-2026-atm-limits",
        "Notice: new withdrawal limits from July 2026",
        "public",
        """
## New limits
From July 2026 you can withdraw up to GBP 500 a day from ATMs with any Tidewater debit card,
and up to GBP 1,000 a day with a Premier Account card.

## Changing your limit
You can lower your own limit in the app at any time. Raising it above the standard amount
needs a call to us.

## Abroad
The same limits apply to ATMs outside the UK.
""",
        tick=880,
        doc_type="notice",
    ),
    doc(
        "retail",
        "qa-scorecard-2025-collections",
        "Collections call quality scorecard, 2025",
        "confidential",
        """
## Scorecard criteria
Each collections call is scored on five criteria: identity check, balance and arrears
explained, affordability discussed, agreement confirmed, and call closed correctly.

## Pass mark
A call passes with four of the five criteria met. Agents with two failed calls in a month
are coached by their team leader.
""",
        tick=400,
        doc_type="standard",
    ),
    doc(
        "retail",
        "bulletin-2025-contact-frequency",
        "Collections bulletin, 2025: contact frequency",
        "internal",
        """
## How often we ring
We may ring a customer who has fallen behind up to three times a day, and leave one
voicemail a day.

## Quiet times
No calls before 8:00 or after 21:00, or on Sundays.
""",
        tick=380,
        doc_type="bulletin",
    ),
    doc(
        "retail",
        "std-contact-frequency-2026",
        "Collections contact standard, 2026",
        "internal",
        """
## Calls to customers in arrears
The dialler makes at most one call attempt a day and seven a week to a customer in arrears,
whichever limit is reached first.

## Other channels
A text message or email counts as a contact attempt. Letters do not.

## When a customer asks us to stop
If the customer asks for fewer calls or for contact in writing only, record it and the
dialler stops calling.
""",
        tick=870,
        doc_type="standard",
    ),
    doc(
        "retail",
        "branch-circular-2024-counterfeit",
        "Branch circular, 2024: suspected counterfeit notes",
        "internal",
        """
## Where to send suspected counterfeit notes
Branches send suspected counterfeit notes to the Bank of England by recorded delivery, with
the counterfeit notes form.

## At the counter
Do not give the note back to the customer. Give them a receipt and explain that they will
not be refunded.
""",
        tick=290,
        doc_type="circular",
    ),
    doc(
        "retail",
        "branch-circular-2026-counterfeit",
        "Branch circular, 2026: forged banknotes",
        "internal",
        """
## Forged notes now go to the cash centre
A banknote you believe is forged or counterfeit is sealed in a cash centre evidence bag and
goes to the Bristol cash centre with the next cash collection. The cash centre sends it on to
the Bank of England.

## At the counter
Keep the note, give the customer a receipt and record the serial number on the branch
system.
""",
        tick=700,
        doc_type="circular",
    ),
    doc(
        "retail",
        "guide-rate-switch-2025",
        "Adviser guide, 2025: mortgage product switches",
        "internal",
        """
## Product switch window
A customer can arrange a mortgage product switch up to 3 months before their fixed rate
ends.

## Advice
Product switches are execution only unless the customer asks for advice.
""",
        tick=420,
        doc_type="guide",
    ),
    doc(
        "retail",
        "guide-rate-switch-2026",
        "Adviser guide, 2026: moving to a new rate at the end of a fix",
        "internal",
        """
## When customers can choose a new rate
Customers can now secure a new rate up to 6 months before their current deal ends. The new
rate starts the day after the old one ends.

## If rates fall
If our rates fall before the new deal starts, the customer can switch to the lower rate
once, at no cost.

## Advice
Advice is offered to every customer whose circumstances have changed since they last
borrowed.
""",
        tick=830,
        doc_type="guide",
    ),
    doc(
        "retail",
        "fraud-bulletin-2025-app-scams",
        "Fraud bulletin, 2025: APP scam reimbursement",
        "internal",
        """
## Reimbursement limit and excess
From the new rules, APP scam victims can be reimbursed up to GBP 415,000, and an excess of
up to GBP 35 may be deducted.

## What to do
Log every claim in the fraud case system on the day it is reported.
""",
        tick=400,
        doc_type="bulletin",
    ),
]

ADVISORY: list[DocSpec] = [
    doc(
        "advisory",
        "notice-2026-codenames",
        "Control Room notice, 2026: project names",
        "internal",
        """
## Requesting a project name
From June 2026 deal teams request a project name in ProjectDesk when they open a project.
The Control Room duty officer checks that it is free and confirms it within one hour.

## Which names
Project names are now taken from the Control Room's list of rivers, since the list of birds
ran short. A name is not reused for five years.
""",
        tick=800,
        doc_type="notice",
    ),
    doc(
        "advisory",
        "research-memo-2024-quiet-period",
        "Research memo, 2024: quiet period after an IPO",
        "internal",
        """
## Quiet period for connected analysts
After an IPO prices, the quiet period for connected analysts is 40 days, during which they
may not publish research on the company.

## Exceptions
None. Questions go to Research Compliance.
""",
        tick=260,
        doc_type="memo",
    ),
    doc(
        "advisory",
        "pol-research-quiet-periods",
        "Research quiet periods for new listings",
        "internal",
        """
## Length
Analysts connected to a listing may not publish on the company for 25 days after pricing.
Analysts who are not connected may publish from the first day of trading.

## Who sets it
Research Compliance may lengthen the period for a deal; the Control Room tells the analysts
concerned.

## Breaches
A report published during the period is withdrawn and recorded as a breach.
""",
        tick=780,
        doc_type="policy",
    ),
    doc(
        "advisory",
        "pr-advisory-league-table-2024",
        "Press release: Tidewater in the 2024 mid-market league tables",
        "public",
        """
## Ranking
Tidewater Capital Advisory was ninth by deal count in the UK mid-market M&A league table for
2024, from twelfth a year earlier.

## Comment
The head of advisory thanked clients for their trust in a difficult market.
""",
        tick=300,
        doc_type="press-release",
    ),
    doc(
        "advisory",
        "pitchbook-notice-2024-template",
        "Notice, 2024: pitch book template",
        "internal",
        """
## Which pitch book template to use
Use the 2024 pitch book template in PowerPoint, with the blue cover and Arial throughout.

## Where to find it
The template is in the Advisory templates folder on the shared drive.
""",
        tick=310,
        doc_type="notice",
    ),
    doc(
        "advisory",
        "pitchbook-notice-2026-template",
        "Notice, 2026: new presentation templates after the rebrand",
        "internal",
        """
## New templates
After the group rebrand, every client presentation uses the Tidewater 2026 template in the
deck builder, with the teal cover and the Tidewater Sans font. The old PowerPoint templates
have been withdrawn.

## Getting access
Ask the presentations team for deck builder access.
""",
        tick=840,
        doc_type="notice",
    ),
    doc(
        "advisory",
        "vdr-approved-providers-2025",
        "Approved virtual data room providers, 2025",
        "internal",
        """
## Approved virtual data room providers
Deal teams may use Vaultline or DealSpace as the virtual data room on a project. Other
providers need the approval of IT Security.

## Set-up
The Control Room must be told before a data room is opened.
""",
        tick=420,
        doc_type="list",
    ),
    doc(
        "advisory",
        "it-bulletin-2026-data-rooms",
        "IT Security bulletin, May 2026: data room contracts",
        "internal",
        """
## Review of providers
IT Security is reviewing the security of every data room provider we use. Until the review
ends, ask IT Security before opening a new data room.

## Existing projects
Data rooms already open on live projects can stay where they are.
""",
        tick=880,
        doc_type="bulletin",
    ),
    doc(
        "advisory",
        "falcon-kickoff-note",
        "Project Falcon: kick-off note",
        "confidential",
        """
## Data room opening
The Project Falcon data room will open in the third week after kick-off, once Solent's
advisers have loaded the first documents.

## Workstreams
Financial, legal and commercial due diligence will each have a lead from the deal team.
""",
        tick=560,
        barrier="deal-falcon",
        doc_type="deal-paper",
    ),
    doc(
        "advisory",
        "falcon-status-update",
        "Project Falcon: weekly status update",
        "confidential",
        """
## Data room
The Falcon data room is open to the full deal team and to Harrowgate's advisers. The second
batch of contracts was added this week.

## Questions to Solent
Questions to Solent's management go through the Q and A log in the data room; answers are
expected within three business days.
""",
        tick=900,
        barrier="deal-falcon",
        doc_type="deal-paper",
    ),
    doc(
        "advisory",
        "heron-comms-plan-draft",
        "Project Heron: draft communications plan",
        "confidential",
        """
## Research blackout after the first day of trading
Draft: connected research on Lumen Payments would stay blacked out for 30 days from the
first day of trading.

## Press
The press plan is to be agreed with Lumen's own advisers.
""",
        tick=620,
        barrier="deal-heron",
        doc_type="deal-paper",
    ),
    doc(
        "advisory",
        "control-room-log-2025-q4",
        "Control Room log: live projects, fourth quarter 2025",
        "restricted",
        """
## Live projects
- Project Curlew: possible sale of Marlowe Packaging Ltd. Barrier in place; 12 insiders.
- Project Plover: advice to Fenwick Rail on a bid for a rolling stock lessor. Barrier in
  place; 8 insiders.

## Watch list
Marlowe Packaging Ltd and Fenwick Rail plc are on the watch list.
""",
        tick=600,
        doc_type="control-room",
    ),
    doc(
        "advisory",
        "memo-2024-leak-reporting",
        "Compliance memo, 2024: reporting a suspected leak",
        "internal",
        """
## Reporting a suspected leak of deal information
Report a suspected leak of deal information to Compliance by the end of the business day.

## Evidence
Keep any emails or messages that point to the leak.
""",
        tick=280,
        doc_type="memo",
    ),
]

DOCS: list[DocSpec] = [*WHOLESALE, *RETAIL, *ADVISORY]
