"""Checks the documentation tests share: a generated part is up to date, an example prints
what its comments say."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "assert_example_prints_what_it_says", "assert_generated_up_to_date"]

ROOT = Path(__file__).resolve().parent.parent


def assert_generated_up_to_date(tool: str) -> None:
    """``python tools/<tool> --check``, run from the root, exits 0: the page parts it
    generates are what is committed."""
    done = subprocess.run(
        [sys.executable, f"tools/{tool}", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def assert_example_prints_what_it_says(page: Path) -> None:
    """The first Python block of ``page``, run, prints each ``print(...)`` line's trailing
    ``# comment``, in order."""
    text = page.read_text(encoding="utf-8")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    expected = [
        line.split("# ", 1)[1].strip() for line in block.splitlines() if line.startswith("print(")
    ]
    assert expected
    printed: list[str] = []
    exec(block, {"print": lambda *args: printed.append(" ".join(map(str, args)))})
    assert printed == expected
