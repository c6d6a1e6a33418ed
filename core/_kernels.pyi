from typing import Any

def bm25_top(
    rows: list[Any],
    shares: list[Any],
    scratch: Any,
    rankable: Any,
    limit: int,
    touched: Any,
    live: Any,
    visible: Any,
    eligible: Any,
    /,
) -> tuple[int, list[int], list[float], tuple[int, int, int]]: ...
