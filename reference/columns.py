"""A growable numpy column: amortised O(1) appends, reads without copying."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Column"]


class Column:
    """A growable 1-d numpy array (amortised O(1) append)."""

    def __init__(self, dtype: type[np.generic]) -> None:
        self._data = np.zeros(16, dtype=dtype)
        self.size = 0

    def extend(self, values: list[int] | list[bool]) -> None:
        needed = self.size + len(values)
        if needed > self._data.size:
            grown = np.zeros(max(needed, 2 * self._data.size), dtype=self._data.dtype)
            grown[: self.size] = self._data[: self.size]
            self._data = grown
        self._data[self.size : needed] = values
        self.size = needed

    def view(self) -> npt.NDArray[Any]:
        return self._data[: self.size]
