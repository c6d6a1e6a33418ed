"""``conformance/README.md`` documents every invariant, generated from the registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance import REGISTRY

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "conformance" / "README.md"


def test_every_invariant_has_a_section_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("<!-- invariants:start -->", 1)[1].split("<!-- invariants:end -->")[0]
    missing = [i for i in REGISTRY if f"#### {i}\n" not in section]
    assert missing == [], "run: python tools/gen_invariant_docs.py"
    for invariant in REGISTRY.values():
        assert f"**{invariant.title}**" in section, invariant.id


def test_the_generated_section_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, "tools/gen_invariant_docs.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
