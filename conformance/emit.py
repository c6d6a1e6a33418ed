"""A failing invariant's counterexample as a ready-to-paste pytest file.

``ragward conform --emit-test FILE`` writes it: a docstring that tells the scenario (the
failure's reason and diff, then the case as the terminal renders it), the case as a
Python literal (one field a line, in the case record's order, every text ASCII-escaped so
no confusable or invisible character hides in the source), ``IMPL`` (the ``--impl`` spec,
or for an ``--external`` peer its command as ``PEER``), a ``check(factory)`` that replays
the case with :func:`ragward.conformance.replay` (which raises while the invariant fails),
and a test that runs ``check`` on ``IMPL``: it fails on the implementation as it is and
passes once it holds on the case, as the reference does. The file imports only public
names (``ragward.conformance``, ``ragward.implementation``), is deterministic (the same
verdict gives the same bytes), passes ``ruff check`` (its default rules, and ragward's),
and is formatted as ``ruff format`` formats it at its default line length, 88.

>>> print(emit_test(verdict, impl="mypkg.adapter:factory"))  # doctest: +SKIP
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from typing import Any

from ragward.conformance.report import case_lines
from ragward.conformance.runner import Verdict

__all__ = ["emit_test", "py_literal"]

#: Ruff's and black's default line length: the file is clean under either's defaults.
WIDTH = 88
_INDENT = "    "


def emit_test(
    verdict: Verdict, *, impl: str, peer: Sequence[str] | None = None, made_by: str = ""
) -> str:
    """The pytest file for ``verdict`` (a ``fail`` or ``error`` with a counterexample) on
    ``impl``: the ``--impl`` spec, or with ``peer`` (an ``--external`` peer's argv) the
    peer's name; ``made_by`` is the command that wrote it, said in the docstring."""
    if verdict.counterexample is None:
        raise ValueError(f"{verdict.id} has no counterexample to write a test of")
    name = "test_" + re.sub(r"\W+", "_", verdict.id.lower()) + "_holds_on_its_counterexample"
    story = [
        f"{verdict.id} fails on {impl}: {verdict.title}.",
        "",
        f"Written by `{made_by}`." if made_by else "Written by ragward conform --emit-test.",
        f"The test replays the counterexample below on {'PEER' if peer else 'IMPL'}: it "
        f"fails while {verdict.id} fails on it, and passes once it holds (as it does on the "
        "reference, ragward.engines.reference:reference_factory).",
        "",
        f"What failed ({verdict.status}):",
        *(f"{_INDENT}{line}" for line in (verdict.reason, *verdict.detail)),
        "",
        "The case:",
        *(f"{_INDENT}{line}" for line in case_lines(verdict.counterexample)),
    ]
    if peer:
        imports = "from ragward.conformance import Factory, external_factory, replay\n"
        run = f"{_INDENT}with external_factory(PEER) as factory:\n{_INDENT * 2}check(factory)\n"
        where = f"PEER = {py_literal(list(peer))}\n"  # started in pytest's working folder
    else:
        imports = (
            "from ragward.conformance import Factory, replay\n"
            "from ragward.implementation import load_implementation\n"
        )
        run = f"{_INDENT}check(load_implementation(IMPL))\n"
        where = ""
    return (
        f"{_docstring(story)}\n"
        "from __future__ import annotations\n\n"
        f"{imports}\n"
        f"{_item('IMPL = ', impl, 0)}\n"
        f"{where}"
        f"{_item('INVARIANT = ', verdict.id, 0)}\n"
        f"CASE = {py_literal(verdict.counterexample)}\n\n\n"
        "def check(factory: Factory) -> None:\n"
        f'{_INDENT}"""Replay CASE on ``factory``; raises while {verdict.id} fails on it."""\n'
        f"{_INDENT}replay(factory, INVARIANT, CASE)\n\n\n"
        f"def {name}() -> None:\n"
        f"{run}"
    )


def _docstring(lines: Sequence[str]) -> str:
    """A raw docstring of ``lines``, each wrapped to :data:`WIDTH` (indentation kept),
    non-ASCII characters written as escapes and ``\"\"\"`` broken."""
    out: list[str] = []
    for number, line in enumerate(lines):
        text = _ascii(line).replace('"""', '""\\"')
        indent = " " * (len(text) - len(text.lstrip(" ")))
        # Leading whitespace is kept, trailing dropped; runs of spaces (a diff's columns) too.
        out += textwrap.wrap(
            text,
            WIDTH - (4 if number == 0 else 0),  # the first line follows r"""
            subsequent_indent=indent + "  ",
            break_on_hyphens=False,
            break_long_words=False,  # a long path stays whole, on a line of its own
        ) or [""]
    body = "\n".join(out)
    return f'r"""{body}\n"""\n'


def _ascii(text: str) -> str:
    return "".join(c if c.isascii() else _escape(c) for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def py_literal(value: Any, indent: int = 0) -> str:
    """``value`` (JSON-like data) as a Python literal formatted as ruff formats it: every
    dict and list exploded one item a line with a trailing comma, strings in double
    quotes (single when that needs fewer escapes), long strings split to fit."""
    pad = _INDENT * (indent + 1)
    if isinstance(value, dict) and value:
        items = [_item(f"{_string(str(k))}: ", v, indent + 1) for k, v in value.items()]
        return "{\n" + "".join(f"{pad}{item},\n" for item in items) + _INDENT * indent + "}"
    if isinstance(value, list | tuple) and value:
        items = [_item("", v, indent + 1) for v in value]
        return "[\n" + "".join(f"{pad}{item},\n" for item in items) + _INDENT * indent + "]"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value!r}")'
    return repr(value)  # None, bools, ints, finite floats


def _item(head: str, value: Any, indent: int) -> str:
    """``head`` and ``value`` on a line of their own, a long string split in parentheses."""
    text = py_literal(value, indent)
    room = WIDTH - len(_INDENT) * indent - len(head) - 1  # the trailing comma
    if not isinstance(value, str) or len(text) <= room:
        return head + text
    inner = _INDENT * (indent + 1)
    pieces = _pieces(value, WIDTH - len(inner))
    return head + "(\n" + "".join(f"{inner}{p}\n" for p in pieces) + _INDENT * indent + ")"


def _pieces(value: str, room: int) -> list[str]:
    """``value`` as string literals of at most ``room`` characters each, cut after a
    space where one is near, never inside an escape (in time linear in its length)."""
    widths = [len(_string(char)) - 2 + (char in "'\"") for char in value]  # a quote, escaped
    pieces: list[str] = []
    start = 0
    while start < len(value):
        end, used = start, 2
        while end < len(value) and (end == start or used + widths[end] <= room):
            used += widths[end]
            end += 1
        space = value.rfind(" ", start, end)
        if end < len(value) and space > start + (end - start) // 2:
            end = space + 1
        pieces.append(_string(value[start:end]))
        start = end
    return pieces


def _string(value: str) -> str:
    quote = "'" if value.count('"') > value.count("'") else '"'
    out = [quote]
    for char in value:
        if char in ("\\", quote):
            out.append("\\" + char)
        elif char in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[char])
        elif char.isascii() and char.isprintable():
            out.append(char)
        else:
            out.append(_escape(char))
    out.append(quote)
    return "".join(out)
