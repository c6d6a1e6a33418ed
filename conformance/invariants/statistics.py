"""Statistics invariants."""
