"""The implementation under test again, in another process under another hash seed.

Python's string hashes are salted per process (``PYTHONHASHSEED``), so iterating a set
or dict of strings, or summing floats in that order, can give one answer in one process
and another in the next — a difference no check inside one process can see. For an
implementation the kit can import by name (``pkg.module:factory``) or start as a wire
peer, :func:`other_process` returns a factory of systems served by a second process with
its own hash seed, over the kit's wire protocol; peers are started once per factory and
seed, and stopped at exit.

    python -m ragward.conformance.processes pkg.module:factory ['{"key": "value"}']
"""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import Any

from ragward.conformance.contract import Factory
from ragward.conformance.guard import GuardedFactory
from ragward.conformance.loading import load_factory
from ragward.conformance.wire_client import ExternalFactory

__all__ = ["OTHER_SEED", "close_other_processes", "import_spec", "other_process"]

#: The hash seed of the second process (another one if the kit itself runs under it).
OTHER_SEED = 20261201

_PEERS: dict[tuple[str, ...], ExternalFactory] = {}


def _unwrapped(factory: Factory) -> Any:
    while isinstance(factory, GuardedFactory):
        factory = factory.inner
    return factory


def _named(inner: Any) -> str | None:
    module, name = getattr(inner, "__module__", None), getattr(inner, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or "<" in name:
        return None
    if module == "__main__":
        return None
    target: Any = sys.modules.get(module)
    for part in name.split("."):
        target = getattr(target, part, None)
    return f"{module}:{name}" if target is inner else None


def import_spec(factory: Factory) -> tuple[str, dict[str, Any]] | None:
    """``(module:qualname, keywords)`` that rebuild ``factory`` elsewhere: a callable
    importable by name, or a :func:`functools.partial` of one with JSON keyword values."""
    inner = _unwrapped(factory)
    if isinstance(inner, functools.partial):
        spec = _named(inner.func)
        keywords = dict(inner.keywords)
        if spec is None or inner.args or json.loads(json.dumps(keywords)) != keywords:
            return None
        return spec, keywords
    spec = _named(inner)
    return None if spec is None else (spec, {})


def _seed() -> str:
    mine = os.environ.get("PYTHONHASHSEED", "")
    return str(OTHER_SEED + 1) if mine == str(OTHER_SEED) else str(OTHER_SEED)


def other_process(factory: Factory) -> Factory | None:
    """Systems of ``factory`` served by a process with another hash seed; None when the
    kit cannot start ``factory`` elsewhere (neither importable by name nor a peer)."""
    inner = _unwrapped(factory)
    seed = _seed()
    if isinstance(inner, ExternalFactory):
        command: tuple[str, ...] = ("env", f"PYTHONHASHSEED={seed}", *inner.command)
    else:
        named = import_spec(inner)
        if named is None:
            return None
        spec, keywords = named
        path = os.pathsep.join(os.path.abspath(p or os.curdir) for p in sys.path)
        command = (
            "env",
            f"PYTHONHASHSEED={seed}",
            f"PYTHONPATH={path}",
            sys.executable,
            "-m",
            "ragward.conformance.processes",
            spec,
            json.dumps(keywords, sort_keys=True),
        )
    peers = _PEERS.get(command)
    if peers is None:
        peers = _PEERS[command] = ExternalFactory(command, startup_timeout=120.0)
    return peers


def close_other_processes() -> None:
    """Stop every process :func:`other_process` started (the runner's, after each
    invariant): none outlives the rule that needed it."""
    while _PEERS:
        _, peers = _PEERS.popitem()
        peers.close()


def main(argv: list[str]) -> int:
    """Serve the factory named by ``argv[0]`` (called with the JSON keywords of
    ``argv[1]``, if given) over the wire protocol."""
    from ragward.conformance.wire import serve

    factory = load_factory(argv[0])
    keywords = json.loads(argv[1]) if len(argv) > 1 else {}
    serve(functools.partial(factory, **keywords) if keywords else factory)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
