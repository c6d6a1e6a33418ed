"""Mutations of valid input files, for the command-line fuzz test.

A :class:`Mutation` is drawn before the text it changes is known (a wire answer is made
by the peer, later), so it picks its place by a number taken modulo what the text offers:
a line, a JSON value, a number, a TOML value, a byte. Each kind breaks one thing a user,
a tool or a hostile peer can break: a line lost or repeated, a file cut short, bytes
that are not UTF-8, a value of the wrong type, a number at or past a limit, nesting ten
thousand deep, a key added or dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

__all__ = ["Mutation", "apply", "mutations"]

#: Numbers at and past every limit an input has (int64, float, Python's 4300 digits).
EXTREMES = (
    "0", "-0", "-1", "1.5", "1e308", "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
    str(2**31), str(2**63 - 1), str(2**63), str(-(2**63) - 1), str(10**30), "9" * 5000,
    "0x10", "1_000", "\u0663", "",
)  # fmt: skip

#: Raw JSON texts a peer or a file may hold where a value belongs.
RAW_JSON = (
    "[" * 10_000 + "]" * 10_000,
    '{"a": ' * 3000 + "1" + "}" * 3000,
    "9" * 5000,
    "NaN",
    '"\\ud800"',
    '"' + "x" * 100_000 + '"',
    "[" + ", ".join(["1"] * 10_000) + "]",
    "{",
    "",
)

#: TOML values for a grid's keys, each wrong somewhere.
TOML_VALUES = (
    "inf", "nan", "-inf", "0", "-1", "1e308", "1e400", str(2**63), "9" * 5000, '"x"', "[]",
    "[1, 2]", "[1, 1]", "true", "{a = 1}", "[[1]]", "[inf]", "[nan]", "[-1]", "[0]",
    f"[{2**31}]", "[1e308]", '["minilm"]', '[""]', "[" * 10_000 + "]" * 10_000,
)  # fmt: skip

KINDS = (
    "drop-line", "repeat-line", "swap-lines", "cut", "insert-text", "replace-line",
    "flip-byte", "json-value", "json-drop-key", "json-add-key", "number", "toml-value",
)  # fmt: skip

_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)  # fmt: skip


@dataclass(frozen=True)
class Mutation:
    """One change to a text: its ``kind``, the place it picks (``where``, taken modulo
    the places the text has), and what it puts there (``payload``)."""

    kind: str
    where: int
    payload: Any = None


@st.composite
def mutations(draw: st.DrawFn) -> Mutation:
    """Any :class:`Mutation`, with a payload fitting its kind."""
    kind = draw(st.sampled_from(KINDS))
    where = draw(st.integers(min_value=0, max_value=10_000))
    payload: Any = None
    if kind in ("insert-text", "replace-line"):
        payload = draw(st.text(max_size=40) | st.sampled_from(EXTREMES))
    elif kind == "flip-byte":
        payload = draw(st.integers(min_value=0, max_value=255))
    elif kind in ("json-value", "json-add-key"):
        raw = st.sampled_from(RAW_JSON) | _JSON_VALUES.map(json.dumps)
        payload = (draw(st.text(max_size=12)), draw(raw))
    elif kind == "number":
        payload = draw(st.sampled_from(EXTREMES))
    elif kind == "toml-value":
        payload = draw(st.sampled_from(TOML_VALUES) | st.text(max_size=20))
    return Mutation(kind, where, payload)


def apply(data: bytes, mutation: Mutation) -> bytes:
    """``data`` changed by ``mutation`` (unchanged where the kind finds no place)."""
    kind, where, payload = mutation.kind, mutation.where, mutation.payload
    if kind == "cut":
        return data[: where % (len(data) + 1)]
    if kind == "flip-byte":
        if not data:
            return bytes([payload])
        at = where % len(data)
        return data[:at] + bytes([payload]) + data[at + 1 :]
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    at = where % len(lines)
    if kind == "drop-line":
        del lines[at]
    elif kind == "repeat-line":
        lines.insert(at, lines[at])
    elif kind == "swap-lines":
        lines[at], lines[at - 1] = lines[at - 1], lines[at]
    elif kind == "insert-text":
        lines.insert(at, payload)
    elif kind == "replace-line":
        lines[at] = payload
    elif kind == "number":
        return _replace_nth(text, r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", where, payload)
    elif kind == "toml-value":
        return _replace_nth(text, r"(?<==)[ \t]*[^\n#]+", where, f" {payload}")
    else:
        return _json(text, lines, mutation)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def _replace_nth(text: str, pattern: str, where: int, new: str) -> bytes:
    found = list(re.finditer(pattern, text))
    if found:
        match = found[where % len(found)]
        text = text[: match.start()] + new + text[match.end() :]
    return text.encode("utf-8", "surrogateescape")


def _json(text: str, lines: list[str], mutation: Mutation) -> bytes:
    """A JSON value of the whole text (a JSON file) or of one line (JSON lines) changed."""
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if whole is not None:
        return _json_changed(whole, mutation).encode("utf-8", "surrogateescape")
    at = mutation.where % len(lines)
    try:
        line = json.loads(lines[at])
    except ValueError:
        return text.encode("utf-8", "surrogateescape")
    lines[at] = _json_changed(line, mutation)
    return "\n".join(lines).encode("utf-8", "surrogateescape")


_MARK = "\u0000ragward-fuzz\u0000"


def _json_changed(value: Any, mutation: Mutation) -> str:
    """``value`` as JSON text with one object key dropped, added or given a raw value."""
    places: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            places.extend((node, key) for key in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            places.extend((node, index) for index in range(len(node)))
            stack.extend(node)
    key, raw = mutation.payload if mutation.payload is not None else ("", "null")
    if not places:
        return raw if mutation.kind == "json-value" else json.dumps(value)
    container, place = places[mutation.where % len(places)]
    if mutation.kind == "json-drop-key":
        del container[place]
        return json.dumps(value)
    if mutation.kind == "json-add-key" and isinstance(container, dict):
        container[key] = _MARK
    else:
        container[place] = _MARK
    return json.dumps(value).replace(json.dumps(_MARK), raw, 1)
