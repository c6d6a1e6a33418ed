"""A failure that differs only by float rounding says so (it is still a failure)."""

from __future__ import annotations

import pytest

from ragward.conformance.view import rounding_note


def test_a_one_ulp_float32_wobble_is_named_rounding() -> None:
    note = rounding_note([("d1::1", 2.077599287033081)], [("d1::1", 2.07759952545166)])
    assert note == " (only floats differ, by at most 1.1e-07 relative: rounding)"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ([("d1::1", 0.48)], [("d1::1", 0.31)]),  # a real move
        ([("d1::1", 1.0)], [("d1::2", 1.0)]),  # another chunk
        ([("d1::1", 1.0)], [("d1::1", 1.0), ("d2::1", 1.0)]),  # another length
        ((1, 2), (1, 2)),  # equal: nothing to say
    ],
)
def test_anything_else_gets_no_note(before: object, after: object) -> None:
    assert rounding_note(before, after) == ""
