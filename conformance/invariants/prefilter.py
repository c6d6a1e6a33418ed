"""Prefilter invariants."""
