"""Find the implementation under test from a ``pkg.module:factory`` string.

The command line and the pytest plugin name an implementation the way console-script
entry points do; :func:`load_factory` turns that string into a factory, and
:func:`check_system` builds one instance to make sure it meets the contract before any
invariant runs, so a wrong spec costs one clear line rather than a page of verdicts.

>>> load_factory("ragward.engines.reference:reference_factory")       # doctest: +SKIP
<function reference_factory at ...>
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
from typing import Any

from ragward.clipped import LIMIT, MESSAGE_LIMIT, first_line
from ragward.conformance.contract import Capabilities, Factory
from ragward.conformance.guard import CallTimeout
from ragward.errors import InvalidArgument, RagwardError

__all__ = [
    "FactoryError",
    "a_type",
    "check_built",
    "check_system",
    "load_factory",
    "message_of",
    "one_line",
]

#: The verbs every system has (the optional ones are declared in its capabilities).
CONTRACT_VERBS = ("capabilities", "ingest", "delete", "retrieve")


class FactoryError(RagwardError, ValueError):
    """The implementation could not be found or does not meet the contract."""


def load_factory(spec: str) -> Factory:
    """The callable named by ``spec`` (``pkg.module:attribute``, the attribute may be dotted).

    The working directory is searched last, so a module beside the caller is found the
    way ``python -m`` would find it, without shadowing an installed package.
    """
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name.strip() or not attribute.strip():
        raise FactoryError(
            f"implementation {spec!r} is not of the form pkg.module:factory "
            "(e.g. ragward.engines.reference:reference_factory)"
        )
    module_name, attribute = module_name.strip(), attribute.strip()
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name or module_name.startswith(f"{error.name}."):
            raise FactoryError(
                f"module {module_name!r} not found (is it installed, or on PYTHONPATH?)"
            ) from None
        raise FactoryError(f"importing {module_name!r} failed: {one_line(error)}") from None
    except Exception as error:  # the user's module broke while importing: say how
        raise FactoryError(f"importing {module_name!r} failed: {one_line(error)}") from None
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise FactoryError(f"module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise FactoryError(
            f"{spec} is a {type(target).__name__}, not a callable factory "
            "returning a fresh RetrievalSystem"
        )
    return target  # type: ignore[no-any-return]


def check_system(factory: Factory, name: str) -> Capabilities:
    """Build one instance from ``factory``; its capabilities, or a :class:`FactoryError`."""
    try:
        system = factory()
    except CallTimeout as error:  # a factory that hangs: said, not waited for
        raise FactoryError(f"{name}(): {error}") from None
    except RagwardError as error:  # a deliberate error (a peer that will not start...)
        raise FactoryError(f"{name}: {one_line(error)}") from None
    except Exception as error:  # the factory itself is broken: nothing can be checked
        raise FactoryError(f"{name}() raised {one_line(error)}") from None
    return check_built(system, f"{name}()")


def check_built(system: object, call: str) -> Capabilities:
    """The capabilities of ``system``, which ``call`` returned, or a :class:`FactoryError`
    naming the call and what of the contract is missing: one check for the kit and the
    evals alike."""
    missing = [verb for verb in CONTRACT_VERBS if not hasattr(system, verb)]
    if missing:
        raise FactoryError(
            f"{call} returned {a_type(system)}, not a RetrievalSystem (it lacks "
            f"{', '.join(missing)})"
        )
    try:
        capabilities = system.capabilities  # type: ignore[attr-defined]
    except CallTimeout as error:
        raise FactoryError(f"{call}: {error}") from None
    except Exception as error:
        raise FactoryError(f"{call}.capabilities raised {one_line(error)}") from None
    if not isinstance(capabilities, Capabilities):
        raise FactoryError(
            f"{call}.capabilities is {a_type(capabilities)}, not ragward.conformance.Capabilities"
        )
    return capabilities


def a_type(value: object) -> str:
    """``a str``, ``an int``: the type of ``value`` for a message."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def one_line(error: BaseException) -> str:
    """``Type: first line of the message``, for errors an implementation raised; the
    line cut to a few hundred characters (:func:`~ragward.clipped.clip`)."""
    first = message_of(error)
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def message_of(error: BaseException) -> str:
    """The first line of ``error``'s message, cut to a few hundred characters when an
    implementation raised it (ragward's own errors cut what they quote already)."""
    return first_line(error, MESSAGE_LIMIT if isinstance(error, RagwardError) else LIMIT)


def peer_command(external: str) -> list[str]:
    """The argv of ``--external "CMD ..."``, or a one-line :class:`InvalidArgument`."""
    try:
        command = shlex.split(external)
    except ValueError as error:  # an unclosed quote
        raise InvalidArgument(f"--external {external!r}: {error}") from None
    if not command:
        raise InvalidArgument("--external needs a command to start the peer")
    return command
