"""Documents whose ids recur in every tenant with different content (the isolation test).

A question about complaints, retention, incident escalation or gifts asked in one tenant is
judged against that tenant's document only; the same id elsewhere is another document.
"""

from __future__ import annotations

from tidewater.model import DocSpec, QuerySpec, ask, doc, fact
from tidewater.people import (
    A_FALCON_ASSOC,
    A_JUNIOR,
    R_ADVISER,
    R_AGENT,
    W_ANALYST,
    W_OFFICER,
    W_RM,
)

COMPLAINTS = "pol-complaints-handling"
RETENTION = "pol-data-retention"
ESCALATION = "proc-incident-escalation"
GIFTS = "pol-gifts-hospitality"

DOCS: list[DocSpec] = [
    doc(
        "wholesale",
        COMPLAINTS,
        "Corporate client complaints",
        "internal",
        """
## Receiving a complaint
A complaint from a corporate client may arrive through the relationship manager, client
service or the online banking portal. Log it in ClientCare on the day it is received.

## Timescales
[[cmp-w|Corporate client complaints are acknowledged within 2 business days and answered in
full within 15 business days.]] Complex cases may take longer if the client agrees.

## Ownership
The Client Service Quality team tracks every complaint and reports themes to the Wholesale
Operating Committee each month.
""",
        tick=500,
        facts={
            "cmp-w": fact(
                "We acknowledge a corporate client's complaint inside two working days and give a "
                "full answer within fifteen.",
                "Corporate client complaints are acknowledged within 5 business days and "
                "answered in full within 15 business days.",
                "How fast must corporate complaints be answered?",
            ),
        },
    ),
    doc(
        "retail",
        COMPLAINTS,
        "Complaints handling for personal customers",
        "internal",
        """
## Acknowledging
[[cmp-r-ack|Complaints from personal customers are acknowledged in writing within
{ack}.]] A complaint resolved by the end of the third business day after it was received
gets a summary resolution letter instead.

## Final response
[[cmp-r-final|A final response to a personal customer's complaint is sent within 8 weeks of
receiving it]], and it tells the customer that they can refer the complaint to the Financial
Ombudsman Service.

## Redress
Put the customer back in the position they would have been in, and add 8 percent simple
interest a year where they were without money.
""",
        versions=((250, {"ack": "5 business days"}), (700, {"ack": "3 business days"})),
        facts={
            "cmp-r-ack": fact(
                "Personal customers' complaints get a written acknowledgement within {ack}.",
                "Complaints from personal customers are acknowledged in writing within 10 "
                "business days.",
                "How quickly do we acknowledge a customer complaint?",
            ),
            "cmp-r-final": fact(
                "Customers get our final answer on a complaint no later than eight weeks after "
                "they raise it.",
                "A final response to a personal customer's complaint is sent within 12 weeks of "
                "receiving it",
                "When is the final response to a complaint due?",
            ),
        },
    ),
    doc(
        "advisory",
        COMPLAINTS,
        "Client complaints in advisory",
        "internal",
        """
## Escalation
[[cmp-a|Complaints from advisory clients are passed to the General Counsel within 1 business
day.]] Deal teams must not respond to a complaint on the substance themselves.

## Response
A full response is sent within 20 business days, reviewed by the General Counsel and the head
of advisory.
""",
        tick=450,
        facts={
            "cmp-a": fact(
                "An advisory client's complaint must reach the General Counsel by the next "
                "business day.",
                "Complaints from advisory clients are passed to the Control Room within 1 "
                "business day.",
                "Who handles complaints from advisory clients?",
            ),
        },
    ),
    doc(
        "wholesale",
        RETENTION,
        "Record retention: wholesale banking",
        "internal",
        """
## Retention periods
[[ret-w|Payment messages and screening alert records are kept for seven years after the
payment date.]] Client due diligence files are kept for seven years after the relationship
ends.

## Legal holds
A legal hold from Group Legal overrides every retention period until it is lifted.
""",
        tick=480,
        facts={
            "ret-w": fact(
                "We keep payment messages and screening alerts for seven years from the payment "
                "date.",
                "Payment messages and screening alert records are kept for five years after the "
                "payment date.",
                "How long are payment records kept?",
            ),
        },
    ),
    doc(
        "retail",
        RETENTION,
        "Record retention: retail banking",
        "internal",
        """
## Retention periods
[[ret-r|Customer account records are kept for six years after the account is closed, and call
recordings for five years.]] Mortgage files are kept for twelve years after redemption.

## Deletion requests
A customer's request to delete their data is passed to the Data Protection Office within one
business day.
""",
        tick=520,
        facts={
            "ret-r": fact(
                "Account records stay for six years after closure; call recordings for five.",
                "Customer account records are kept for six years after the account is closed, "
                "and call recordings for two years.",
                "How long are call recordings kept?",
            ),
        },
    ),
    doc(
        "advisory",
        RETENTION,
        "Record retention: advisory",
        "confidential",
        """
## Deal files
[[ret-a|Deal files, including drafts and insider lists, are kept for ten years after the
project closes or is abandoned.]]

## Pitch materials
Pitch books that did not lead to a mandate are kept for three years.
""",
        tick=560,
        facts={
            "ret-a": fact(
                "Every deal file, insider lists included, is kept for a decade after the project "
                "ends.",
                "Deal files, including drafts and insider lists, are kept for five years after "
                "the project closes or is abandoned.",
                "How long do we keep deal files?",
            ),
        },
    ),
    doc(
        "wholesale",
        ESCALATION,
        "Incident escalation: payments and screening",
        "internal",
        """
## Severity 1
[[esc-w|A severity 1 incident must be reported to the Payments Duty Manager within 15 minutes
of detection.]] Severity 1 means payments in a currency cannot be sent or screened.

## Communication
The Duty Manager decides whether clients must be told and informs the central bank liaison
team if a payment system deadline may be missed.
""",
        tick=600,
        doc_type="procedure",
        facts={
            "esc-w": fact(
                "Sev 1 payment incidents go to the Payments Duty Manager within a quarter of an "
                "hour.",
                "A severity 1 incident must be reported to the Payments Duty Manager within 60 "
                "minutes of detection.",
                "Who do I call about a severity 1 payments incident?",
            ),
        },
    ),
    doc(
        "retail",
        ESCALATION,
        "Incident escalation: retail services",
        "internal",
        """
## Severity 1
[[esc-r|A severity 1 incident must be reported to the Retail Operations Bridge within 30
minutes of detection.]] Severity 1 means customers cannot use cards, the app or online
banking.

## Customer messages
The Bridge approves messages for the app banner and the website status page.
""",
        tick=640,
        doc_type="procedure",
        facts={
            "esc-r": fact(
                "The Retail Operations Bridge must hear about a severity 1 incident within half "
                "an hour.",
                "A severity 1 incident must be reported to the Retail Operations Bridge within 10 "
                "minutes of detection.",
                "Where do I report a severity 1 incident in retail?",
            ),
        },
    ),
    doc(
        "advisory",
        ESCALATION,
        "Incident escalation: information leaks",
        "internal",
        """
## Suspected leaks
[[esc-a|A suspected leak of inside information must be reported to the Control Room within 1
hour.]] Do not try to investigate the leak yourself.

## Lost devices
A lost phone or laptop is reported to the IT service desk at once, and to the Control Room if
it held deal material.
""",
        tick=660,
        doc_type="procedure",
        facts={
            "esc-a": fact(
                "Possible leaks of inside information have to reach the Control Room inside an "
                "hour.",
                "A suspected leak of inside information must be reported to the General Counsel "
                "within 1 hour.",
                "Who must be told about a suspected leak?",
            ),
        },
    ),
    doc(
        "wholesale",
        GIFTS,
        "Gifts and hospitality: wholesale banking",
        "internal",
        """
## Register
[[gift-w|Gifts and hospitality above GBP 100 must be entered in the register, and anything above
GBP 250 needs the line manager's approval in advance.]]

## Never acceptable
Cash, gifts during a tender in which the giver takes part, and anything offered to influence a
decision.
""",
        tick=540,
        facts={
            "gift-w": fact(
                "Register anything over GBP 100; above GBP 250 your manager must approve it first.",
                "Gifts and hospitality above GBP 250 must be entered in the register, and "
                "anything above GBP 1,000 needs the line manager's approval in advance.",
                "What is the gift limit in wholesale?",
            ),
        },
    ),
    doc(
        "retail",
        GIFTS,
        "Gifts from customers: retail staff",
        "internal",
        """
## Limit
[[gift-r|Branch and contact centre staff may not accept gifts worth more than GBP 50 from
customers.]] Gifts from customers in vulnerable circumstances are politely declined whatever
their value.

## Recording
Every gift accepted is recorded in the branch gift log.
""",
        tick=540,
        facts={
            "gift-r": fact(
                "Retail staff must refuse customer gifts valued above GBP 50.",
                "Branch and contact centre staff may not accept gifts worth more than GBP 150 "
                "from customers.",
                "Can I accept a gift from a customer?",
            ),
        },
    ),
    doc(
        "advisory",
        GIFTS,
        "Gifts and hospitality: advisory",
        "internal",
        """
## Approval
[[gift-a|Gifts and hospitality above {limit} need pre-approval from Compliance]], and none may
be accepted from a party to a live deal.

## Giving
Hospitality offered to public officials always needs Compliance approval.
""",
        versions=((400, {"limit": "GBP 250"}), (750, {"limit": "GBP 150"})),
        facts={
            "gift-a": fact(
                "In advisory, Compliance must approve in advance any gift or hospitality worth "
                "over {limit}.",
                "Gifts and hospitality above {limit} need pre-approval from the deal team's "
                "managing director",
                "What gifts need Compliance approval in advisory?",
            ),
        },
    ),
]

