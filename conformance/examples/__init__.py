"""Worked examples of adapters; ``toy`` is the one ``docs/adapters.md`` walks through."""

__all__: list[str] = []
