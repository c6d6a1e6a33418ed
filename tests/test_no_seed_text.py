"""No text of the documents ragward was specified from stands in the repository.

ragward was specified from a few documents kept beside the repository, in
``<repository>/../shared/seeds/*.txt`` (or the folder the ``RAGWARD_SEEDS`` variable
names). Their contracts carry over; their sentences and code do not. Any line of one of
them that is 48 characters or longer (leading and trailing whitespace stripped) and
appears verbatim anywhere in a tracked file fails this test, which names the file, the
line and the document line it repeats. Without the documents (a clone on its own) there
is nothing to compare with, and the test is skipped, saying so.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The shortest document line checked: shorter ones are too often shared by chance.
SHORTEST = 48
#: Width of the windows the search samples; any line of SHORTEST or more characters
#: covers a whole window at one of GRAM consecutive offsets, so sampling every GRAM-th
#: position of a file misses none.
GRAM = 16


def seed_lines(folder: Path) -> dict[str, str]:
    """Each stripped line of at least :data:`SHORTEST` characters of the ``*.txt`` files
    in ``folder``, with where it stands (``name:line``, the first place if repeated)."""
    lines: dict[str, str] = {}
    for path in sorted(folder.glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if len(stripped) >= SHORTEST:
                lines.setdefault(stripped, f"{path.name}:{number}")
    return lines


def index(lines: Iterable[str]) -> dict[str, set[str]]:
    """Each window of :data:`GRAM` characters at the first GRAM offsets of a line -> the
    lines holding it there."""
    windows: dict[str, set[str]] = {}
    for line in lines:
        for offset in range(GRAM):
            windows.setdefault(line[offset : offset + GRAM], set()).add(line)
    return windows


def found_in(text: str, windows: dict[str, set[str]]) -> set[str]:
    """The indexed lines that occur in ``text``: windows sampled every GRAM characters
    name the candidates, a plain search confirms them."""
    candidates: set[str] = set()
    for start in range(0, len(text) - GRAM + 1, GRAM):
        candidates.update(windows.get(text[start : start + GRAM], ()))
    return {line for line in candidates if line in text}


def _seeds_folder() -> Path:
    named = os.environ.get("RAGWARD_SEEDS")
    if named:
        folder = Path(named)
        if not folder.is_dir():
            pytest.fail(f"RAGWARD_SEEDS names {named!r}, which is not a folder")
        return folder
    folder = ROOT.parent / "shared" / "seeds"
    if not folder.is_dir():
        pytest.skip(f"no seed documents beside the repository ({folder} is absent)")
    return folder


def _tracked() -> list[str]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        pytest.skip(f"not a git checkout, no tracked files to read ({error})")
    return [name for name in listed.decode("utf-8").split("\0") if name]


def test_no_tracked_file_repeats_a_line_of_the_seed_documents() -> None:
    lines = seed_lines(_seeds_folder())
    assert lines, "the seed folder holds no line to compare with"
    windows = index(lines)
    repeats = []
    for name in _tracked():
        path = ROOT / name
        if not path.is_file():  # deleted in the work tree, or a submodule
            continue
        data = path.read_bytes()
        if b"\0" in data:  # binary
            continue
        text = data.decode("utf-8", errors="replace")
        for line in sorted(found_in(text, windows)):
            start = text.find(line)
            while start >= 0:
                at = text.count("\n", 0, start) + 1
                repeats.append(f"{name}:{at} repeats {lines[line]}: {line[:70]}")
                start = text.find(line, start + 1)
    assert repeats == [], "\n".join(repeats)


@pytest.mark.parametrize("offset", [0, 1, 7, GRAM - 1, GRAM, 3 * GRAM + 5])
def test_the_search_finds_a_line_wherever_it_stands(offset: int) -> None:
    line = "every line of a document sampled at one window in sixteen"
    other = "a second line that is only there to share the index with the first"
    windows = index([line, other])
    filler = "x" * offset
    assert found_in(f"{filler}{line}", windows) == {line}
    assert found_in(f"{filler}{line}{filler}\n{other}", windows) == {line, other}
    assert found_in(f"{filler}{line[:-1]}", windows) == set()
    assert found_in(f"{filler}{line.upper()}", windows) == set()
