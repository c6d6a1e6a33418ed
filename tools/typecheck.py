"""Run mypy (strict) over ragward's sources and tests.

The build maps root folders into the ``ragward`` package (``reference/`` becomes
``ragward.reference``), which an editable install resolves with an import hook that mypy
cannot follow. This script mirrors the mapping as a tree of symlinks under ``.typecheck/``
and points mypy at it, so errors are reported against the files you edit.

    python tools/typecheck.py            # sources and tests
    python tools/typecheck.py tests/x.py # extra targets instead of tests/
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_tree(root: Path = ROOT) -> Path:
    """Create ``root/.typecheck/`` mirroring ``[tool.setuptools.package-dir]``; return it."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    tree = root / ".typecheck"
    shutil.rmtree(tree, ignore_errors=True)
    for package, folder in sorted(mapping.items()):
        target = tree.joinpath(*package.split("."))
        target.parent.mkdir(parents=True, exist_ok=True)
        if package == "ragward":
            target.mkdir()
            for entry in (root / folder).iterdir():
                if entry.name != "__pycache__":
                    (target / entry.name).symlink_to(os.path.relpath(entry, target))
        elif not target.exists():
            target.symlink_to(os.path.relpath(root / folder, target.parent))
    return tree


def main(argv: list[str]) -> int:
    tree = build_tree()
    targets = argv or ["tests", "tools"]
    command = [sys.executable, "-m", "mypy", str(tree.relative_to(ROOT) / "ragward"), *targets]
    environment = dict(os.environ, MYPYPATH=str(tree))
    return subprocess.call(command, cwd=ROOT, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
