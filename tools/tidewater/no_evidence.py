"""Plausible claims stated nowhere in the set (kind ``no-evidence``)."""

from __future__ import annotations

from tidewater.model import NoEvidenceClaim
from tidewater.people import (
    A_CONTROL,
    A_FALCON_VP,
    A_HERON_MD,
    A_JUNIOR,
    A_MD,
    A_OSPREY_VP,
    A_PUBLIC,
    R_ADVISER,
    R_AGENT,
    R_HEAD,
    R_PUBLIC,
    R_SPECIALIST,
    W_ANALYST,
    W_HEAD,
    W_LEVFIN,
    W_OFFICER,
    W_PUBLIC,
    W_RM,
)

CLAIMS: tuple[NoEvidenceClaim, ...] = (
    NoEvidenceClaim(
        "The Sentinel screening engine is hosted in the Frankfurt data centre.",
        W_OFFICER,
        "Where is the Sentinel screening engine hosted?",
    ),
    NoEvidenceClaim(
        "Payments to Kestrel Marine Services may resume once the client signs a sanctions "
        "warranty.",
        W_HEAD,
    ),
    NoEvidenceClaim(
        "A sanctions hold release must be recorded in the general ledger within one hour.",
        W_ANALYST,
    ),
    NoEvidenceClaim(
        "Same-day CHF payments must be received by 14:00 London time.",
        W_PUBLIC,
        "What is the cut-off for Swiss franc payments?",
    ),
    NoEvidenceClaim(
        "Correspondent banks in Tier 3 countries are reviewed every six months.",
        W_RM,
    ),
    NoEvidenceClaim(
        "The Osprey term loan carries a 2 percent arrangement fee for Tidewater.",
        W_LEVFIN,
        "What arrangement fee does Tidewater earn on the Osprey loan?",
    ),
    NoEvidenceClaim(
        "Level 1 analysts may release payments below GBP 10,000 without a review.",
        W_ANALYST,
    ),
    NoEvidenceClaim(
        "Tidewater's intraday liquidity buffer was used in full on 17 February 2026.",
        W_HEAD,
    ),
    NoEvidenceClaim(
        "Notional pooling is available in Japanese yen.",
        W_PUBLIC,
        "Can I pool balances in yen?",
    ),
    NoEvidenceClaim(
        "Halden Aerospace Components is due to be exited as a client by the end of 2026.",
        W_OFFICER,
    ),
    NoEvidenceClaim(
        "Collections agents receive a bonus for every promise to pay that is kept.",
        R_AGENT,
        "Do collections agents get paid a bonus for kept promises?",
    ),
    NoEvidenceClaim(
        "Customers in a payment holiday keep their cashback card rewards.",
        R_ADVISER,
    ),
    NoEvidenceClaim(
        "The Easy Access Saver pays a loyalty bonus of 0.25% after two years.",
        R_PUBLIC,
        "Is there a loyalty bonus on the Easy Access Saver?",
    ),
    NoEvidenceClaim(
        "Hardship specialists can waive a mortgage product fee of GBP 999.",
        R_SPECIALIST,
    ),
    NoEvidenceClaim(
        "The Platinum card offers 0% on purchases for 12 months.",
        R_PUBLIC,
        "Is there a 0% purchase offer on the Platinum card?",
    ),
    NoEvidenceClaim(
        "Internal Audit will repeat the collections review in March 2027.",
        R_HEAD,
    ),
    NoEvidenceClaim(
        "Customers affected by the floods get a GBP 250 goodwill payment.",
        R_AGENT,
        "Do flood-hit customers get a goodwill payment?",
    ),
    NoEvidenceClaim(
        "Scam reimbursement claims are decided by the Fraud Review Panel within 48 hours.",
        R_ADVISER,
    ),
    NoEvidenceClaim(
        "Project Falcon includes a break fee of GBP 12 million payable by Solent.",
        A_FALCON_VP,
        "Is there a break fee on Project Falcon?",
    ),
    NoEvidenceClaim(
        "Lumen Payments will also list its shares in Amsterdam.",
        A_HERON_MD,
        "Will Lumen have a second listing?",
    ),
    NoEvidenceClaim(
        "Aldermoor Infrastructure withdrew from the Osprey process in July 2026.",
        A_OSPREY_VP,
    ),
    NoEvidenceClaim(
        "Analysts must complete wall-crossing training every six months.",
        A_JUNIOR,
        "How often is wall-crossing training required?",
    ),
    NoEvidenceClaim(
        "The Control Room reviews the insider lists of every live project each Friday.",
        A_CONTROL,
    ),
    NoEvidenceClaim(
        "Tidewater Capital Advisory opened an office in Riyadh in 2025.",
        A_PUBLIC,
        "Does Tidewater advisory have an office in Riyadh?",
    ),
    NoEvidenceClaim(
        "Harrowgate has agreed to sell two Solent warehouses after completion.",
        A_MD,
    ),
    NoEvidenceClaim(
        "Personal trades in cryptocurrency are banned for advisory staff.",
        A_JUNIOR,
    ),
)
