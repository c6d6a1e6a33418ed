"""What both ends of the wire share: version, errors, framing and typed decoding.

The protocol itself is documented in :mod:`ragward.conformance.wire`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from ragward.errors import RagwardError

__all__ = [
    "DEFAULT_TIMEOUT",
    "ERROR_KINDS",
    "OPTIONAL_OPS",
    "PROTOCOL_VERSION",
    "PeerError",
    "WireError",
    "decode",
    "decode_all",
    "dumps",
    "label",
    "quote",
]

#: The wire protocol version this module speaks, carried by every message.
PROTOCOL_VERSION = 1
#: Seconds a peer has to answer one request.
DEFAULT_TIMEOUT = 10.0
#: Optional ops and the capability that unlocks each.
OPTIONAL_OPS: dict[str, str] = {
    "chunk": "chunking",
    "assemble": "assembly",
    "count_tokens": "assembly",
    "ground": "grounding",
    "fuse": "fusion",
}
#: The ``kind`` of an error response.
ERROR_KINDS: tuple[str, ...] = ("protocol", "version", "unsupported", "exception")

RecordT = TypeVar("RecordT")


class WireError(RagwardError):
    """The peer could not be talked to: it exited, timed out or answered garbage."""


class PeerError(WireError):
    """The peer answered a request with an error response; it remains usable."""

    def __init__(self, message: str, *, op: str, kind: str, detail: str) -> None:
        super().__init__(message)
        self.op = op
        self.kind = kind
        self.detail = detail


_ENCODER = json.JSONEncoder(separators=(",", ":"))


def dumps(message: dict[str, Any]) -> str:
    """One message as a compact, pure-ASCII JSON line (without the newline)."""
    return _ENCODER.encode(message)


def quote(text: str | bytes, limit: int = 160) -> str:
    """``text`` as a short, one-line repr, for error messages."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text) - limit} more chars)"


def label(command: tuple[str, ...], limit: int = 60) -> str:
    """A command as one short line in backquotes, for messages."""
    line = " ".join(shlex.join(command).split())
    return f"`{line}`" if len(line) <= limit else f"`{line[: limit - 3]}...`"


def decode(kind: type[RecordT], data: Any, where: str) -> RecordT:
    """Rebuild a record of type ``kind`` from wire data, checking every field's type.

    It reads what :func:`~ragward.conformance.records.to_data` writes and rebuilds what
    :func:`~ragward.conformance.records.from_data` would, but strictly and fast: a value
    of the wrong JSON type is a :class:`TypeError` naming the field (an integer is taken
    for a float and converted), and the field annotations are resolved once per record
    type, not per call.
    """
    return _converter(kind)(data, where)  # type: ignore[no-any-return]


def decode_all(kind: type[RecordT], data: Any, where: str) -> tuple[RecordT, ...]:
    """A JSON array of records as a tuple of records (see :func:`decode`)."""
    return _converter(tuple[kind, ...])(data, where)  # type: ignore[no-any-return,valid-type]


Converter = Callable[[Any, str], Any]
_CONVERTERS: dict[Any, Converter] = {}


def _converter(hint: Any) -> Converter:
    if hint not in _CONVERTERS:
        _CONVERTERS[hint] = _compile(hint)
    return _CONVERTERS[hint]


def _compile(hint: Any) -> Converter:
    origin = get_origin(hint)
    if origin is tuple:
        return _sequence(_converter(get_args(hint)[0]))
    if origin in (Union, UnionType):
        options = [option for option in get_args(hint) if option is not type(None)]
        if len(options) != 1 or len(get_args(hint)) != 2:
            raise TypeError(f"the wire cannot decode {hint!r}")
        return _optional(_converter(options[0]))
    if isinstance(hint, type) and is_dataclass(hint):
        return _record(hint)
    if hint in (str, int, float, bool):
        return _scalar(hint)
    raise TypeError(f"the wire cannot decode {hint!r}")


def _sequence(item: Converter) -> Converter:
    def convert(data: Any, where: str) -> Any:
        if not isinstance(data, list):
            raise TypeError(f"{where}: expected an array, got {_shown(data)}")
        return tuple([item(value, f"{where}[{i}]") for i, value in enumerate(data)])

    return convert


def _optional(inner: Converter) -> Converter:
    def convert(data: Any, where: str) -> Any:
        return None if data is None else inner(data, where)

    return convert


def _record(cls: type[Any]) -> Converter:
    hints = get_type_hints(cls)
    names = [field.name for field in fields(cls)]
    required = {
        field.name
        for field in fields(cls)
        if field.default is MISSING and field.default_factory is MISSING
    }
    members = {name: _converter(hints[name]) for name in names}

    def convert(data: Any, where: str) -> Any:
        if not isinstance(data, dict):
            raise TypeError(f"{where}: expected an object, got {_shown(data)}")
        values = {}
        for name, value in data.items():
            member = members.get(name)
            if member is None:
                unknown = ", ".join(sorted(set(data) - set(names)))
                raise TypeError(f"{where}: unknown field(s) {unknown}")
            values[name] = member(value, f"{where}.{name}")
        if len(values) < len(required) or not required.issubset(values):
            missing = ", ".join(name for name in names if name in required - set(values))
            raise TypeError(f"{where}: missing field(s) {missing}")
        try:
            return cls(**values)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{where}: {error}") from None

    return convert


def _scalar(kind: type[Any]) -> Converter:
    def convert(data: Any, where: str) -> Any:
        if type(data) is kind:
            return data
        if kind is float and type(data) is int:  # JSON does not tell 1 from 1.0
            return float(data)
        if kind is int and isinstance(data, int) and not isinstance(data, bool):
            return int(data)
        raise TypeError(f"{where}: expected {_name(kind)}, got {_shown(data)}")

    return convert


def _shown(data: Any, limit: int = 60) -> str:
    """A received value as the JSON it came as, truncated."""
    try:
        text = json.dumps(data)
    except (TypeError, ValueError):
        text = repr(data)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _name(kind: type[Any]) -> str:
    return {str: "string", int: "integer", float: "number", bool: "boolean"}[kind]
