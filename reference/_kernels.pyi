from collections.abc import Sequence
from typing import Any

def bm25_top(
    terms: list[Sequence[Any]],
    scratch: Any,
    classes: Any,
    limit: int,
    touched: Any,
    uniform: int = -1,
    /,
) -> tuple[int, list[int], list[float], tuple[int, int, int]]: ...
