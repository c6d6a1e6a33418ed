"""The conformance kit (arrives with issue 3)."""
