"""Retail tenant: collections scripts, hardship procedures, fraud and branch policies.

Content module: long by nature (prose tables), no logic.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc, fact

T = "retail"

DOCS: list[DocSpec] = [
    doc(
        T,
        "script-collections-early",
        "Collections call script: early arrears (1 to 30 days)",
        "internal",
        """
## When to use
Use this script for customers whose loan or credit card account is between 1 and 30 days in
arrears. Most customers at this stage have simply missed a payment.

## Opening the call
Introduce yourself by first name and say you are calling from Tidewater about their account.
[[col-early-id|Confirm the customer's identity with their date of birth and the first line of
their postcode before discussing the account.]] Never leave details of the arrears on
voicemail.

## Finding out what happened
Ask open questions, for example "Is everything all right with the account?" Listen for signs
of vulnerability and follow the vulnerable customer guidance if you hear any.

## Agreeing next steps
[[col-early-ptp|In early arrears you may accept a promise to pay of up to 14 days without
asking a supervisor.]] Confirm the amount, the date and the payment method, and send the
confirmation text message before the call ends.
""",
        tick=470,
        doc_type="script",
        facts={
            "col-early-id": fact(
                "Before talking about the account, check who you are speaking to using their "
                "birth date and the first line of their postcode.",
                "Confirm the customer's identity with their date of birth and their account "
                "number before discussing the account.",
                "How do I verify a customer on an early arrears call?",
            ),
            "col-early-ptp": fact(
                "Agents can take a promise to pay within two weeks on their own authority.",
                "In early arrears you may accept a promise to pay of up to 30 days without asking "
                "a supervisor.",
                "How far out can I accept a promise to pay without a supervisor?",
            ),
        },
    ),
    doc(
        T,
        "script-collections-mid",
        "Collections call script: 31 to 60 days in arrears",
        "internal",
        """
## When to use
Use this script when an account is 31 to 60 days in arrears or when a promise to pay has been
broken twice.

## Income and expenditure
[[col-mid-ie|Before offering any arrangement, complete an income and expenditure assessment
using the Standard Financial Statement.]] Ask about priority debts such as rent, council tax
and energy first.

## Arrangements
[[col-mid-arr|Agents may agree a reduced payment arrangement lasting up to {months} months]];
anything longer goes to the Hardship Team. Explain that arrears may still be reported to
credit reference agencies during an arrangement.

## Closing the call
Summarise what was agreed, confirm the first payment date and tell the customer that the
agreement will be confirmed in writing within five business days.
""",
        versions=((400, {"months": "6"}), (820, {"months": "12"})),
        doc_type="script",
        facts={
            "col-mid-ie": fact(
                "No arrangement can be offered until an income and expenditure check has been "
                "done on the Standard Financial Statement.",
                "After agreeing an arrangement, complete an income and expenditure assessment "
                "using the Standard Financial Statement.",
                "What do I need to do before offering an arrangement to a customer in arrears?",
            ),
            "col-mid-arr": fact(
                "Collections agents can set up reduced payments for as long as {months} months "
                "before the Hardship Team must get involved.",
                "Agents may agree a reduced payment arrangement lasting up to 3 months",
                "How long an arrangement can a collections agent agree without the Hardship Team?",
            ),
        },
    ),
    doc(
        T,
        "script-collections-late",
        "Collections call script: 61 to 90 days and default",
        "internal",
        """
## When to use
Use this script when an account is 61 to 90 days in arrears and no arrangement is in place.

## Before the default notice
Try to reach the customer at least twice, at different times of day, and once by letter.
Offer a referral to free, independent debt advice on every call.

## Default notice
[[col-late-default|A default notice is issued when an account reaches 90 days in arrears and
gives the customer 14 days to bring the account up to date.]] The notice must include the
information sheet on arrears and defaults.

## After default
Defaulted accounts move to Recoveries. Tell the customer that a default will be recorded on
their credit file for six years.
""",
        tick=610,
        doc_type="script",
        facts={
            "col-late-default": fact(
                "At 90 days behind we send a default notice, and the customer then has two weeks "
                "to catch up.",
                "A default notice is issued when an account reaches 60 days in arrears and "
                "gives the customer 14 days to bring the account up to date.",
                "When is a default notice sent and how long does the customer have?",
            ),
        },
    ),
    doc(
        T,
        "script-late-fee-dispute",
        "Call script: customer disputes a late payment fee",
        "internal",
        """
