"""Parsing text that a user or a peer wrote (JSON, TOML): every failure is one error.

Python's parsers fail in more ways than their documented error: a value nested ten
thousand deep raises :class:`RecursionError`, an integer of five thousand digits a plain
:class:`ValueError` (the interpreter's limit on integer conversion), bytes that are not
UTF-8 a :class:`UnicodeDecodeError`. Each of these is the writer's mistake, not an internal
failure, so every reader of untrusted text parses it here and gets one
:class:`Unparsable` with the problem and, where the parser knows it, the line and column.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

__all__ = ["Unparsable", "parse_json", "parse_toml"]


class Unparsable(ValueError):
    """Text that does not parse: ``problem`` in words, ``line`` and ``column`` (1-based)
    where known."""

    def __init__(self, problem: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column


def parse_json(text: str | bytes) -> Any:
    """``json.loads(text)``, every failure an :class:`Unparsable`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise Unparsable(error.msg, error.lineno, error.colno) from None
    except RecursionError:
        raise Unparsable("nested too deeply") from None
    except UnicodeDecodeError as error:
        line = error.object.count(b"\n", 0, error.start) + 1 if isinstance(text, bytes) else None
        raise Unparsable("not UTF-8 text", line) from None
    except ValueError as error:  # an integer of more digits than Python converts
        raise Unparsable(
            f"an integer with too many digits ({_first_line(error)[:40]}...)"
        ) from None


def parse_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, every failure an :class:`Unparsable`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        problem = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(error))
        if found is None:
            raise Unparsable(problem) from None
        raise Unparsable(problem, int(found.group(1)), int(found.group(2))) from None
    except RecursionError:
        raise Unparsable("nested too deeply") from None
    except ValueError as error:  # an integer of more digits than Python converts
        raise Unparsable(
            f"an integer with too many digits ({_first_line(error)[:40]}...)"
        ) from None


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
