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
>>> clip("x" * 1000, 20)
'xxxxxxxxxxxxxxxxxxxx... (1,000 characters)'
"""

from __future__ import annotations

import re

__all__ = ["LIMIT", "MESSAGE_LIMIT", "clip", "first_line"]

#: The most characters of an outside text a message repeats.
LIMIT = 300
#: The most characters of a whole message line (ragward's words around outside texts
#: already clipped, or a user's long value).
MESSAGE_LIMIT = 2_000

#: The end of a text :func:`clip` cut.
_CLIPPED = re.compile(r"\.\.\. \([0-9,]+ characters\)\Z")

#: Every character ``str.splitlines`` ends a line at, made a space.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))


def clip(text: object, limit: int = LIMIT) -> str:
    """``text`` (or ``str(text)``) on one line, stripped, its line breaks made spaces, cut
    to ``limit`` characters with its total length."""
    whole = text if isinstance(text, str) else _text(text)
    if len(whole) <= 2 * limit and _CLIPPED.search(whole):
        # Clipped once already (by a peer, say): its total is the one to keep.
        return whole.strip().translate(_LINE_BREAKS)
    # Only the head is worked on: megabytes would make this slow.
    head = whole[: limit + 1].lstrip()[:limit].translate(_LINE_BREAKS)
    if len(whole) <= limit or (len(whole) <= 2 * limit and len(whole.strip()) <= limit):
        return whole.strip().translate(_LINE_BREAKS)
    return f"{head.rstrip()}... ({len(whole):,} characters)"


def first_line(value: object, limit: int = LIMIT) -> str:
    """The first non-blank line of ``str(value)`` (an error's message, most often),
    clipped; found without splitting the whole text into lines."""
    whole = value if isinstance(value, str) else _text(value)
    start = len(whole) - len(whole.lstrip())
    end = whole.find("\n", start)
    return clip(whole[start:] if end < 0 else whole[start:end], limit)


def _text(value: object) -> str:
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails still gets a message
        return f"<{type(value).__name__} that cannot be shown>"
