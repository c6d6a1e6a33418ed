"""Fusion invariants."""
