"""Isolation invariants."""
