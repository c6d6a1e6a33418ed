"""From wrapped, marked-up prose to a document's text and the spans of its facts."""

from __future__ import annotations

import re
from collections.abc import Mapping

_MARK = re.compile(r"\[\[([a-z0-9][a-z0-9-]*)\|(.*?)\]\]")
_ITEM = re.compile(r"(- |\d+\. )")


class MarkupError(ValueError):
    """The source of a document is malformed."""


def unwrap(source: str) -> str:
    """Join wrapped lines: headings and list items start lines, blank lines part paragraphs.

    >>> unwrap("## A\\none\\ntwo\\n\\n- x\\n  y\\n")
    '## A\\none two\\n\\n- x y\\n'
    """
    lines: list[str] = []
    for raw in source.strip().splitlines():
        line = raw.strip()
        if not line:
            if lines and lines[-1]:
                lines.append("")
            continue
        if line.startswith("## ") and lines and lines[-1]:
            lines.append("")
        starts_line = line.startswith("## ") or _ITEM.match(line) is not None
        if lines and lines[-1] and not lines[-1].startswith("## ") and not starts_line:
            lines[-1] = f"{lines[-1]} {line}"
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def render(source: str, values: Mapping[str, str]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The text of one version and ``key -> (start, end)`` of each marked fact in it."""
    try:
        filled = source.format(**values)
    except (KeyError, IndexError, ValueError) as error:
        raise MarkupError(f"cannot fill placeholders: {error!r}") from None
    text = unwrap(filled)
    out: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    position = 0
    length = 0
    for match in _MARK.finditer(text):
        before = text[position : match.start()]
        out.append(before)
        length += len(before)
        key, sentence = match.group(1), match.group(2)
        if key in spans:
            raise MarkupError(f"fact {key!r} is marked twice")
        spans[key] = (length, length + len(sentence))
        out.append(sentence)
        length += len(sentence)
        position = match.end()
    out.append(text[position:])
    result = "".join(out)
    for token in ("[[", "]]", "|", "{", "}"):
        if token in result:
            raise MarkupError(f"stray {token!r} left in the text: {result[:80]!r}...")
    return result, spans
