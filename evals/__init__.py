"""The labelled eval harness (arrives with issue 4)."""
