"""The kit draws the same cases whatever else is imported (``fixed_constant_pool``).

Hypothesis mixes into its draws constants it harvests from every imported module outside
site-packages. An editable install of ragward, or a user's own test files, would then
change which cases an invariant's seed gives, and a verdict would follow the install.
"""

from __future__ import annotations

import importlib
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from ragward.conformance import Invariant
from ragward.conformance.contract import Factory
from ragward.conformance.runner import fixed_constant_pool, run_invariant
from ragward.engines.reference import reference_factory

#: Many integers per case, so that hypothesis' 5% of constant draws land in every case.
NUMBERS = st.lists(st.integers(0, 10**6), min_size=60, max_size=60)


def _recording(drawn: list[Any]) -> Invariant:
    def check(factory: Factory, case: Any) -> None:
        drawn.append(case)

    return Invariant(
        id="TEST-DRAWS",
        level="determinism",
        title="records what it draws",
        doc="Records each case.",
        requires=(),
        case_type=list,
        cases=lambda: NUMBERS,
        check=check,
    )


def _kit_draws() -> list[Any]:
    drawn: list[Any] = []
    verdict = run_invariant(_recording(drawn), reference_factory, call_timeout=None)
    assert verdict.status == "pass", verdict.reason
    return drawn


def _plain_draws() -> list[Any]:
    drawn: list[Any] = []

    @seed(7)
    @settings(max_examples=25, database=None, derandomize=False)
    @given(NUMBERS)
    def probe(case: list[int]) -> None:
        drawn.append(case)

    probe()
    return drawn


@pytest.fixture
def constants_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Imports, when called, a new local module full of integers in NUMBERS' range.

    Each test gets constants no earlier test imported: hypothesis never forgets one.
    """
    name = f"ragward_test_constants_{uuid.uuid4().hex}"
    start = uuid.uuid4().int % 10**5
    body = "\n".join(f"C{i} = {start + 7919 * i}" for i in range(120))
    (tmp_path / f"{name}.py").write_text(body + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield lambda: importlib.import_module(name)
    sys.modules.pop(name, None)


def test_a_newly_imported_module_changes_plain_hypothesis_draws(constants_module: Any) -> None:
    # The effect the kit guards against, shown on a plain hypothesis test: if this stops
    # failing to match, hypothesis no longer harvests local constants and the guard in
    # fixed_constant_pool can go.
    before = _plain_draws()
    constants_module()
    assert _plain_draws() != before


def test_a_newly_imported_module_leaves_the_kit_draws_alone(constants_module: Any) -> None:
    before = _kit_draws()
    constants_module()
    assert _kit_draws() == before
    assert len(before) == 25


def test_the_pool_comes_back_after_the_kit_ran(constants_module: Any) -> None:
    from hypothesis.internal.conjecture import providers

    original = providers._get_local_constants
    with fixed_constant_pool(), fixed_constant_pool():  # nested: restored once, at the end
        assert providers._get_local_constants is not original
    assert providers._get_local_constants is original


def test_the_other_process_of_det_005_stops_with_the_invariant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ragward.conformance import REGISTRY, processes
    from ragward.conformance.invariants import determinism

    started: list[Any] = []

    def spying(factory: Factory) -> Any:
        peers = processes.other_process(factory)
        started.append(peers)
        return peers

    monkeypatch.setattr(determinism, "other_process", spying)
    verdict = run_invariant(REGISTRY["DET-005"], reference_factory)
    assert verdict.status == "pass", verdict.reason
    assert started
    assert all(p is not None for p in started)
    assert processes._PEERS == {}
    assert all(p.peers == 0 for p in started)
