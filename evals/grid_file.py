"""Reading a grid: a TOML file laid key by key over the packaged default.

The packaged ``grids/default.toml`` holds every default; a user's file overrides it key by
key, and anything it does not know is an error naming the line; the values are checked by
:mod:`ragward.evals.grid_checks`.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from ragward.errors import InputError
from ragward.evals.grid import Grid
from ragward.evals.grid_checks import checked_grid, line_of
from ragward.parsing import Unparsable, parse_toml

__all__ = ["default_grid", "load_grid"]

_SCHEMA: dict[str, dict[str, type] | type] = {
    "name": str,
    "split": str,
    "depth": int,
    "measures": list,
    "grounding_depth": int,
    "index": {"chunking": list, "embedder": list, "analyzer": list, "counter": list},
    "retrieval": {
        "mode": list,
        "fusion": list,
        "rrf_k": list,
        "dense_weight": list,
        "rerank": list,
        "candidate_limit": list,
    },
    "grounding": {"min_overlap": list},
}


def default_grid() -> Grid:
    """The packaged default grid (the bundled set's)."""
    return checked_grid(_default_data(), "default.toml", "")


def load_grid(path: str | Path) -> Grid:
    """The default grid with ``path``'s keys laid over it; errors name file, line and key."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise InputError.at(path, None, None, "grid file not found") from None
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise InputError.at(path, line, None, "not UTF-8 text") from None
    except OSError as error:
        raise InputError.at(path, None, None, f"cannot read grid file ({error})") from None
    try:
        data = parse_toml(text)
    except Unparsable as error:
        raise InputError.at(path, error.line, None, f"not valid TOML: {error}") from None
    merged = _default_data()
    for key, value in data.items():
        if key not in _SCHEMA:
            raise InputError.at(path, line_of(text, key), key, f"unknown key; known: {_known()}")
        expected = _SCHEMA[key]
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                raise InputError.at(path, line_of(text, key), key, "must be a table")
            for sub in value:
                if sub not in expected:
                    raise InputError.at(
                        path,
                        line_of(text, sub),
                        f"{key}.{sub}",
                        f"unknown key; known: {', '.join(expected)}",
                    )
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return checked_grid(merged, path, text)


def _default_data() -> dict[str, Any]:
    source = resources.files("ragward.evals").joinpath("grids/default.toml")
    return tomllib.loads(source.read_text(encoding="utf-8"))


def _known() -> str:
    return ", ".join(_SCHEMA)
