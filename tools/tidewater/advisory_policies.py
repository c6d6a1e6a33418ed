"""Advisory tenant: conflicts, wall-crossing, personal dealing, research and the Control
Room's own records (no barrier), plus public material.

Content module: long by nature (prose tables), no logic.
"""

from __future__ import annotations

from tidewater.model import DocSpec, doc, fact

T = "advisory"

DOCS: list[DocSpec] = [
    doc(
        T,
        "pol-conflicts-clearance",
        "Conflicts clearance for new engagements",
        "internal",
        """
## Requesting clearance
Before any work starts on a new engagement, the deal team submits a conflicts request naming
the client, the target or issuer and every other party known to be involved.

## Timing
[[conf-time|The Conflicts Office aims to clear a new engagement within 2 business days of a
complete request.]] Work may not begin, and no pitch may be made, before clearance.

## Engagement Committee
[[conf-committee|Engagements that would put Tidewater on the other side of an existing client
need the approval of the Engagement Committee.]] The Committee meets every Tuesday.
""",
        tick=450,
        facts={
            "conf-time": fact(
                "Conflicts clearance normally takes two working days once the request is complete.",
                "The Conflicts Office aims to clear a new engagement within 10 business days of "
                "a complete request.",
                "How long does conflicts clearance take?",
            ),
            "conf-committee": fact(
                "Acting against one of our existing clients requires Engagement Committee "
                "approval.",
                "Engagements that would put Tidewater on the other side of an existing client "
                "only need the approval of the Conflicts Office.",
                "Who approves an engagement against an existing client?",
            ),
        },
    ),
    doc(
        T,
        "proc-wall-crossing",
        "Wall-crossing procedure",
        "internal",
        """
## Approval
[[wc-approval|{rule}]] The request names the person to be crossed, the project and the
information to be shared.

## The call
Use the approved wall-crossing script. The person must agree to receive inside information
before it is shared, and must be told that they cannot deal in the securities concerned.

## Records
[[wc-insider|Anyone who is wall-crossed is added to the project's insider list on the same
day.]] The Control Room keeps the records for at least five years.
""",
        versions=(
            (
                480,
                {
                    "rule": "The Control Room must be told of every wall-crossing within 24 hours "
                    "after it happens."
                },
            ),
            (
                820,
                {
                    "rule": "The Control Room must approve every wall-crossing before any inside "
                    "information is shared."
                },
            ),
        ),
        doc_type="procedure",
        facts={
            "wc-approval": fact(
                "Nobody may be wall-crossed without the Control Room's approval in advance.",
                "The Control Room must be told of every wall-crossing within 5 business days "
                "after it happens.",
                "Do I need Control Room approval before wall-crossing someone?",
            ),
            "wc-insider": fact(
                "People who are wall-crossed go onto the insider list that same day.",
                "Anyone who is wall-crossed is added to the project's insider list within a week.",
                "When are wall-crossed people added to the insider list?",
            ),
        },
    ),
    doc(
        T,
        "pol-watch-restricted-lists",
        "Watch list and restricted list",
        "confidential",
        """
## Watch list
[[wl-watch|The watch list is confidential and known only to the Control Room and
Compliance.]] A company goes on the watch list as soon as the firm receives inside
information about it.

## Restricted list
[[wl-restricted|Securities on the restricted list may not be traded by the firm or its staff,
and research on them may not be published.]] A company moves to the restricted list when a
deal involving it is announced.
""",
        tick=700,
        facts={
            "wl-watch": fact(
                "Only the Control Room and Compliance know what is on the watch list.",
                "The watch list is published to all staff so that they can avoid dealing.",
                "Who can see the watch list?",
                private=True,
            ),
            "wl-restricted": fact(
                "Neither the firm nor its people may trade restricted-list securities, and no "
                "research on them can go out.",
                "Securities on the restricted list may be traded by the firm but not by its staff.",
                "What does being on the restricted list mean?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "pol-personal-account-dealing",
        "Personal account dealing",
        "internal",
        """
## Pre-clearance
[[pad-preclear|Every personal trade needs pre-clearance from Compliance, valid until the end of
the next business day.]] Trades in funds and government bonds are exempt.

## Holding period
[[pad-hold|Investments bought in a personal account must be held for at least {hold}.]]
Compliance may waive the holding period in cases of hardship.

## Connected persons
The rules also apply to accounts of your spouse or partner and of children under 18.
""",
        versions=((300, {"hold": "30 days"}), (760, {"hold": "60 days"})),
        facts={
            "pad-preclear": fact(
                "Personal trades must be pre-cleared by Compliance, and clearance lasts until the "
                "close of the following business day.",
                "Every personal trade needs pre-clearance from Compliance, valid for five "
                "business days.",
                "How long is a personal dealing pre-clearance valid?",
            ),
            "pad-hold": fact(
                "Staff must keep personal investments for a minimum of {hold}.",
                "Investments bought in a personal account must be held for at least 90 days.",
                "What is the holding period for personal investments?",
            ),
        },
    ),
    doc(
        T,
        "pol-research-independence",
        "Research independence and blackout periods",
        "internal",
        """
## Independence
Research analysts report to the Head of Research, not to the advisory business, and their pay
is not linked to any deal.

## Blackouts
[[rb-general|When the firm acts on a live deal for a company, its analysts may not publish on
that company for a blackout period set by the Control Room.]] Blackout periods are notified to
analysts without naming the deal.
""",
        tick=610,
        facts={
            "rb-general": fact(
                "Analysts go quiet on a company while we work a live deal for it, for a period "
                "the Control Room decides.",
                "When the firm acts on a live deal for a company, its analysts may not publish on "
                "that company for a blackout period set by the Head of Research.",
                "Who sets research blackout periods?",
            ),
        },
    ),
    doc(
        T,
        "pol-pitchbook-standards",
        "Pitch book standards",
        "internal",
        """
## Review
[[pb-review|Every pitch book must be reviewed by a vice president or someone more senior
before it leaves the firm.]] Valuation pages also need a second review by the valuation
group.

## Claims and sources
League table claims must give the source, the period and the ranking criteria. Client logos
may be used only with the client's written consent.
""",
        tick=520,
        facts={
            "pb-review": fact(
                "No pitch book goes out without sign-off from at least a vice president.",
                "Every pitch book must be reviewed by an associate or someone more senior before "
                "it leaves the firm.",
                "Who has to review a pitch book before it is sent?",
            ),
        },
    ),
    doc(
        T,
        "terms-engagement-letter",
        "Standard engagement letter terms",
        "internal",
        """
## Liability
[[el-cap|Our liability under an engagement letter is capped at the fees received, except in the
case of fraud or wilful misconduct.]]

## Expenses
[[el-expenses|Expenses above GBP 25,000 need the client's prior written consent.]]

## Termination
Either party may end the engagement on 14 days' notice; a tail period of 12 months applies to
the success fee.
""",
        tick=580,
        facts={
            "el-cap": fact(
                "Apart from fraud or wilful misconduct, we are liable for no more than the fees "
                "we were paid.",
                "Our liability under an engagement letter is capped at twice the fees received, "
                "except in the case of fraud or wilful misconduct.",
                "Is our liability capped in an engagement letter?",
            ),
            "el-expenses": fact(
                "The client has to agree in writing to any expenses over GBP 25,000.",
                "Expenses above GBP 250,000 need the client's prior written consent.",
                "When do expenses need client consent?",
            ),
        },
    ),
    doc(
        T,
        "proc-deal-codenames",
        "Project code names",
        "internal",
        """
## Assigning a code name
[[code-assign|A code name is assigned by the Control Room when a project is opened and must be
used in all emails, file names and calendar entries.]] Code names are names of birds and are
never reused within five years.

## Using code names
Do not combine a code name with the client's or target's real name in any document outside the
project's restricted folders.
""",
        tick=350,
        doc_type="procedure",
        facts={
            "code-assign": fact(
                "The Control Room gives each project its code name when the project is opened.",
                "A code name is chosen by the deal team when a project is opened and must be used "
                "in all emails, file names and calendar entries.",
                "Who assigns project code names?",
            ),
        },
    ),
    doc(
        T,
        "control-room-log-2026-q2",
        "Control Room log: live projects, second quarter 2026",
        "restricted",
        """
## Live projects
- Project Falcon: Harrowgate Industrial plc, possible offer for Solent Cold Chain plc. Barrier
  in place; 23 insiders.
- Project Osprey: sale of Bramble Water Services for Castlemere Infrastructure Partners.
  Barrier in place; staple financing with the wholesale bank's leveraged finance team.
- Project Heron: IPO of Lumen Payments Ltd. Barrier in place; research blackout notified.

## Watch list changes
[[log-watch|Solent Cold Chain plc and Lumen Payments Ltd were added to the watch list in April
2026.]]
""",
        tick=940,
        doc_type="control-room",
        facts={
            "log-watch": fact(
                "In April 2026 the Control Room put Solent Cold Chain and Lumen Payments on the "
                "watch list.",
                "Solent Cold Chain plc and Lumen Payments Ltd were added to the restricted list in "
                "April 2026.",
                "Which companies were added to the watch list in April?",
                private=True,
            ),
        },
    ),
    doc(
        T,
        "overview-advisory-services",
        "Tidewater Capital Advisory: who we are",
        "public",
        """
## What we do
Tidewater Capital Advisory advises companies, families and financial sponsors on mergers and
acquisitions, equity capital markets and restructuring, from offices in London, Dubai and
Singapore.

## Track record
[[ov-deals|In 2025 we completed 48 transactions with a combined value of GBP 21 billion.]]
""",
        tick=400,
        doc_type="overview",
        facts={
            "ov-deals": fact(
                "The advisory business closed 48 deals worth GBP 21 billion in total in 2025.",
                "In 2025 we completed 84 transactions with a combined value of GBP 21 billion.",
                "How many deals did Tidewater advise on in 2025?",
            ),
        },
    ),
    doc(
        T,
        "pr-advisory-league-table",
        "Press release: Tidewater in the 2025 mid-market league tables",
        "public",
        """
## Ranking
[[pr-rank|Tidewater Capital Advisory ranked fifth by deal count among UK mid-market M&A
advisers in 2025]], up from ninth in 2024, according to the Mergermarket tables.

## Comment
The head of advisory said the result reflected growth in cross-border deals between the UK and
the Gulf.
""",
        tick=690,
        doc_type="press-release",
        facts={
            "pr-rank": fact(
                "By number of deals, Tidewater was the fifth-ranked UK mid-market M&A adviser in "
                "2025.",
                "Tidewater Capital Advisory ranked first by deal count among UK mid-market M&A "
                "advisers in 2025",
                "Where did Tidewater rank in the 2025 league tables?",
            ),
        },
    ),
]
