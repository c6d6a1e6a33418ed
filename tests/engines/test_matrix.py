"""The verdict matrix, checked against its golden file.

Each column — the reference and every engine configuration the matrix runs — is judged by
the full kit (``ci`` profile), and its verdicts must equal the ones recorded in
``golden_matrix.json``. A change in an engine's behaviour (a new release of its package)
or in the kit (a new or a stronger invariant) therefore shows up as a failing test and a
reviewed diff of that file, never silently. Regenerate it with::

    ragward engines --matrix --out reports/engines
    python tools/gen_engine_docs.py            # golden file and docs/engines.md
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragward.engines import configurations
from ragward.engines.matrix import REFERENCE, label, run_column, statuses
from tests.doc_checks import assert_generated_up_to_date

GOLDEN = Path(__file__).with_name("golden_matrix.json")
_golden: dict[str, dict[str, str]] = json.loads(GOLDEN.read_text(encoding="utf-8"))
#: Cells whose verdict an engine does not give the same way twice (an HNSW graph drawn at
#: random): either pass or fail is accepted there, each with its reason and its failure
#: rate (``ragward engines --matrix --repeat N``); reviewed by hand, never generated.
UNSTABLE = Path(__file__).with_name("unstable_cells.json")
_unstable: dict[str, dict[str, str]] = json.loads(UNSTABLE.read_text(encoding="utf-8"))
_columns = {label(c): c for c in [REFERENCE, *configurations()] if c.in_matrix}


def test_every_column_of_the_matrix_has_recorded_verdicts() -> None:
    assert sorted(_golden) == sorted(_columns)


def test_every_unstable_cell_is_a_recorded_cell_with_a_reason() -> None:
    for column, cells in _unstable.items():
        for invariant, reason in cells.items():
            assert invariant in _golden[column], f"{column} {invariant}"
            assert len(reason) > 20, f"{column} {invariant}: say why it is unstable"


#: The columns every CI run judges whole; the others (``ci_column=False``) are regenerated
#: by hand and committed, their findings replayed by ``test_findings.py``.
_judged_in_ci = sorted(c for c in _golden if c in _columns and _columns[c].ci_column)


@pytest.mark.slow
@pytest.mark.parametrize("column", _judged_in_ci)
def test_the_kit_gives_each_engine_its_recorded_verdicts(
    column: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    configuration = _columns[column]
    assert not configuration.missing(), f"the test extra must install {configuration.extra}"
    if configuration.engine == "postgres":
        request.getfixturevalue("postgres_servers")
    # Verdicts, not counterexamples, are compared: shrinking would only cost time.
    got = statuses([run_column(configuration, tmp_path, shrink=False)])[column]
    unstable = _unstable.get(column, {})
    changed = {
        invariant: f"{_golden[column].get(invariant)} -> {status}"
        for invariant, status in got.items()
        if _golden[column].get(invariant) != status
        and not (invariant in unstable and {status, _golden[column][invariant]} <= {"pass", "fail"})
    }
    assert not changed, f"{column}: verdicts differ from {GOLDEN.name}: {changed}"
    assert sorted(got) == sorted(_golden[column])


def test_the_golden_file_and_the_engines_page_match_the_committed_matrix() -> None:
    assert_generated_up_to_date("gen_engine_docs.py")


def test_a_selected_invariant_is_put_into_the_stored_reports(tmp_path: Path) -> None:
    import io
    import shutil

    from ragward.engines.matrix_update import update_matrix
    from ragward.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="run the whole kit on reference first"):
        update_matrix([REFERENCE], tmp_path, ["ISO-006"], stream=io.StringIO())
    stored = Path(__file__).resolve().parents[2] / "reports" / "engines" / "reference.json"
    shutil.copy(stored, tmp_path / "reference.json")
    before = json.loads(stored.read_text(encoding="utf-8"))["invariants"]
    # ISO-006 left out (a new invariant), ISO-001 stale: both run, every other one kept.
    kept = [v for v in before if v["id"] not in ("ISO-001", "ISO-006")]
    [iso_001] = [v for v in before if v["id"] == "ISO-001"]
    stale = {**iso_001, "verdict": "fail", "reason": "stale"}
    data = json.loads(stored.read_text(encoding="utf-8"))
    data["invariants"] = [stale, *kept]
    (tmp_path / "reference.json").write_text(json.dumps(data), encoding="utf-8")
    [column] = update_matrix([REFERENCE], tmp_path, ["ISO-001", "ISO-006"], stream=io.StringIO())
    after = json.loads((tmp_path / "reference.json").read_text(encoding="utf-8"))["invariants"]
    by_id = {v["id"]: v for v in after}
    assert by_id["ISO-001"]["verdict"] == by_id["ISO-006"]["verdict"] == "pass"
    assert [v["id"] for v in after][:6] == [f"ISO-00{n}" for n in range(1, 7)]
    assert [v for v in after if v["id"] not in ("ISO-001", "ISO-006")] == [
        {
            **v,
            "shrink_steps": v.get("shrink_steps", 0),
            "minimised": v.get("minimised"),
            "diff": v.get("diff", []),
        }
        for v in kept
    ]
    assert statuses([column])["reference"]["ISO-006"] == "pass"
    assert "| ISO-006 " in (tmp_path / "matrix.md").read_text(encoding="utf-8")
