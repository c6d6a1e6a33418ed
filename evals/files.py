"""Writing report files so that nothing is ever half-written (see :mod:`ragward.outputs`)."""

from __future__ import annotations

from ragward.outputs import write_atomic

__all__ = ["write_atomic"]
