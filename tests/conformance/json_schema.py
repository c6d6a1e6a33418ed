"""A small JSON Schema (draft 2020-12) validator for the subset ``docs/wire/`` uses.

ragward depends on no JSON Schema package, so the wire tests check messages with this:
the keywords below and nothing else. A schema using any other keyword is refused rather
than half-checked, so the published schemas stay within what the tests really enforce.
One deliberate narrowing: ``integer`` is a JSON number written without a fraction (a
Python ``int``), because the driver refuses ``1.0`` where an integer is due.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SchemaError", "Schemas"]

_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "$defs", "title", "description"})
_CHECKS = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "$ref",
        "oneOf",
        "anyOf",
    }
)


class SchemaError(Exception):
    """A schema uses a keyword or a reference this validator does not know."""


@dataclass
class Schemas:
    """The schema files of one folder, resolving ``file.json#/json/pointer`` between them."""

    folder: Path
    _loaded: dict[str, Any] = field(default_factory=dict)

    def load(self, name: str) -> Any:
        """The parsed schema file ``name`` of the folder."""
        if name not in self._loaded:
            text = (self.folder / name).read_text(encoding="utf-8")
            self._loaded[name] = json.loads(text)
        return self._loaded[name]

    def errors(self, instance: Any, ref: str) -> list[str]:
        """Every way ``instance`` breaks the schema at ``ref`` (``file.json`` or
        ``file.json#/$defs/Name``); empty when it is valid."""
        name, _, pointer = ref.partition("#")
        found: list[str] = []
        self._check(instance, self._resolve(name, pointer), name, "$", found)
        return found

    def _resolve(self, name: str, pointer: str) -> Any:
        node = self.load(name)
        for part in [p for p in pointer.split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise SchemaError(f"{name}#{pointer}: no such place")
            node = node[part]
        return node

    def _check(self, value: Any, schema: Any, name: str, where: str, found: list[str]) -> None:
        if schema is True:
            return
        if schema is False:
            found.append(f"{where}: not allowed here")
            return
        unknown = set(schema) - _ANNOTATIONS - _CHECKS
        if unknown:
            raise SchemaError(f"{name}: keyword(s) {sorted(unknown)} are outside the subset")
        if "$ref" in schema:
            target, _, pointer = schema["$ref"].partition("#")
            target = target or name
            self._check(value, self._resolve(target, pointer), target, where, found)
        if "type" in schema and not _is_type(value, schema["type"]):
            found.append(f"{where}: expected {schema['type']}, got {json.dumps(value)[:60]}")
            return
        if "const" in schema and not _same(value, schema["const"]):
            found.append(f"{where}: expected {json.dumps(schema['const'])}")
        if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
            found.append(f"{where}: {json.dumps(value)[:60]} is not one of {schema['enum']}")
        if "minimum" in schema and _is_number(value) and value < schema["minimum"]:
            found.append(f"{where}: below {schema['minimum']}")
        if "maximum" in schema and _is_number(value) and value > schema["maximum"]:
            found.append(f"{where}: above {schema['maximum']}")
        if isinstance(value, dict):
            self._object(value, schema, name, where, found)
        if isinstance(value, list):
            self._array(value, schema, name, where, found)
        for keyword in ("oneOf", "anyOf"):
            if keyword in schema:
                passing = [
                    option
                    for option in schema[keyword]
                    if not self._branch(value, option, name, where)
                ]
                wanted = len(passing) == 1 if keyword == "oneOf" else bool(passing)
                if not wanted:
                    found.append(f"{where}: {len(passing)} of the {keyword} options match")

    def _branch(self, value: Any, schema: Any, name: str, where: str) -> list[str]:
        found: list[str] = []
        self._check(value, schema, name, where, found)
        return found

    def _object(
        self, value: dict[str, Any], schema: Any, name: str, where: str, found: list[str]
    ) -> None:
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                found.append(f"{where}: missing {key!r}")
        for key, item in value.items():
            if key in properties:
                self._check(item, properties[key], name, f"{where}.{key}", found)
            elif "additionalProperties" in schema:
                self._check(item, schema["additionalProperties"], name, f"{where}.{key}", found)

    def _array(
        self, value: list[Any], schema: Any, name: str, where: str, found: list[str]
    ) -> None:
        if len(value) < schema.get("minItems", 0):
            found.append(f"{where}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{where}: more than {schema['maxItems']} items")
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            if i < len(prefix):
                self._check(item, prefix[i], name, f"{where}[{i}]", found)
            elif "items" in schema:
                self._check(item, schema["items"], name, f"{where}[{i}]", found)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_type(value: Any, kind: str | list[str]) -> bool:
    if isinstance(kind, list):
        return any(_is_type(value, one) for one in kind)
    checks = {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": _is_number(value),
        "string": isinstance(value, str),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }
    if kind not in checks:
        raise SchemaError(f"unknown type {kind!r}")
    return checks[kind]


def _same(value: Any, expected: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, and ``1`` equals ``1.0``."""
    if isinstance(value, bool) or isinstance(expected, bool):
        return type(value) is type(expected) and value == expected
    if _is_number(value) and _is_number(expected):
        return not (isinstance(value, float) and math.isnan(value)) and value == expected
    return type(value) is type(expected) and value == expected
