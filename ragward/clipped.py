"""Text from elsewhere (an implementation, a peer, a user's file), bounded for a message.

An implementation's error message, a peer's stderr or a value in a user's file can be
megabytes long; repeated whole in a one-line error or in a report's table it made a
report of megabytes and hung the table's wrapping for minutes. Every such text goes
through :func:`clip` on its way into a message: one line, at most a few hundred
characters, and its total length when it was cut. The work is bounded by the limit, not
by the text's length.

>>> clip("disk\\nfull")
'disk full'
>>> clip(" a  b ")
'a  b'
>>> clip("tenant\\x1b[31m")
'tenant\\\\x1b[31m'
>>> clip("x" * 1000, 20)
'xxxxxxxxxxxxxxxxxxxx... (1,000 characters)'
"""

from __future__ import annotations

import re

__all__ = ["LIMIT", "MESSAGE_LIMIT", "clip", "escaped", "first_line", "later_lines"]

#: The most characters of an outside text a message repeats.
LIMIT = 300
#: The most characters of a whole message line (ragward's words around outside texts
#: already clipped, or a user's long value).
MESSAGE_LIMIT = 2_000

#: The end of a text :func:`clip` cut.
_CLIPPED = re.compile(r"\.\.\. \([0-9,]+ characters\)\Z")


def _escapes() -> dict[int, str]:
    """Every character ``str.splitlines`` ends a line at, and tabs, made a space; every
    other control character (C0, DEL, C1) and the bidirectional overrides written as an
    escape (``\\x1b``), so an outside text cannot move the cursor, recolour the terminal,
    reorder what follows or forge a line of its own."""
    table = {code: f"\\x{code:02x}" for code in [*range(0x20), 0x7F, *range(0x80, 0xA0)]}
    table.update(
        {code: f"\\u{code:04x}" for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}
    )
    table.update(dict.fromkeys(map(ord, "\t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"), " "))
    return table


_LINE_BREAKS = _escapes()
#: The same, line breaks and tabs escaped too: for a name, where a space would mislead.
_CONTROLS = {
    **_LINE_BREAKS,
    **{c: f"\\x{c:02x}" for c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x85)},
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def clip(text: object, limit: int = LIMIT) -> str:
    """``text`` (or ``str(text)``) on one line, stripped, its line breaks made spaces and
    other control characters escaped, cut to ``limit`` characters with its total length."""
    whole = text if isinstance(text, str) else _text(text)
    if len(whole) <= 2 * limit and _CLIPPED.search(whole):
        # Clipped once already (by a peer, say): its total is the one to keep.
        return whole.strip().translate(_LINE_BREAKS)
    # Only the head is worked on (megabytes would make this slow); the limit counts what
    # is shown, escapes included.
    short = len(whole) <= 2 * limit
    shown = (whole.strip() if short else whole[: 2 * limit].lstrip()).translate(_LINE_BREAKS)
    if short and len(shown) <= limit:
        return shown
    return f"{shown[:limit].rstrip()}... ({len(whole):,} characters)"


def escaped(name: str, limit: int = 60) -> str:
    """An identifier from outside (a tenant, a document id) for a report line: control
    characters escaped, cut to ``limit`` characters with its length.

    >>> escaped("acme\\nEvil: pass")
    'acme\\\\x0aEvil: pass'
    """
    shown = name[: limit + 1].translate(_CONTROLS)
    return shown if len(name) <= limit else f"{shown[:limit]}... ({len(name):,} characters)"


def first_line(value: object, limit: int = LIMIT) -> str:
    """The first non-blank line of ``str(value)`` (an error's message, most often),
    clipped; found without splitting the whole text into lines."""
    whole = value if isinstance(value, str) else _text(value)
    start = len(whole) - len(whole.lstrip())
    end = whole.find("\n", start)
    return clip(whole[start:] if end < 0 else whole[start:end], limit)


def later_lines(value: object, most: int = 60, limit: int = LIMIT) -> tuple[str, ...]:
    """The lines of ``str(value)`` after :func:`first_line`'s, each bounded as :func:`clip`
    bounds a text (its indentation, up to 8 spaces, kept: it aligns a diff), blank ones at
    the end left out; past ``most`` lines, one more says how many were left out.

    >>> later_lines("a: 1 -> 2\\n  d1  score 1 -> 2\\n")
    ('  d1  score 1 -> 2',)
    """
    whole = value if isinstance(value, str) else _text(value)
    start = len(whole) - len(whole.lstrip())
    end = whole.find("\n", start)
    if end < 0:
        return ()
    rest = whole[end + 1 :].rstrip()
    # At most ``most`` + 1 pieces are split off however long the text; the rest is counted.
    pieces = rest.split("\n", most) if rest else []
    lines = []
    for line in pieces[:most]:
        indent = min(len(line) - len(line.lstrip(" ")), 8)
        lines.append(" " * indent + clip(line, limit))
    if len(pieces) > most:
        left = pieces[most].count("\n") + 1
        lines.append(f"... ({left:,} more line{'s' if left > 1 else ''})")
    return tuple(lines)


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails still gets a message
        return f"<{type(value).__name__} that cannot be shown>"
