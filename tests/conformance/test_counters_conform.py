"""The assembly and chunking invariants hold under every named token counter.

A budget counted in ``cl100k`` tokens is still never exceeded, the question still never
dropped, and chunks sized in MiniLM word pieces still cover their documents exactly: the
reference is built with each counter (``reference_factory(token_counter=...)``, which
sizes chunks, budgets and ``count_tokens`` alike) and the kit asked its assembly and
chunking rules.
"""

from __future__ import annotations

from functools import partial

import pytest

from ragward.conformance.invariant import REGISTRY, catalogue
from ragward.conformance.runner import run_conformance
from ragward.engines.reference import reference_factory
from ragward.reference.counters import COUNTERS

pytest.importorskip("bpe_openai", reason="the tokens extra (in the test extra)")

_COUNTED = [i for i in catalogue() if set(REGISTRY[i].requires) & {"assembly", "chunking"}]


def test_the_counted_rules_are_the_assembly_and_chunking_ones() -> None:
    assert len([i for i in _COUNTED if i.startswith("ASM-")]) >= 7
    assert {"PROV-003", "PROV-004", "PROV-005"} <= set(_COUNTED)


@pytest.mark.slow
@pytest.mark.parametrize("counter", [c for c in COUNTERS if c != "chars4"])  # chars4: every run
def test_every_counter_keeps_the_assembly_and_chunking_invariants(counter: str) -> None:
    factory = partial(reference_factory, token_counter=counter)
    system = factory()
    assert system.count_tokens("one two three four five six") == system.retriever.token_counter(
        "one two three four five six"
    )
    report = run_conformance(factory, select=_COUNTED, shrink=False)
    counts = report.counts()
    assert counts["fail"] == 0, report
    assert counts["error"] == 0, report
    assert counts["pass"] == len(_COUNTED)
