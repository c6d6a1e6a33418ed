"""Options more than one command takes, defined once, and what they select.

``--impl`` / ``--external`` name the implementation a command judges (``conform``,
``eval``, ``tune``, ``bench``): a factory in-process, or a peer speaking the wire
protocol, started as a command and stopped with the command's exit stack.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragward.implementation import REFERENCE, load_implementation

if TYPE_CHECKING:
    from ragward.conformance.contract import Factory

__all__ = ["Implementation", "add_implementation", "open_implementation", "positive_seconds"]


def add_implementation(
    parser: argparse.ArgumentParser, *, judged: str, external: str
) -> argparse._MutuallyExclusiveGroup:
    """Add ``--impl`` and ``--external`` as alternatives; returns their group (``bench``
    adds its ``--anchors`` to it). ``judged`` says what the factory makes, ``external``
    what the peer is for."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--impl",
        metavar="PKG.MODULE:FACTORY",
        help=f"factory of {judged}, or path/to/file.py:factory (default: {REFERENCE})",
    )
    source.add_argument("--external", metavar='"CMD ..."', help=external)
    return source


@dataclass(frozen=True)
class Implementation:
    """What ``--impl`` / ``--external`` selected."""

    factory: Factory
    spec: str  # its identity in reports: the factory's spec, or ``external:...``
    origin: str  # the options that select it again ("" for the default)
    external: bool


def open_implementation(
    args: argparse.Namespace, stack: contextlib.ExitStack, timeout: float | None = None
) -> Implementation:
    """The implementation the options name. A peer is started here and stopped when
    ``stack`` closes; ``timeout`` bounds each of its calls (the driver's default if None)."""
    if args.external is None:
        spec = args.impl or REFERENCE
        origin = f"--impl {shlex.quote(spec)}" if args.impl else ""
        return Implementation(load_implementation(spec), spec, origin, external=False)
    from ragward.conformance.identity import external_spec
    from ragward.conformance.loading import peer_command
    from ragward.errors import InvalidArgument

    command = peer_command(args.external)
    try:
        from ragward.conformance.wire import external_factory
    except ImportError as error:
        raise InvalidArgument(f"the external driver is unavailable: {error}") from None
    timeouts = {} if timeout is None else {"timeout": timeout}
    factory: Factory = stack.enter_context(external_factory(command, **timeouts))
    origin = f"--external {shlex.quote(args.external)}"
    return Implementation(factory, external_spec(command), origin, external=True)


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value
