"""Determinism invariants."""
