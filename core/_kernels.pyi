from typing import Any

def bm25_top(
    rows: list[Any], shares: list[Any], scratch: Any, classes: Any, limit: int, touched: Any, /
) -> tuple[int, list[int], list[float], tuple[int, int, int]]: ...
