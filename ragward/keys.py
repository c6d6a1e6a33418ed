"""One key from several identifiers, by an injective encoding: never a separator.

Identifiers are opaque. A tenant, a ``doc_id``, a chunk id or a barrier may hold any
character, the separator a key would be joined with included: joined with ``"\\x00"``,
tenant ``a`` / document ``b\\x00c`` and tenant ``a\\x00b`` / document ``c`` are one key,
and one tenant overwrites the other. Where a store takes a structured key (a tuple, a
composite primary key) that is the key; where it takes a single string (a hash's input, a
point id), :func:`joined_key` writes each part after its length, so the parts can always
be read back and two different tuples never give the same string.
"""

from __future__ import annotations

__all__ = ["joined_key"]


def joined_key(*parts: str) -> str:
    """``parts`` as one string, each preceded by its length in characters and a colon.

    >>> joined_key("acme", "d1")
    '4:acme2:d1'
    >>> joined_key("a", "b\\x00c") == joined_key("a\\x00b", "c")
    False
    """
    for part in parts:
        if not isinstance(part, str):
            raise TypeError(f"joined_key takes strings, got {type(part).__name__}")
    return "".join(f"{len(part)}:{part}" for part in parts)
