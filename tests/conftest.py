"""Hypothesis settings profiles for the test suite.

``ci`` (the default) is fast; ``thorough`` searches much harder. Pick one with the
environment variable ``RAGWARD_HYPOTHESIS_PROFILE`` or with hypothesis' own pytest option
``--hypothesis-profile``, which is applied after this file loads and so takes precedence.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=_SLOW_DATA, print_blob=True
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=_SLOW_DATA, print_blob=True
)
settings.load_profile(os.environ.get("RAGWARD_HYPOTHESIS_PROFILE", "ci"))
