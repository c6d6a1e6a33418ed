"""Worked examples of adapters; ``toy`` is the one ``conformance/README.md`` walks through."""

__all__: list[str] = []
