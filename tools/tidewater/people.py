"""Who asks: the principals of each Tidewater tenant."""

from __future__ import annotations

from tidewater.model import Asker

# Wholesale: Tidewater Corporate & Transaction Banking.
W_ANALYST = Asker("u-w-1042", "wholesale", "internal", (), "payments operations analyst")
W_TRADE = Asker("u-w-1187", "wholesale", "internal", (), "trade finance analyst")
W_OFFICER = Asker("u-w-2210", "wholesale", "confidential", (), "sanctions screening officer")
W_RM = Asker("u-w-2305", "wholesale", "confidential", (), "relationship manager")
W_HEAD = Asker("u-w-3001", "wholesale", "restricted", (), "head of financial crime")
W_LEVFIN = Asker(
    "u-w-3120", "wholesale", "restricted", ("deal-osprey",), "leveraged finance director"
)
W_PUBLIC = Asker("u-w-0007", "wholesale", "public", (), "client service contractor")

# Retail: Tidewater Retail Bank.
R_AGENT = Asker("u-r-1310", "retail", "internal", (), "collections agent")
R_ADVISER = Asker("u-r-1422", "retail", "internal", (), "branch adviser")
R_SPECIALIST = Asker("u-r-2050", "retail", "confidential", (), "hardship specialist")
R_HEAD = Asker("u-r-3007", "retail", "restricted", (), "head of collections")
R_PUBLIC = Asker("u-r-0011", "retail", "public", (), "customer help assistant")

# Advisory: Tidewater Capital Advisory (M&A and equity capital markets).
A_JUNIOR = Asker("u-a-1005", "advisory", "internal", (), "analyst, not wall-crossed")
A_FALCON_ANALYST = Asker("u-a-1120", "advisory", "internal", ("deal-falcon",), "Falcon analyst")
A_FALCON_ASSOC = Asker("u-a-2044", "advisory", "confidential", ("deal-falcon",), "Falcon associate")
A_FALCON_VP = Asker("u-a-3015", "advisory", "restricted", ("deal-falcon",), "Falcon vice president")
A_OSPREY_VP = Asker("u-a-3090", "advisory", "restricted", ("deal-osprey",), "Osprey vice president")
A_HERON_MD = Asker("u-a-3200", "advisory", "restricted", ("deal-heron",), "Heron managing director")
A_MD = Asker(
    "u-a-3500",
    "advisory",
    "restricted",
    ("deal-falcon", "deal-heron", "deal-osprey"),
    "head of advisory",
)
A_CONTROL = Asker("u-a-2900", "advisory", "restricted", (), "control room officer")
A_PUBLIC = Asker("u-a-0003", "advisory", "public", (), "website assistant")

ROSTER: tuple[Asker, ...] = (
    W_ANALYST,
    W_TRADE,
    W_OFFICER,
    W_RM,
    W_HEAD,
    W_LEVFIN,
    W_PUBLIC,
    R_AGENT,
    R_ADVISER,
    R_SPECIALIST,
    R_HEAD,
    R_PUBLIC,
    A_JUNIOR,
    A_FALCON_ANALYST,
    A_FALCON_ASSOC,
    A_FALCON_VP,
    A_OSPREY_VP,
    A_HERON_MD,
    A_MD,
    A_CONTROL,
    A_PUBLIC,
)
