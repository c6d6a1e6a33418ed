"""Benchmarks: the reference against the anchors it is measured by."""
