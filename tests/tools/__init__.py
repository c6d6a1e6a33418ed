"""Tests of the developer tools in ``tools/``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_tool"]

ROOT = Path(__file__).resolve().parent.parent.parent


def load_tool(name: str) -> ModuleType:
    """The module ``tools.<name>``, imported from this checkout's ``tools`` package (which
    is not installed: it is registered by its folder, so ``sys.path`` is left alone)."""
    if "tools" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "tools",
            ROOT / "tools" / "__init__.py",
            submodule_search_locations=[str(ROOT / "tools")],
        )
        assert spec is not None
        assert spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules["tools"] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"tools.{name}")
