"""No text of the documents ragward was specified from stands in the repository.

ragward was specified from a few documents kept beside the repository, in
``<repository>/../shared/seeds/*.txt`` (or the folder the ``RAGWARD_SEEDS`` variable
names). Their contracts carry over; their sentences and code do not. Any line of one of
them that is 48 characters or longer (leading and trailing whitespace stripped) and
appears verbatim anywhere in a tracked file fails this test, which names the file, the
line and the document line it repeats.

Their worked example's names do not carry over either: a second test picks the
distinctive ones out of the documents' text by their shape (a reference such as two or
more capitals, a hyphen and digits; a ``Project`` code name; a company with its legal
suffix; a ``deal-`` barrier; a document id or title of the example; a registry code) and
fails when one stands in a tracked file, in any case for references, companies, ids and
titles, and for a code name written as a name (capitalised) or inside an identifier
(``name-memo``, ``deal-name``). This file names none of them: they are read from the
documents when the test runs. Without the documents (a clone on its own) there is
nothing to compare with, and both tests are skipped, saying so.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The shortest document line checked: shorter ones are too often shared by chance.
SHORTEST = 48
#: Width of the windows the search samples; any line of SHORTEST or more characters
#: covers a whole window at one of GRAM consecutive offsets, so sampling every GRAM-th
#: position of a file misses none.
GRAM = 16

_CASED = r"(?<![A-Za-z0-9]){}(?![A-Za-z0-9])"
_IN_ID = r"(?<![a-z0-9]){0}(?=[-_][a-z0-9])|(?<=[a-z0-9][-_]){0}(?![a-z0-9])"
#: The shapes of a seed's distinctive names: (pattern over the seed's text, group holding
#: the name, what it is). Ordinary words are not names; only these shapes are taken.
NAME_SHAPES: tuple[tuple[str, int, str], ...] = (
    (r"\b[A-Z]{2,}-\d{2,}\b", 0, "reference"),
    (r"\bProject ([A-Z][a-z]+)\b", 1, "code name"),
    (r"\bdeal-([a-z]+)\b", 1, "code name"),
    (r"\b(?:[A-Z][a-z]+ ){1,3}(?:Ltd|plc|PLC|FZE|LLC|Inc|AG|GmbH|SA)\b", 0, "company"),
    (r'Document\(\s*"([a-z][a-z0-9]*(?:-[a-z0-9]+)+)"', 1, "document id"),
    (r'Document\(\s*"[^"\n]+",\s*"[^"\n]+",\s*"([^"\n]+)"', 1, "document title"),
    (r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{16,}\b", 0, "registry code"),
)


@dataclass(frozen=True)
class SeedName:
    """A distinctive name of a seed document and the ways a file could repeat it."""

    name: str
    kind: str
    where: str
    #: Lower-case text every match contains: files without it are not searched.
    core: str
    pattern: re.Pattern[str]


def _pattern(name: str, kind: str) -> re.Pattern[str]:
    if kind == "code name":
        # As a name (Gull, GULL) or inside an identifier (gull-memo, deal-gull); the
        # lower-case word on its own is left alone (a model's vocabulary holds words).
        word = name.capitalize()
        forms = [_CASED.format(re.escape(w)) for w in (word, word.upper())]
        forms.append(_IN_ID.format(re.escape(word.lower())))
        return re.compile("|".join(forms))
    words = [re.escape(word) for word in name.split()]
    forms = [_CASED.format(r"\s+".join(words))]  # a name may wrap across lines
    if kind == "company":
        forms.append(_IN_ID.format(words[0].lower()))  # as in kyc-name
    flags = 0 if kind == "registry code" else re.IGNORECASE
    return re.compile("|".join(forms), flags)


def seed_names(texts: dict[str, str]) -> dict[str, SeedName]:
    """The distinctive names of documents ``{name: text}``, each with where it first
    stands (``name:line``), keyed by name in lower case (a reference written in lower case
    as a document id is one name, found as the first shape that picks it)."""
    names: dict[str, SeedName] = {}
    for source, text in sorted(texts.items()):
        for shape, group, kind in NAME_SHAPES:
            for match in re.finditer(shape, text):
                name = match.group(group)
                name = name.capitalize() if kind == "code name" else name
                if name.lower() in names:
                    continue
                where = f"{source}:{text.count(chr(10), 0, match.start()) + 1}"
                core = name.split()[0].lower()
                names[name.lower()] = SeedName(name, kind, where, core, _pattern(name, kind))
    return names


def names_in(text: str, names: Iterable[SeedName]) -> Iterator[tuple[int, SeedName, str]]:
    """Each place ``text`` repeats one of ``names``: (line, name, the text matched)."""
    lowered = text.lower()
    for name in names:
        if name.core not in lowered:
            continue
        for match in name.pattern.finditer(text):
            yield text.count("\n", 0, match.start()) + 1, name, match.group(0)


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


def _tracked_texts() -> Iterator[tuple[str, str]]:
    """Each tracked text file: (its name, its text)."""
    for name in _tracked():
        path = ROOT / name
        if not path.is_file():  # deleted in the work tree, or a submodule
            continue
        data = path.read_bytes()
        if b"\0" in data:  # binary
            continue
        yield name, data.decode("utf-8", errors="replace")


def test_no_tracked_file_repeats_a_line_of_the_seed_documents() -> None:
    lines = seed_lines(_seeds_folder())
    assert lines, "the seed folder holds no line to compare with"
    windows = index(lines)
    repeats = []
    for name, text in _tracked_texts():
        for line in sorted(found_in(text, windows)):
            start = text.find(line)
            while start >= 0:
                at = text.count("\n", 0, start) + 1
                repeats.append(f"{name}:{at} repeats {lines[line]}: {line[:70]}")
                start = text.find(line, start + 1)
    assert repeats == [], "\n".join(repeats)


def test_no_tracked_file_names_what_the_seed_documents_name() -> None:
    folder = _seeds_folder()
    texts = {path.name: path.read_text(encoding="utf-8") for path in folder.glob("*.txt")}
    names = seed_names(texts)
    assert names, "the seed documents name nothing of the shapes looked for"
    found: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for file, text in _tracked_texts():
        for line, name, matched in names_in(text, names.values()):
            what = f"the {name.kind} of {name.where}"
            found.setdefault((file, what), []).append((line, matched))
    # One line per file and name: a generated file can repeat a name hundreds of times.
    report = [
        f"{file}:{places[0][0]} names {what} ({places[0][1]!r}; {len(places)} in the file)"
        for (file, what), places in sorted(found.items())
    ]
    assert report == [], "\n".join(report)


# A made-up worked example, in the shapes the seed documents use.
_EXAMPLE = """## Payment ZQV-5083
Payment ZQV-5083 to Brindlewood Marine Ltd, registry code 9Q4X00TT7REWX5KJ3A22.
## Project Gull
        Document("zqv-5083", "wholesale", "Payment ZQV-5083", TEXT),
        Document("memo-tide-lane", "advisory", "Gull memo", MEMO, barrier="deal-gull"),
