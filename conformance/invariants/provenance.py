"""Provenance invariants."""
