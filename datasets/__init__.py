"""Labelled sets that ship with ragward (their data cards sit beside the data)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["BUNDLED", "bundled"]

#: The set ``ragward eval`` runs when no ``--dataset`` is given.
BUNDLED = "tidewater"


def bundled(name: str = BUNDLED) -> Path:
    """The directory of the bundled set ``name``."""
    return Path(str(resources.files("ragward.datasets").joinpath(name)))