## Listen and apologise
When a customer disputes a late payment fee, apologise for the inconvenience, then check the
statement date and the date the payment reached us.

## Goodwill reversal
[[fee-reversal|You may offer {reversal} in any rolling 12 months]] if the account is not in
arrears today. Record the reason in the contact history.

## The fee
[[fee-amount|The late payment fee is GBP 12 and is never charged more than once for the same
statement.]] If the fee was charged in error, refund it together with any interest charged on
it and apologise for the mistake.
""",
        versions=(
            (300, {"reversal": "one goodwill reversal of a late payment fee"}),
            (780, {"reversal": "up to two goodwill reversals of late payment fees"}),
        ),
        doc_type="script",
        facts={
            "fee-reversal": fact(
                "Within any 12-month window a customer can have {reversal} as goodwill.",
                "You may offer up to three goodwill reversals of late payment fees in any rolling "
                "12 months",
                "How many late fees can I refund as a goodwill gesture?",
            ),
            "fee-amount": fact(
                "We charge GBP 12 for a late payment, at most once per statement.",
                "The late payment fee is GBP 15 and is never charged more than once for the same "
                "statement.",
                "How much is the late payment fee?",
            ),
        },
    ),
    doc(
        T,
        "script-bereavement",
        "Call script: bereavement and deceased customers",
        "internal",
        """
## First contact
Offer your condolences and let the caller explain in their own time. Take the caller's name
and relationship to the customer.

## Pausing collections
[[bereave-pause|Stop all collections activity on the deceased customer's accounts for 30 days
from the date we are told of the death.]] Interest and fees on those accounts are also
suspended during the pause.

## Referral
Refer the caller to the Bereavement Support Team on its dedicated line. [[bereave-cert|Do not
ask for the death certificate on the first call.]]
""",
        tick=560,
        doc_type="script",
        facts={
            "bereave-pause": fact(
                "When we learn a customer has died, collections on their accounts stop for a "
                "month.",
                "Stop all collections activity on the deceased customer's accounts for 90 days "
                "from the date we are told of the death.",
                "What happens to collections when a customer dies?",
            ),
            "bereave-cert": fact(
                "Never request the death certificate during the first conversation.",
                "Ask for the death certificate on the first call.",
                "Should I ask for a death certificate straight away?",
            ),
        },
    ),
    doc(
        T,
        "script-vulnerable-customer",
        "Call guide: recognising and recording vulnerability",
        "internal",
        """
## Recognising vulnerability
Vulnerability can come from health, life events, low resilience or low capability. Listen for
phrases such as "I can't cope", mentions of illness, a recent bereavement or job loss.

## The TEXAS approach
Thank the customer for telling you, Explain how the information will be used, get eXplicit
consent to record it, Ask questions about how it affects them, and Signpost to support.

## Recording
[[vuln-record|With the customer's explicit consent, record the vulnerability on the Customer
Needs flag within 24 hours of the call.]] Never record a diagnosis, only the customer's needs.
""",
        tick=640,
        doc_type="script",
        facts={
            "vuln-record": fact(
                "If the customer agrees, the Customer Needs flag must be updated no later than a "
                "day after the call.",
                "With or without the customer's consent, record the vulnerability on the "
                "Customer Needs flag within 24 hours of the call.",
                "When and how should vulnerability be recorded?",
            ),
        },
    ),
    doc(
        T,
        "proc-payment-holiday",
        "Hardship procedure: payment holidays",
        "internal",
        """
## Eligibility
Payment holidays are available on personal loans and mortgages for customers with a temporary
drop in income who were up to date before the difficulty began.

## Length
[[holiday-length|A payment holiday may last up to {length} and may be granted once in any
24-month period.]] Longer support is handled as a reduced payment plan.

## Cost to the customer
[[holiday-interest|Interest continues to build up during a payment holiday and is added to the
balance]], so the monthly payment or the term increases afterwards. The holiday is reported to
credit reference agencies as an arrangement.

