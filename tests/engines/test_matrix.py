"""The verdict matrix, checked against its golden file.

Each column — the reference and every engine configuration the matrix runs — is judged by
the full kit (``ci`` profile), and its verdicts must equal the ones recorded in
``golden_matrix.json``. A change in an engine's behaviour (a new release of its package)
or in the kit (a new or a stronger invariant) therefore shows up as a failing test and a
reviewed diff of that file, never silently. Regenerate it with::

    ragward engines --matrix --out reports/engines
    python tools/gen_engine_docs.py            # golden file and conformance/README.md
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragward.engines import configurations
from ragward.engines.matrix import REFERENCE, label, run_column, statuses

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


@pytest.mark.slow
@pytest.mark.parametrize("column", sorted(_golden))
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


def test_the_golden_file_and_the_readme_match_the_committed_matrix() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "tools/gen_engine_docs.py", "--check"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
