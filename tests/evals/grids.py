"""Grid files for the tests, written from the few values each test sets.

>>> print(grid_toml(depth=3, measures=["recall_3"], mode=["lexical"], min_overlap=[0.5]))
depth = 3
measures = ["recall_3"]
[index]
chunking = [{ max_tokens = 16, overlap_tokens = 2 }]
[retrieval]
mode = ["lexical"]
[grounding]
min_overlap = [0.5]
<BLANKLINE>
"""

from __future__ import annotations

import json
from collections.abc import Sequence

__all__ = ["grid_toml"]

Value = str | int | float | bool | Sequence["Value"]


def _toml(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(value)
    return "[" + ", ".join(_toml(v) for v in value) + "]"


def grid_toml(
    *,
    name: str | None = None,
    depth: int | None = None,
    measures: Sequence[str] = (),
    chunking: Sequence[tuple[int, int]] = ((16, 2),),
    embedder: Sequence[str] = (),
    min_overlap: Sequence[float] = (),
    **retrieval: Sequence[str | int | float | bool],
) -> str:
    """A grid: ``chunking`` as ``(max_tokens, overlap_tokens)`` pairs, the ``retrieval``
    keys (``mode``, ``rrf_k``, ``rerank``, ``candidate_limit``) in the order given; a key
    left out is the grid's default."""
    lines = [f"name = {_toml(name)}"] if name is not None else []
    lines += [f"depth = {depth}"] if depth is not None else []
    lines += [f"measures = {_toml(list(measures))}"] if measures else []
    shapes = ", ".join(f"{{ max_tokens = {m}, overlap_tokens = {o} }}" for m, o in chunking)
    lines += ["[index]", f"chunking = [{shapes}]"]
    lines += [f"embedder = {_toml(list(embedder))}"] if embedder else []
    lines += ["[retrieval]", *(f"{key} = {_toml(list(v))}" for key, v in retrieval.items())]
    lines += ["[grounding]", f"min_overlap = {_toml(list(min_overlap))}"] if min_overlap else []
    return "\n".join(lines) + "\n"
