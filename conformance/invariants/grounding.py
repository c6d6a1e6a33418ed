"""Grounding invariants."""
