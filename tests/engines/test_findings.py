"""The engine findings, replayed: each pinned counterexample still fails.

The matrix is a sampled verdict (see ``tools/pin_findings.py``); the findings are the
failures it ever found, each with its counterexample, kept in
``reports/engines/findings/<label>.json`` only after failing again in fresh processes
under three hash seeds. Here every one of them is replayed against its configuration and
must fail again: an engine release that fixes a defect shows up as a failing test and a
reviewed change of the findings, never as a finding that silently went away. The replay
goes through ``ragward conform --replay ... --emit-test``: the pytest file it writes for
each finding must fail on its engine and pass on the reference.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.cli.conform_replay import replay_stored
from ragward.conformance.guard import DEFAULT_CALL_TIMEOUT
from ragward.conformance.invariant import REGISTRY, Violation
from ragward.conformance.loading import load_factory
from ragward.conformance.records import from_data
from ragward.engines import configurations
from ragward.engines.matrix import impl_of, label
from ragward.engines.reference import reference_factory

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = ROOT / "reports" / "engines" / "findings"
PAGE = ROOT / "docs" / "engines.md"
_columns = {label(c): c for c in configurations() if c.in_matrix}
#: Cells whose engine answers differently from run to run: pinned for replay by hand, not
#: replayed here (an outcome that may go either way proves nothing).
_UNSTABLE: dict[str, dict[str, str]] = json.loads(
    (Path(__file__).with_name("unstable_cells.json")).read_text(encoding="utf-8")
)


def _findings() -> list[tuple[str, str, Any]]:
    out = []
    for path in sorted(FINDINGS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out += [(path.stem, v["id"], v["counterexample"]) for v in data["invariants"]]
    return out


def _stable_findings() -> list[tuple[str, str, Any]]:
    return [f for f in _findings() if f[1] not in _UNSTABLE.get(f[0], {})]


def _cells_the_page_names() -> set[tuple[str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("<!-- findings:start -->", 1)[1].split("<!-- findings:end -->", 1)[0]
    cells = re.findall(r"\b([a-z]+-[a-z_]+)/([A-Z]+-\d{3})\b", section)
    return set(cells)


def test_every_cell_the_engines_page_names_is_pinned() -> None:
    pinned = {(column, invariant) for column, invariant, _ in _findings()}
    named = _cells_the_page_names()
    assert len(named) >= 30, "docs/engines.md: the findings name their cells as label/ID"
    assert sorted(named - pinned) == []


def test_findings_are_pinned_for_the_engines_the_page_names() -> None:
    pinned = {(column, invariant) for column, invariant, _ in _findings()}
    # The page's headline findings (qdrant/qdrant#9445 and #6735, pgvector#259/#751,
    # lancedb#2762): if one of these stops being pinned, docs/engines.md is out of date.
    for cell in [
        ("qdrant-edge", "ISO-002"),
        ("qdrant-edge", "STAT-002"),
        ("qdrant-edge", "LIFE-006"),
        ("postgres-pgvector_hnsw", "PRE-005"),
        ("lancedb-postfilter", "PRE-005"),
        ("lancedb-prefilter", "STAT-001"),
    ]:
        assert cell in pinned, cell
        assert cell in _cells_the_page_names(), cell
    for column, invariant, case in _findings():
        assert column in _columns, column
        assert invariant in REGISTRY, invariant
        assert case is not None, (column, invariant)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("column", "invariant", "case"),
    _stable_findings(),
    ids=[f"{c}-{i}" for c, i, _ in _stable_findings()],
)
def test_each_finding_s_emitted_test_fails_on_its_engine_and_passes_on_the_reference(
    column: str,
    invariant: str,
    case: Any,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``ragward conform --impl <engine> --replay <findings> --invariant ID --emit-test F``,
    in process: the finding still fails on its engine, and the pytest file it writes fails
    there (its test function, as pytest would call it) and passes on the reference."""
    configuration = _columns[column]
    assert not configuration.missing(), f"the test extra must install {configuration.extra}"
    if configuration.engine == "postgres":
        request.getfixturevalue("postgres_servers")
    impl = impl_of(configuration)
    emitted = tmp_path / f"test_{column}_{invariant}.py".replace("-", "_").lower()
    engine = (load_factory(impl), impl, f"--impl {impl}")
    stored = FINDINGS / f"{column}.json"
    assert replay_stored(stored, invariant, engine, DEFAULT_CALL_TIMEOUT, emitted) == 1
    assert capsys.readouterr().out.startswith(f"{invariant} still fails on {impl}:")
    module = _imported(emitted)
    assert impl == module.IMPL
    kind = REGISTRY[invariant].case_type
    assert from_data(kind, module.CASE) == from_data(kind, case)  # the pinned case, as read
    (test,) = [getattr(module, name) for name in dir(module) if name.startswith("test_")]
    with pytest.raises(Violation):
        test()
    module.check(reference_factory)


def _imported(path: Path) -> Any:
    """The emitted file as a module of its own, as pytest imports a test file."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
