"""Lifecycle invariants."""
