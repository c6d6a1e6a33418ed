"""The kit never asks about a tick after the last one a 64-bit signed column holds.

A scene may happen at the last tick (``LAST_TICK``, 2**63 - 1), so that the freshness
edge lies on the largest value an engine stores; an invariant that then looks a few ticks
later (STAT-003's later ``now_tick``, DET-003's noise) must stay at that tick, or it
reports an engine's refusal of an out-of-range integer as the engine's error."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import REGISTRY
from ragward.conformance.records import Asker, Doc, Policy, case_data
from ragward.conformance.runner import replay
from ragward.conformance.strategies import LAST_TICK, Scene
from ragward.engines.reference import ReferenceSystem


class _Int64Only(ReferenceSystem):
    """The reference, refusing a tick an int64 column could not hold, as SQLite,
    PostgreSQL and tantivy do."""

    def ingest(self, doc: Doc) -> bool:
        _in_range(doc.updated_tick)
        return super().ingest(doc)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Any:
        _in_range(now_tick)
        return super().retrieve(query, asker, now_tick, policy)


def _in_range(tick: int) -> None:
    if not -(2**63) <= tick <= LAST_TICK:
        raise OverflowError(f"tick {tick} does not fit a 64-bit signed integer")


_AT_THE_END = Scene(
    docs=(
        Doc("initech", "d2", "qxgfgypy", classification="public", updated_tick=LAST_TICK),
        Doc("acme", "d1", "qxonsmvw screening", classification="public", updated_tick=LAST_TICK),
    ),
    asker=Asker("u1", "acme", "public"),
    query="screening ledger qxonsmvw",
    policy=Policy(mode="lexical", candidate_limit=5, result_limit=1, max_stale_ticks=0),
    now_tick=LAST_TICK,
)

#: The same moment, asked by a tenant with no document: no freshness edge to keep.
_NOTHING_OF_MINE = replace(_AT_THE_END, asker=Asker("u2", "globex", "public"))

_SCENE_INVARIANTS = sorted(i for i, inv in REGISTRY.items() if inv.case_type is Scene)


def test_the_strict_system_does_refuse_a_later_tick() -> None:
    system = _Int64Only()
    with pytest.raises(OverflowError):
        system.retrieve("q", _AT_THE_END.asker, LAST_TICK + 1, _AT_THE_END.policy)


@pytest.mark.parametrize("scene", [_AT_THE_END, _NOTHING_OF_MINE], ids=["mine", "none"])
@pytest.mark.parametrize("invariant_id", _SCENE_INVARIANTS)
def test_no_invariant_asks_after_the_last_tick(invariant_id: str, scene: Scene) -> None:
    replay(_Int64Only, invariant_id, case_data(scene))  # raises past the last tick