QUERIES: list[QuerySpec] = [
    ask("How quickly must complaints be acknowledged?", W_RM, {COMPLAINTS: 2}, kind="isolation"),
    ask(
        "How quickly must complaints be acknowledged?",
        R_AGENT,
        {COMPLAINTS: 2},
        kind="isolation",
    ),
    ask(
        "How quickly must complaints be acknowledged?",
        A_JUNIOR,
        {COMPLAINTS: 2},
        kind="isolation",
    ),
    ask("how long do we keep records", W_ANALYST, {RETENTION: 2}, kind="isolation"),
    ask(
        "how long do we keep records",
        R_ADVISER,
        {RETENTION: 2},
        kind="isolation",
    ),
    ask(
        "how long do we keep records",
        A_FALCON_ASSOC,
        {RETENTION: 2, "falcon-insider-list": 0},
        kind="isolation",
    ),
    ask(
        "severity 1 incident who to tell",
        W_OFFICER,
        {ESCALATION: 2, "inc-2026-014-screening-outage": 0},
        kind="isolation",
    ),
    ask(
        "severity 1 incident who to tell",
        R_AGENT,
        {ESCALATION: 2, "inc-r-2026-007-card-authorisation": 0},
        kind="isolation",
    ),
    ask(
        "gift value limit",
        W_ANALYST,
        {GIFTS: 2},
        kind="isolation",
    ),
    ask(
        "gift value limit",
        R_AGENT,
        {GIFTS: 2},
        kind="isolation",
    ),
    ask(
        "gift value limit",
        A_JUNIOR,
        {GIFTS: 2},
        kind="isolation",
    ),
]
