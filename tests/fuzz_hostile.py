"""Hostile JSON put into a valid document, for the fuzz tests of what a wire peer answers
and what a conformance report says.

Where :mod:`tests.fuzz_inputs` changes bytes and lines, a :class:`Hostile` changes one
place of a parsed JSON value, so a test can tell what the change did to the document's
shape: a value replaced by one of another JSON type, a field dropped or added, a number
past every limit (``1e400``, five thousand digits, ``NaN``), nesting deeper than any
parser goes, a string of a megabyte. The replacement is raw JSON text, so it can be what
Python's encoder never writes (``NaN``, ``9`` * 5000, ``[`` * 100,000).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

__all__ = ["Change", "Hostile", "changed", "hostiles", "json_class", "loads"]

#: Raw JSON values a hostile writer puts where a value belongs.
HOSTILE_RAW = (
    "null", "true", "false", "0", "-1", "1.5", '""', '"x"', "[]", "{}", '[""]', '{"x": 1}',
    "1e400", "-1e400", "NaN", "Infinity", "-Infinity", str(2**63), str(-(2**63) - 1),
    str(10**30), "9" * 5000, "1e-400",
    "[" * 100_000 + "]" * 100_000,  # deeper than any parser goes
    "[" * 500 + '"x"' + "]" * 500,  # deep, and parsed
    '{"a": ' * 400 + "1" + "}" * 400,
    json.dumps("x" * 1_000_000),  # a megabyte
    json.dumps("\u202e\x00\x1b[31m"),  # bidi override, NUL, a terminal escape
    '"\\ud800"',  # a lone surrogate
    "[" + ",".join(["0"] * 100_000) + "]",
)  # fmt: skip

KINDS = ("replace", "drop", "add")

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


@dataclass(frozen=True)
class Hostile:
    """One change at the ``where``-th place of a JSON value (modulo the places it has):
    ``replace`` its value by ``raw``, ``drop`` it, or ``add`` the key ``key`` with ``raw``
    to the object holding it."""

    kind: str
    where: int
    raw: str = "null"
    key: str = "x"


@st.composite
def hostiles(draw: st.DrawFn) -> Hostile:
    """Any :class:`Hostile`."""
    raw = draw(st.sampled_from(HOSTILE_RAW) | _JSON.map(json.dumps), label="raw")
    return Hostile(
        draw(st.sampled_from(KINDS), label="kind"),
        draw(st.integers(min_value=0, max_value=10_000), label="where"),
        raw,
        draw(st.text(max_size=8), label="key"),
    )


def loads(text: str | bytes) -> tuple[bool, Any]:
    """``(True, value)`` for text Python's ``json`` parses, ``(False, None)`` otherwise
    (a syntax error, nesting too deep, an integer of too many digits)."""
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def json_class(value: Any) -> str:
    """The JSON type of a parsed value (an integer and a float are both numbers)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


Path = tuple[str | int, ...]
_MARK = "\x00ragward-hostile\x00"


def _places(value: Any) -> list[Path]:
    """Every place below the root, parents before children."""
    found: list[Path] = []
    stack: list[tuple[Path, Any]] = [((), value)]
    while stack:
        path, node = stack.pop(0)
        if isinstance(node, dict | list):
            for key, child in node.items() if isinstance(node, dict) else enumerate(node):
                found.append((*path, key))
                stack.append(((*path, key), child))
    return found


@dataclass(frozen=True)
class Change:
    """What :func:`changed` did: the JSON ``text`` made, the ``path`` of the place
    changed, the value ``before`` there (None for a new key), whether the place is a new
    key (``added``) or was ``dropped``."""

    text: str
    path: Path
    before: Any
    added: bool = False
    dropped: bool = False


def changed(value: Any, hostile: Hostile) -> Change:
    """``value`` (parsed JSON, changed in place) with ``hostile`` applied. A value with
    no place (a scalar) is replaced whole; adding a key that is there replaces its value."""
    places = _places(value)
    if not places:
        return Change(hostile.raw, (), value)
    path = places[hostile.where % len(places)]
    container = value
    for step in path[:-1]:
        container = container[step]
    if hostile.kind == "add" and isinstance(container, dict):
        path = (*path[:-1], hostile.key)
    if path[-1] not in (container if isinstance(container, dict) else range(len(container))):
        container[path[-1]] = _MARK
        return Change(_put(value, hostile.raw), path, None, added=True)
    before = container[path[-1]]
    if hostile.kind == "drop":
        del container[path[-1]]
        return Change(json.dumps(value), path, before, dropped=True)
    container[path[-1]] = _MARK
    return Change(_put(value, hostile.raw), path, before)


def _put(value: Any, raw: str) -> str:
    return json.dumps(value).replace(json.dumps(_MARK), raw, 1)
