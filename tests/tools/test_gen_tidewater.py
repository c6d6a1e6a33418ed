"""The Tidewater builder (``tools/gen_tidewater.py``): the set comes from its data files, and a
broken data file is refused with the file, entry and field named.

That the committed set is what the data builds, byte for byte, is checked beside the set's
own rules in ``tests/evals/test_tidewater.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
BUILDER = ROOT / "tools" / "tidewater"
DATA = BUILDER / "data"
POLICIES = "documents/wholesale-policies.toml"

pytestmark = pytest.mark.slow


def _build(data: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.gen_tidewater", "--data", str(data), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def _copy_with(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the data folder where ``old`` is replaced once by ``new`` in file ``name``."""
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    path = data / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return data


def _refused(result: subprocess.CompletedProcess[str], out: Path, code: int) -> str:
    assert result.returncode == code, result.stdout + result.stderr
    assert result.stdout == ""
    assert not out.exists(), "nothing is written when the content is refused"
    return result.stderr


def test_the_set_is_built_from_the_data_files(tmp_path: Path) -> None:
    data = _copy_with(
        tmp_path,
        POLICIES,
        'title = "Payments on sanctions hold: release policy"',
        'title = "Policy on releasing sanctions holds"',
    )
    result = _build(data, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    bundled = (ROOT / "datasets" / "tidewater" / "corpus.jsonl").read_text(encoding="utf-8")
    built = (tmp_path / "out" / "corpus.jsonl").read_text(encoding="utf-8")
    changed = [
        (json.loads(old), json.loads(new))
        for old, new in zip(bundled.splitlines(), built.splitlines(), strict=True)
        if old != new
    ]
    # The three versions of that policy, and nothing else, carry the new title.
    assert [new["_id"] for _, new in changed] == ["pol-sanctions-hold-release"] * 3
    assert {new["title"] for _, new in changed} == {"Policy on releasing sanctions holds"}
    assert all({**old, "title": new["title"]} == new for old, new in changed)


def test_a_missing_field_names_the_file_the_entry_and_the_field(tmp_path: Path) -> None:
    data = _copy_with(tmp_path, POLICIES, 'classification = "internal"\n', "")
    stderr = _refused(_build(data, tmp_path / "out"), tmp_path / "out", 2)
    assert stderr.count("\n") == 1
    assert stderr.startswith(f"gen_tidewater: {POLICIES} doc[0]: field 'classification'")
    assert "missing" in stderr


def test_a_misspelt_field_is_refused_not_ignored(tmp_path: Path) -> None:
    data = _copy_with(tmp_path, POLICIES, "paraphrase = ", "paraphase = ")
    stderr = _refused(_build(data, tmp_path / "out"), tmp_path / "out", 2)
    assert stderr.count("\n") == 1
    assert f"{POLICIES} doc[0] facts hold-review: field 'paraphase' is unknown" in stderr


def test_a_file_that_is_not_toml_is_refused_with_its_line(tmp_path: Path) -> None:
    data = _copy_with(tmp_path, "people.toml", 'handle = "w-analyst"', "handle = w-analyst")
    stderr = _refused(_build(data, tmp_path / "out"), tmp_path / "out", 2)
    assert stderr.count("\n") == 1
    assert stderr.startswith("gen_tidewater: people.toml: not valid TOML:")
    assert "line 8" in stderr


def test_an_unknown_asker_and_a_missing_placeholder_are_named(tmp_path: Path) -> None:
    data = _copy_with(tmp_path, "questions/shared.toml", 'asker = "w-rm"', 'asker = "w-nobody"')
    stderr = _refused(_build(data, tmp_path / "out"), tmp_path / "out", 2)
    assert "questions/shared.toml question[0]: no asker 'w-nobody' in people.toml" in stderr
    data = _copy_with(
        tmp_path / "again",
        "families/mandates.toml",
        'title = "Credentials: {title}"',
        'title = "{client}"',
    )
    stderr = _refused(_build(data, tmp_path / "out"), tmp_path / "out", 2)
    assert "families/mandates.toml mandate[0]: no value for the placeholder {client}" in stderr


def test_a_broken_rule_of_the_set_is_listed_with_exit_1(tmp_path: Path) -> None:
    data = _copy_with(
        tmp_path, "questions/shared.toml", "{ pol-complaints-handling = 2 }", "{ pol-nothing = 2 }"
    )
    stderr = _refused(_build(data, tmp_path / "out"), tmp_path / "out", 1)
    assert "judged 'pol-nothing' is not a wholesale document" in stderr
    assert "no relevant document" in stderr


def test_the_builder_is_logic_and_the_content_is_data() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in BUILDER.glob("*.py")}
    assert max(sizes.values()) <= 300, sizes
    assert sum(sizes.values()) < 2000, sizes
    assert list(DATA.rglob("*.py")) == []
    assert len(list(DATA.rglob("*.toml"))) >= 20