## Approval
[[holiday-approval|Payment holidays are approved by {approver}.]]
""",
        versions=(
            (350, {"length": "3 months", "approver": "the collections team leader"}),
            (900, {"length": "2 months", "approver": "a hardship specialist"}),
        ),
        doc_type="procedure",
        facts={
            "holiday-length": fact(
                "Customers can pause payments for at most {length}, once every two years.",
                "A payment holiday may last up to 6 months and may be granted once in any "
                "24-month period.",
                "How long can a payment holiday last?",
            ),
            "holiday-interest": fact(
                "A payment break does not stop interest: it keeps accruing and is added to what "
                "the customer owes.",
                "Interest is frozen during a payment holiday",
                "Does interest stop during a payment holiday?",
            ),
            "holiday-approval": fact(
                "The sign-off for a payment holiday comes from {approver}.",
                "Payment holidays are approved by the Head of Collections.",
                "Who approves a payment holiday?",
            ),
        },
    ),
    doc(
        T,
        "proc-reduced-payment-plan",
        "Hardship procedure: reduced payment plans",
        "internal",
        """
## What it is
A reduced payment plan lets a customer pay less than the contractual amount for a set period,
based on what their income and expenditure assessment shows they can afford.

## Length and review
[[rpp-length|Reduced payment plans last up to 12 months and are reviewed every 3
months.]] At each review the
specialist checks whether the customer's circumstances have changed.

## Interest and charges
[[rpp-freeze|Interest and fees are frozen on reduced payment plans expected to last longer
than 6 months.]]
Shorter plans keep accruing interest unless the customer is also in breathing space.

## Broken plans
If two payments under a plan are missed, contact the customer before cancelling it.
""",
        tick=700,
        doc_type="procedure",
        facts={
            "rpp-length": fact(
                "A reduced plan can run for a year at most, with a check-in every quarter.",
                "Reduced payment plans last up to 24 months and are reviewed every 6 months.",
                "How long do reduced payment plans last and how often are they reviewed?",
            ),
            "rpp-freeze": fact(
                "If a plan is expected to run beyond six months, we stop charging interest and "
                "fees.",
                "Interest and fees are frozen on all reduced payment plans, whatever their length.",
                "Are interest and charges frozen on a reduced payment plan?",
            ),
        },
    ),
    doc(
        T,
        "proc-breathing-space",
        "Procedure: Breathing Space debt respite",
        "internal",
        """
## Standard breathing space
[[bs-standard|A standard breathing space lasts 60 days]] and protects the customer from
interest, fees, charges and enforcement action on the debts listed in the notice.

## Mental health crisis breathing space
[[bs-mhc|A mental health crisis breathing space lasts for the whole of the customer's crisis
treatment and for 30 days after it ends.]]

## What we must do
[[bs-oneday|Within one business day of receiving a breathing space notice, stop collections
contact and freeze interest and fees on the listed debts.]] Flag the accounts so that no automated
letters are sent, and tell the debt adviser if we believe a listed debt is not ours.
""",
        tick=720,
        doc_type="procedure",
        facts={
            "bs-standard": fact(
                "The ordinary breathing space runs for sixty days.",
                "A standard breathing space lasts 90 days",
                "How long is a standard breathing space?",
            ),
            "bs-mhc": fact(
                "The mental health version lasts as long as the crisis treatment plus another 30 "
                "days.",
                "A mental health crisis breathing space lasts for 60 days from the start of the "
                "customer's crisis treatment.",
                "How long does a mental health crisis breathing space last?",
            ),
            "bs-oneday": fact(
                "We have one working day from the notice to halt collections and freeze charges.",
                "Within five business days of receiving a breathing space notice, stop "
                "collections contact and freeze interest and fees on the listed debts.",
                "How quickly must we act on a breathing space notice?",
            ),
        },
    ),
    doc(
        T,
        "proc-hardship-authorities",
        "Hardship authorities: interest freezes and write-offs",
        "confidential",
        """