"""


def test_the_names_of_a_worked_example_are_picked_by_shape() -> None:
    names = seed_names({"example.txt": _EXAMPLE})
    assert {(n.name, n.kind, n.where) for n in names.values()} == {
        ("ZQV-5083", "reference", "example.txt:1"),
        ("Gull", "code name", "example.txt:3"),
        ("Brindlewood Marine Ltd", "company", "example.txt:2"),
        ("memo-tide-lane", "document id", "example.txt:5"),
        ("Payment ZQV-5083", "document title", "example.txt:4"),
        ("Gull memo", "document title", "example.txt:5"),
        ("9Q4X00TT7REWX5KJ3A22", "registry code", "example.txt:2"),
    }
    assert seed_names({"plain.txt": "An ordinary line, with no name of any shape."}) == {}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("see zqv-5083 in the file", "ZQV-5083"),
        ('{"ref": "ZQV-5083"}', "ZQV-5083"),
        ("paid by Brindlewood\n   MARINE LTD", "Brindlewood Marine Ltd"),
        ('"kyc-brindlewood"', "Brindlewood Marine Ltd"),
        ("the Gull offer", "Gull"),
        ("GULL DCF", "Gull"),
        ("barrier = deal-gull", "Gull"),
        ("id = gull-memo", "Gull"),
        ("the MEMO-TIDE-LANE record", "memo-tide-lane"),
        ("code 9Q4X00TT7REWX5KJ3A22.", "9Q4X00TT7REWX5KJ3A22"),
    ],
)
def test_a_name_is_found_however_it_is_written(text: str, named: str) -> None:
    names = seed_names({"example.txt": _EXAMPLE})
    found = list(names_in(f"first line\n{text}", names.values()))
    assert [(line, name.name) for line, name, _ in found] == [(2, named)]


@pytest.mark.parametrize(
    "text",
    [
        "ZQV-50830 and XZQV-5083",  # a longer reference is another one
        "a gull on the shore, Gullane, seagull",  # the lower-case word, or inside another
        "Brindlewood Marine",  # without its legal suffix it is two words
        "9q4x00tt7rewx5kj3a22",  # a registry code keeps its case
        "deal-gulls, ungull-x, gullx-memo",  # part of a word of an identifier is not the name
    ],
)
def test_near_misses_are_not_names(text: str) -> None:
    names = seed_names({"example.txt": _EXAMPLE})
    assert list(names_in(text, names.values())) == []


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
