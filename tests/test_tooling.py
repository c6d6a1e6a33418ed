"""The tooling runs itself: lint, format and strict typing are part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert found is not None, "ruff is not installed: pip install '.[test]'"
    return found


@pytest.mark.slow
def test_ruff_lint_is_clean() -> None:
    result = _run(_ruff(), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_ruff_format_is_clean() -> None:
    result = _run(_ruff(), "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr
