"""Hypothesis settings profiles for the test suite.

``ci`` (the default) is fast; ``thorough`` searches much harder. Pick one with the
environment variable ``RAGWARD_HYPOTHESIS_PROFILE`` or with hypothesis' own pytest option
``--hypothesis-profile``, which is applied after this file loads and so takes precedence.

The longest tests run first (the engines' matrix columns, then every ``slow`` test): two
workers that steal work (``--dist worksteal``, in pyproject) then end together instead
of one finishing a 100-second column while the other waits.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=_SLOW_DATA, print_blob=True
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=_SLOW_DATA, print_blob=True
)
settings.load_profile(os.environ.get("RAGWARD_HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The matrix columns first, then the other ``slow`` tests, then the rest, each
    group in collection order."""

    def weight(item: pytest.Item) -> int:
        if item.nodeid.startswith("tests/engines/test_matrix.py::"):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=weight)
