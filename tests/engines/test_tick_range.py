"""Freshness edges at the ends of the tick range (issue 30, defect 8).

On main, LanceDB failed with "Invalid user input" when ``now_tick - max_stale_ticks`` was
-2**63 or lower (the literal of its filter is not an int64), and the dataset loader
accepted ``max_stale_ticks = 2**63``, which makes that edge from ``now_tick = 0``. The
loader now refuses a tick above 2**63 - 1 (``tests/test_nesting_and_numbers.py``) and every
engine's view keeps its edge inside int64, as the reference compares it.
"""

from __future__ import annotations

import pytest

from ragward.conformance.records import Asker, Doc, Policy
from ragward.engines.common import View
from ragward.reference.documents import TICK_MAX

ASKER = Asker("u", "acme")


@pytest.mark.parametrize(
    ("now", "stale", "edge"),
    [
        (0, TICK_MAX, -TICK_MAX),
        (-5, TICK_MAX, -TICK_MAX),  # below int64: every tick an engine holds is fresh
        (-(2**70), 3, -TICK_MAX),
        (10, 3, 7),
        (TICK_MAX, 0, TICK_MAX),
    ],
)
def test_the_view_keeps_its_freshness_edge_inside_int64(now: int, stale: int, edge: int) -> None:
    assert View.of(ASKER, now, Policy(max_stale_ticks=stale)).min_tick == edge


@pytest.mark.parametrize("configuration", ["prefilter", "postfilter"])
@pytest.mark.parametrize("now", [0, -1, -(2**63), -(2**80)])
def test_lancedb_answers_at_the_lowest_edges(configuration: str, now: int) -> None:
    pytest.importorskip("lancedb")
    from ragward.engines import lancedb as engine

    system = getattr(engine, configuration)()
    assert system.ingest(Doc("acme", "d1", "payment ledger", updated_tick=0))
    assert system.ingest(Doc("acme", "d2", "payment ledger wire", updated_tick=TICK_MAX))
    policy = Policy(mode="lexical", rerank=False, max_stale_ticks=TICK_MAX)
    hits = system.retrieve("payment", ASKER, now, policy).hits
    assert sorted(hit.doc_id for hit in hits) == ["d1", "d2"]
