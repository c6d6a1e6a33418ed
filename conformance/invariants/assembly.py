"""Assembly invariants."""
