"""``--impl`` for every command: ``pkg.module:factory``, or ``path/to/file.py:factory``.

The conformance kit's :func:`~ragward.conformance.loading.load_factory` takes module
names. People also write the path of the file they are editing; rather than fail with
"module 'path/to/file.py' not found", a path to an existing ``.py`` file is imported as
the module its file name makes (its folder put on ``sys.path``, as ``python file.py``
would), so that another process of the kit finds it the same way. A path that does not
name such a file, or whose name another module already takes, is a one-line error that
says to give a module name instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ragward.conformance.contract import Factory
from ragward.conformance.loading import FactoryError, load_factory

__all__ = ["REFERENCE", "load_implementation"]

#: The reference implementation's factory: what every command judges unless told otherwise.
REFERENCE = "ragward.engines.reference:reference_factory"


def load_implementation(spec: str) -> Factory:
    """The factory ``spec`` names, as a module path or as a file path."""
    module, colon, attribute = spec.rpartition(":")
    if not colon or not _looks_like_a_path(module):
        return load_factory(spec)
    path = Path(module)
    hint = "give pkg.module:factory with the module on PYTHONPATH"
    if not path.is_file():
        raise FactoryError(f"--impl {spec}: no file {module}; {hint}")
    if path.suffix != ".py":
        raise FactoryError(f"--impl {spec}: {module} is not a .py file; {hint}")
    name = path.stem
    if not name.isidentifier():
        raise FactoryError(f"--impl {spec}: {path.name} is not a module name; {hint}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.append(folder)
    factory = load_factory(f"{name}:{attribute}")
    loaded = getattr(sys.modules.get(name), "__file__", None)
    if loaded is None or not os.path.samefile(loaded, path):
        raise FactoryError(
            f"--impl {spec}: another module called {name!r} comes first on sys.path "
            f"({loaded}); {hint}"
        )
    return factory


def _looks_like_a_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or os.sep in module
