"""Import direction and packaging layout, checked on the source tree."""

from __future__ import annotations

import ast
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.doc_checks import assert_example_prints_what_it_says

ROOT = Path(__file__).resolve().parent.parent

# package folder -> ragward packages its modules must never import
FORBIDDEN = {
    "conformance": (
        "ragward.reference",
        "ragward.evals",
        "ragward.bench",
        "ragward.demo",
        "ragward.engines",
        "ragward.cli",
    ),
    "reference": (
        "ragward.conformance",
        "ragward.evals",
        "ragward.bench",
        "ragward.demo",
        "ragward.engines",
        "ragward.cli",
    ),
    "evals": ("ragward.bench", "ragward.demo", "ragward.cli"),
    # Adapters of engines (the reference is one of them): the kit's contract, the
    # reference's chunker and models; never the harness nor the command line.
    "engines": ("ragward.evals", "ragward.bench", "ragward.demo", "ragward.cli"),
    "models": ("ragward.evals", "ragward.bench", "ragward.demo", "ragward.cli"),
    "datasets": ("ragward.evals", "ragward.bench", "ragward.demo", "ragward.cli"),
}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_import_direction(folder: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in _imports(path)
        if any(name == banned or name.startswith(banned + ".") for banned in FORBIDDEN[folder])
    ]
    assert offenders == []


def test_evals_use_only_the_public_reference() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "evals").rglob("*.py"))
        for name in _imports(path)
        if name.startswith("ragward.reference.")
    ]
    assert offenders == []


def test_every_root_folder_is_mapped_into_ragward() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    packages = config["tool"]["setuptools"]["packages"]
    assert sorted(mapping) == sorted(packages)
    for package, folder in mapping.items():
        assert package == "ragward" or package.startswith("ragward.")
        assert (ROOT / folder / "__init__.py").is_file(), folder
    for folder in ("reference", "conformance", "evals"):
        assert mapping[f"ragward.{folder}"] == folder


def test_the_root_package_links_every_mapped_folder_under_its_import_name() -> None:
    """``ragward/reference`` is a link to ``reference/`` (and so on), so mypy, editors and a
    plain checkout see the real files under their package names; the build ignores the
    links and maps the folders itself."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    assert mapping["ragward"] == "ragward"
    tops = {
        package.split(".")[1]: folder
        for package, folder in mapping.items()
        if package.count(".") == 1 and not folder.startswith("ragward/")
    }
    links = {entry.name for entry in (ROOT / "ragward").iterdir() if entry.is_symlink()}
    assert links == set(tops)
    for name, folder in tops.items():
        link = ROOT / "ragward" / name
        assert os.readlink(link) == f"../{folder}"  # relative: a copy of the tree keeps it
        assert link.resolve() == (ROOT / folder).resolve()


#: The most lines a Python file of the project may have: past it, a module holds more than
#: one idea (the style wants 30-300 lines; issue 31 set the ceiling).
MAX_LINES = 700


def _python_files() -> list[Path]:
    """Every Python file git tracks (or would: new, not ignored), else every one below
    the root but the virtual environments."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode == 0 and listed.stdout.strip():
        return [ROOT / line for line in listed.stdout.splitlines() if (ROOT / line).is_file()]
    return [
        path
        for path in ROOT.rglob("*.py")
        if not any(p.startswith(".") or p == "build" for p in path.relative_to(ROOT).parts)
    ]


def test_no_python_file_is_longer_than_the_ceiling() -> None:
    files = _python_files()
    assert len(files) > 100, files  # the listing found the tree
    long = {
        str(path.relative_to(ROOT)): lines
        for path in files
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in readme.splitlines() if line.startswith("python3 -m venv")]
    assert len(commands) == 2, commands
    assert commands[1] in ci.splitlines()
    assert "ragward eval" in commands[0]


def test_ci_runs_the_quality_gate_against_the_committed_baseline() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "ragward gate --baseline reports/baseline" in ci
    assert "--conformance" in ci
    assert (ROOT / "reports" / "baseline" / "results.json").is_file()


@pytest.mark.slow  # the three verbs: two invariants, the default grid, the gate
def test_readme_example_prints_what_it_says(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the example names the bundled set and the baseline from here
    assert_example_prints_what_it_says(ROOT / "README.md")