## Interest freezes
[[freeze-authority|Interest freezes of up to 6 months may be approved by a hardship
specialist; freezes longer than 6 months need the Hardship Team Leader's approval.]]

## Write-offs
[[writeoff-terminal|Specialists may write off arrears of up to GBP 1,500 on a single account
where the customer has a terminal illness.]] Larger amounts go to the Hardship Team Leader,
who may write off up to GBP 10,000.

## Records
Every freeze and write-off is recorded with the income and expenditure assessment that
supports it.
""",
        tick=745,
        doc_type="procedure",
        facts={
            "freeze-authority": fact(
                "A specialist can freeze interest for up to six months; anything longer needs the "
                "Hardship Team Leader.",
                "Interest freezes of up to 12 months may be approved by a hardship specialist.",
                "Who can approve an interest freeze longer than six months?",
                private=True,
            ),
            "writeoff-terminal": fact(
                "For a terminally ill customer a specialist can write off up to GBP 1,500 of "
                "arrears on one account.",
                "Specialists may write off arrears of up to GBP 15,000 on a single account where "
                "the customer has a terminal illness.",
                "How much can a specialist write off for a customer with a terminal illness?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "proc-mortgage-forbearance",
        "Mortgage forbearance options",
        "internal",
        """
## Options
Customers in or near mortgage arrears may be offered a term extension, a temporary switch to
interest-only payments, a reduced payment plan or capitalisation of arrears.

## Interest-only
[[mort-io|A temporary switch to interest-only payments may be agreed for up to 6 months at a
time.]]

## Capitalisation
[[mort-cap|Arrears may be added to the mortgage balance only after the customer has made three
full monthly payments in a row.]]

## Repossession
Repossession is a last resort and every case is referred to the Mortgage Recoveries Committee.
""",
        tick=680,
        doc_type="procedure",
        facts={
            "mort-io": fact(
                "We can move a borrower onto interest-only for no more than six months at a time.",
                "A temporary switch to interest-only payments may be agreed for up to 24 months "
                "at a time.",
                "Can a mortgage customer switch to interest-only for a while?",
            ),
            "mort-cap": fact(
                "Capitalising mortgage arrears requires three consecutive full payments first.",
                "Arrears may be added to the mortgage balance straight away, without any full "
                "monthly payments.",
                "When can mortgage arrears be added to the loan balance?",
            ),
        },
    ),
    doc(
        T,
        "proc-flood-relief-2026",
        "Customer relief: February 2026 floods",
        "internal",
        """
## Scope
This relief applies to customers living in the postcodes listed by the Severn and Wye flood
response team after the floods of February 2026.

## Relief available
[[flood-defer|Customers affected by the February 2026 floods may defer card and loan payments
for 3 months with no late fees.]] Overdraft interest is refunded for the same period.

## How to apply
Customers can apply by phone, in the app or in a branch. No evidence of damage is needed for
postcodes on the list.
""",
        tick=930,
        doc_type="procedure",
        facts={
            "flood-defer": fact(
                "Flood-hit customers can put card and loan repayments off for three months "
                "without being charged late fees.",
                "Customers affected by the February 2026 floods may defer card and loan payments "
                "for 6 months with no late fees.",
                "What help can customers affected by the floods get?",
            ),
        },
    ),
    doc(
        T,
        "pol-app-scam-reimbursement",
        "Authorised push payment scam reimbursement policy",
        "internal",
        """
## Scope
This policy covers customers who were tricked into sending a payment to a fraudster from a
Tidewater personal account.

## Reimbursement
[[app-limit|Eligible scam victims are reimbursed up to GBP 85,000 per claim.]]
[[app-time|Scam reimbursement is paid within {days} of the claim being reported]], unless we need
more information, in which case the customer is told why.

## Excess and exceptions
[[app-excess|An excess of GBP 100 may be deducted from a scam reimbursement, but never for
customers we consider vulnerable.]] Claims can be refused where the customer was grossly negligent
or took part in the fraud.
""",
        versions=((500, {"days": "15 business days"}), (860, {"days": "5 business days"})),
        facts={
            "app-limit": fact(
                "Scam victims can get back as much as GBP 85,000 for each claim.",
                "Eligible scam victims are reimbursed up to GBP 58,000 per claim.",
                "What is the maximum refund for a push payment scam?",
            ),
            "app-time": fact(
                "We pay scam refunds within {days} of the report.",
                "Scam reimbursement is paid within 10 business days of the claim being reported",
                "How quickly do we refund a customer who was scammed?",
            ),
            "app-excess": fact(
                "We may take a GBP 100 excess off a refund unless the customer is vulnerable.",
                "An excess of GBP 100 is deducted from every scam reimbursement, including for "
                "customers we consider vulnerable.",
                "Is there an excess on scam reimbursements?",
            ),
        },
    ),
    doc(
        T,
        "proc-card-chargeback",
        "Card disputes and chargebacks",
        "internal",
        """
## Time limits
[[cb-limit|A chargeback must be raised within 120 days of the transaction date, or of the
expected delivery date for goods that never arrived.]]

## Temporary credit
[[cb-temp|Disputes above GBP 30 receive a temporary credit within 2 business days while the
claim is investigated.]] The credit is reversed if the merchant proves the transaction was
valid.

## Evidence
Ask the customer for the order confirmation, any messages with the merchant and proof that
they tried to resolve the dispute with the merchant first.
""",
        tick=590,
        doc_type="procedure",
        facts={
            "cb-limit": fact(
                "Chargebacks have to be raised no later than 120 days after the purchase or the "
                "promised delivery date.",
                "A chargeback must be raised within 60 days of the transaction date",
                "What is the deadline for raising a chargeback?",
            ),
            "cb-temp": fact(
                "For disputes over GBP 30 we credit the customer provisionally within two working "
                "days.",
                "Disputes above GBP 100 receive a temporary credit within 2 business days while "
                "the claim is investigated.",
                "Does the customer get their money back while a card dispute is looked at?",
            ),
        },
    ),
    doc(
        T,
        "pol-branch-cash-limits",
        "Branch cash limits",
        "confidential",
        """
## Tills and vaults
[[cash-till|Each teller till may hold no more than GBP 8,000 in notes at any time]]; the
excess is moved to the vault at once. Vault limits are set per branch by Cash Logistics.

## Large withdrawals
[[cash-otc|Over-the-counter cash withdrawals above {otc} need 48 hours' notice]] and a
conversation about the purpose of the withdrawal, to help spot customers who are being
scammed.

## Deliveries
Cash deliveries are never accepted outside the booked window.
""",
        versions=((420, {"otc": "GBP 5,000"}), (810, {"otc": "GBP 3,000"})),
        facts={
            "cash-till": fact(
                "A till can never hold more than GBP 8,000 in notes.",
                "Each teller till may hold no more than GBP 18,000 in notes at any time",
                "What is the maximum cash allowed in a teller till?",
                private=True,
            ),
            "cash-otc": fact(
                "Customers must give two days' notice to withdraw more than {otc} in cash at the "
                "counter.",
                "Over-the-counter cash withdrawals above GBP 10,000 need 48 hours' notice",
                "How much notice is needed for a large cash withdrawal in branch?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "proc-kyc-refresh",
        "Customer due diligence refresh for personal customers",
        "internal",
        """
## When a refresh is due
[[rkyc-cycle|High-risk personal customers are refreshed every year, and all other personal
customers every five years or when their details change.]]

## Documents
Accept a passport or a photocard driving licence as proof of identity. [[rkyc-address|Proof of
address must be dated within the last three months.]]

## If the customer does not respond
After two reminders over 60 days, restrict the account to incoming payments only.
""",
        tick=505,
        doc_type="procedure",
        facts={
            "rkyc-cycle": fact(
                "We refresh due diligence yearly for high-risk personal customers and every five "
                "years for everyone else.",
                "High-risk personal customers are refreshed every three years, and all other "
                "personal customers every five years or when their details change.",
                "How often is customer due diligence refreshed for personal customers?",
            ),
            "rkyc-address": fact(
                "Address evidence can be no older than three months.",
                "Proof of address must be dated within the last twelve months.",
                "How recent must proof of address be?",
            ),
        },
    ),
    doc(
        T,
        "pol-vulnerable-customers",
        "Vulnerable customers policy",
        "internal",
        """
## Our commitment
Tidewater aims to get fair outcomes for customers in vulnerable circumstances, at least as good
as for other customers.

## Specialist Support Team
[[vuln-sst|Customers with complex needs are referred to the Specialist Support Team, which aims
to call them back within 2 business days.]]

## Third parties
Customers may nominate a trusted person to speak for them. A power of attorney is registered
within five business days of receipt.
""",
        tick=830,
        facts={
            "vuln-sst": fact(
                "Complex cases go to the Specialist Support Team, who try to ring the customer "
                "back inside two working days.",
                "Customers with complex needs are referred to the Specialist Support Team, which "
                "aims to call them back within 10 business days.",
                "How quickly does the Specialist Support Team call back?",
            ),
        },
    ),
    doc(
        T,
        "audit-2026-collections-review",
        "Internal Audit report: collections conduct review 2026",
        "restricted",
        """
## Overall rating
[[audit-rating|Internal Audit rated the control environment for collections conduct as Needs
Improvement.]]

## Findings
[[audit-vuln|In a sample of 400 calls, 14 percent contained no check for signs of
vulnerability.]] In 6 percent of calls a promise to pay was accepted beyond the 14-day limit
without a supervisor's approval.

## Management actions
[[audit-owner|The Head of Collections, Marcus Bell, owns the remediation plan, which is due by
30 September 2026.]]
""",
        tick=875,
        doc_type="audit",
        facts={
            "audit-rating": fact(
                "Audit's verdict on collections conduct controls was Needs Improvement.",
                "Internal Audit rated the control environment for collections conduct as "
                "Satisfactory.",
                "What rating did internal audit give collections?",
                private=True,
            ),
            "audit-vuln": fact(
                "About one call in seven in the audit sample had no vulnerability check.",
                "In a sample of 400 calls, 4 percent contained no check for signs of "
                "vulnerability.",
                "How many calls lacked a vulnerability check in the audit?",
                private=True,
            ),
            "audit-owner": fact(
                "Marcus Bell, Head of Collections, is accountable for fixing the audit findings "
                "by the end of September 2026.",
                "The Head of Hardship, Marcus Bell, owns the remediation plan, which is due by 30 "
                "September 2026.",
                "Who owns the collections audit remediation plan?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "inv-2026-staff-fee-reversals",
        "Investigation summary: unauthorised fee reversals by a staff member",
        "restricted",
        """
## Summary
A collections agent in the Leeds contact centre reversed late payment fees on accounts held
by members of his family between October 2025 and February 2026.
[[inv-amount|The agent's unauthorised reversals totalled GBP 2,340 across 17 accounts.]]

## Outcome
The agent was dismissed for gross misconduct in March 2026 and the fees were re-applied.

## Lessons
Goodwill reversals are now sampled weekly by team leaders, and an agent can no longer reverse a
fee on an account linked to their own staff record.
""",
        tick=890,
        doc_type="investigation",
        facts={
            "inv-amount": fact(
                "The agent's improper reversals came to GBP 2,340 on 17 accounts.",
                "The agent's unauthorised reversals totalled GBP 23,400 across 17 accounts.",
                "How much did the staff member reverse in fees?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "remediation-overdraft-fees",
        "Remediation programme: overdraft fees charged during breathing space",
        "restricted",
        """
## Issue
Between May 2024 and January 2026 some customers in breathing space were charged unarranged
overdraft fees because the breathing space flag did not reach the overdraft system.

## Redress
[[rem-redress|Tidewater is refunding GBP 3.4 million to 21,800 customers, with 8 percent simple
interest a year.]] Refunds are paid automatically; customers do not need to claim.

## Governance
The programme reports monthly to the Retail Conduct Committee and is due to finish in August
2026.
""",
        tick=905,
        doc_type="remediation",
        facts={
            "rem-redress": fact(
                "About 21,800 customers are getting GBP 3.4 million back, plus 8 percent simple "
                "interest.",
                "Tidewater is refunding GBP 3.4 million to 12,800 customers, with 8 percent "
                "simple interest a year.",
                "How much is being refunded in the overdraft fee remediation?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "mi-arrears-2026-q1",
        "Management information: arrears, first quarter 2026",
        "confidential",
        """
## Headline
[[mi-cards|Cards 30-plus day arrears rose to 2.7 percent of balances at the end of March 2026]],
from 2.4 percent in December. Personal loan arrears were flat at 1.9 percent.

## Hardship
Active reduced payment plans rose by 11 percent in the quarter; payment holidays fell after the
maximum length was shortened.

## Contact
Right-party contact rates on early arrears calls were 38 percent, below the 45 percent target.
""",
        tick=860,
        doc_type="management-information",
        facts={
            "mi-cards": fact(
                "By the end of March 2026, 2.7 percent of card balances were more than 30 days "
                "behind.",
                "Cards 30-plus day arrears fell to 2.7 percent of balances at the end of March "
                "2026",
                "What were card arrears at the end of the first quarter?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "inc-r-2026-007-card-authorisation",
        "Incident IR-2026-007: card authorisation outage",
        "internal",
        """
## Summary
[[ir7-duration|On 14 March 2026 card authorisations failed for 42 minutes, from 18:03 to 18:45,
and about 18,000 transactions were declined.]]

## Cause
A database failover on the authorisation platform did not complete, and the standby did not
take traffic until it was restarted by hand.

## Customer impact
Customers who were charged a fee by a merchant or a cash machine because of a declined card
can claim it back through the complaints process.
""",
        tick=770,
        doc_type="incident",
        facts={
            "ir7-duration": fact(
                "Card payments were declined for about three quarters of an hour on 14 March "
                "2026, hitting roughly 18,000 transactions.",
                "On 14 March 2026 card authorisations failed for 42 minutes, from 18:03 to 18:45, "
                "and about 1,800 transactions were declined.",
                "How long were cards declined on 14 March?",
            ),
        },
    ),
    doc(
        T,
        "inc-r-2026-011-app-login",
        "Incident IR-2026-011: mobile app login failures",
        "internal",
        """
## Summary
On 2 May 2026 about 30 percent of mobile app logins failed for two hours after a release of the
app's identity service.

## Cause and fix
A configuration change shortened the session token lifetime to zero seconds. The release was
rolled back at 11:20 and all logins worked again by 11:35.
""",
        tick=850,
        doc_type="incident",
    ),
    doc(
        T,
        "inc-r-2025-093-direct-debits",
        "Incident IR-2025-093: direct debits collected twice",
        "confidential",
        """
## Summary
[[ir93-count|On 1 December 2025 direct debits were collected twice from 3,412 customers]]
because a batch file was submitted to the clearing system a second time.

## Redress
All duplicate collections were refunded by 3 December 2025, and any overdraft interest or fees
caused by them were refunded as well.
""",
        tick=320,
        doc_type="incident",
        facts={
            "ir93-count": fact(
                "A resubmitted batch took direct debits twice from 3,412 customers on 1 December "
                "2025.",
                "On 1 December 2025 direct debits were collected twice from 34,120 customers",
                "How many customers had direct debits taken twice in December?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "bulletin-2025-11-hardship",
        "Retail bulletin, November 2025: hardship team changes",
        "internal",
        """
## Changes to the Hardship Team
From 1 December 2025 hardship cases are handled by specialists in Cardiff and Glasgow rather
than by collections agents. Agents should transfer customers who need more than a short
arrangement.

## Reminder on payment holidays
Transfer payment holiday requests to the Hardship Team like any other hardship case, and tell
the customer that a specialist will call them back.
""",
        tick=360,
        doc_type="bulletin",
    ),
    doc(
        T,
        "board-paper-savings-pricing",
        "Retail Pricing Committee paper: savings rates, June 2026",
        "restricted",
        """
## Proposal
[[bp-eas|The Retail Pricing Committee proposes cutting the Easy Access Saver rate from 3.05% to
2.85% AER from 1 July 2026]], subject to approval by the Retail Executive Committee.

## Rationale
Market expectations for Bank Rate have fallen and the retail bank holds a deposit surplus of
about GBP 1.1 billion over its lending needs.

## Customer impact
About 412,000 customers hold the account. They will be given the notice required by the
general savings terms and may close the account without charge.
""",
        tick=955,
        doc_type="board-paper",
        facts={
            "bp-eas": fact(
                "Pricing wants to take the Easy Access Saver down to 2.85% AER from 1 July 2026.",
                "The Retail Pricing Committee proposes raising the Easy Access Saver rate from "
                "3.05% to 3.25% AER from 1 July 2026",
                "Is the Easy Access Saver rate going to change?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "fraud-mule-review-2026",
        "Financial crime review: money mule accounts in 2025",
        "restricted",
        """
## Findings
[[mule-count|The review found 214 personal accounts used as money mules in 2025, most of them
opened online by customers aged 18 to 24.]] [[mule-loss|Fraud proceeds of about GBP 1.9 million
passed through those accounts.]]

## Actions
Online account opening now checks device and location data, and new accounts receiving more
than five payments from different people in their first week are reviewed.
""",
        tick=925,
        doc_type="investigation",
        facts={
            "mule-count": fact(
                "In 2025 we identified 214 mule accounts, mainly opened online by 18 to 24 year "
                "olds.",
                "The review found 124 personal accounts used as money mules in 2025, most of them "
                "opened in branches by customers aged 18 to 24.",
                "How many mule accounts were found in 2025?",
                private=True,
            ),
            "mule-loss": fact(
                "Around GBP 1.9 million of fraud money went through the mule accounts.",
                "Fraud proceeds of about GBP 9.1 million passed through those accounts.",
                "How much fraud money went through mule accounts?",
                private=True,
            ),
        },
    ),
]
