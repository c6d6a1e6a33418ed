"""The pytest plugin: ``pytest --ragward-impl=pkg.module:factory`` checks an implementation.

Registered through the ``pytest11`` entry point, so it is loaded by every pytest run in
an environment where ragward is installed; it therefore does nothing — no hooks beyond
its options, no kit imports — unless ``--ragward-impl`` is given. Then it adds one test
item per registered invariant (``ragward::ID``) to the session. An invariant the
implementation cannot be asked about is *skipped with the reason* (the only legitimate
skip); a failure shows the counterexample as a person reads it and how to replay it.

    pytest --ragward-impl=mypkg.adapter:factory                      # ci profile
    pytest --ragward-impl=mypkg.adapter:factory --ragward-profile thorough -n auto
    pytest --ragward-impl=mypkg.adapter:factory --ragward-select ID,ID
    pytest --ragward-external "./my-peer --stdio"                     # over the wire
"""

from __future__ import annotations

import contextlib
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ragward.conformance.runner import Verdict

__all__ = ["ConformanceFailure", "ConformanceItem"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragward", "ragward conformance kit")
    group.addoption(
        "--ragward-impl",
        metavar="PKG.MODULE:FACTORY",
        default=None,
        help="check this implementation against every conformance invariant",
    )
    group.addoption(
        "--ragward-external",
        metavar='"CMD ..."',
        default=None,
        help="check a peer speaking the JSON-lines wire protocol, started as CMD",
    )
    group.addoption(
        "--ragward-profile",
        choices=("ci", "thorough"),
        default="ci",
        help="examples per invariant: ci (fast) or thorough (10x); default ci",
    )
    group.addoption(
        "--ragward-call-timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="time limit of each call into the implementation (default: 60 in-process, "
        "10 per wire call); a call over it fails the invariant",
    )
    group.addoption(
        "--ragward-select",
        metavar="ID,...",
        default=None,
        help="with --ragward-impl or --ragward-external: run only these invariants",
    )


def pytest_configure(config: pytest.Config) -> None:
    spec = config.getoption("ragward_impl")
    external = config.getoption("ragward_external")
    if spec is not None and external is not None:
        raise pytest.UsageError("give --ragward-impl or --ragward-external, not both")
    if spec is None and external is None:
        if config.getoption("ragward_select") is not None:
            raise pytest.UsageError(
                "--ragward-select needs --ragward-impl=pkg.module:factory or --ragward-external"
            )
        return
    config.pluginmanager.register(_Conformance(config, spec, external), "ragward-conformance")


class _Conformance:
    """The part of the plugin that exists only when an implementation is named."""

    def __init__(self, config: pytest.Config, spec: str | None, external: str | None) -> None:
        import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
        from ragward.conformance.guard import DEFAULT_CALL_TIMEOUT, guarded
        from ragward.conformance.invariant import LEVELS, REGISTRY
        from ragward.conformance.loading import FactoryError, check_system, load_factory
        from ragward.errors import RagwardError

        self.profile: str = config.getoption("ragward_profile")
        limit = config.getoption("ragward_call_timeout")
        if limit is not None and not 0 < limit < float("inf"):
            raise pytest.UsageError(f"--ragward-call-timeout must be positive, got {limit!r}")
        self.call_timeout: float = DEFAULT_CALL_TIMEOUT if limit is None else limit
        self.peers: Any = None  # the external factory, stopped at unconfigure
        if external is not None:
            option = "--ragward-external"
            try:
                command = shlex.split(external)
            except ValueError as error:  # an unclosed quote
                raise pytest.UsageError(f"{option} {external!r}: {error}") from None
            if not command:
                raise pytest.UsageError(f"{option} needs a command to start the peer")
            from ragward.conformance.wire import external_factory

            self.spec = f"external: {shlex.join(command)}"
            self.origin = f"--external {shlex.quote(external)}"
            self.peers = external_factory(command, **({} if limit is None else {"timeout": limit}))
            self.factory: Any = self.peers
        else:
            assert spec is not None
            option = "--ragward-impl"
            self.spec = spec
            self.origin = f"--impl {spec}"
        try:
            if self.peers is None:
                self.factory = load_factory(self.spec)
            check_system(guarded(self.factory, self.call_timeout), self.spec)
        except (FactoryError, RagwardError) as error:
            self.close()
            raise pytest.UsageError(f"{option}: {error}") from None
        ordered = sorted(REGISTRY.values(), key=lambda inv: (LEVELS.index(inv.level), inv.id))
        self.ids = [inv.id for inv in ordered]
        select = config.getoption("ragward_select")
        if select is not None:
            wanted = {part.strip() for part in select.split(",") if part.strip()}
            unknown = sorted(wanted - set(REGISTRY))
            if not wanted or unknown:
                raise pytest.UsageError(
                    f"--ragward-select: unknown invariant id(s) "
                    f"{', '.join(unknown) or '(none given)'}; known: {', '.join(self.ids)}"
                )
            self.ids = [i for i in self.ids if i in wanted]
        cache = getattr(config, "cache", None)
        self.store: Path | None = cache.mkdir("ragward") if cache is not None else None

    def close(self) -> None:
        if self.peers is not None:
            self.peers.close()
            self.peers = None

    def pytest_unconfigure(self) -> None:
        self.close()

    def pytest_report_header(self) -> str:
        return (
            f"ragward conformance: {self.spec} ({self.profile} profile, {len(self.ids)} invariants)"
        )

    @pytest.hookimpl(tryfirst=True)  # before -k/-m deselection, so they apply to ours
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        from ragward.conformance.invariant import REGISTRY

        for invariant_id in self.ids:
            invariant = REGISTRY[invariant_id]
            item = ConformanceItem.from_parent(
                session,
                name=invariant_id,
                nodeid=f"ragward::{invariant_id}",
                invariant_id=invariant_id,
                plugin=self,
            )
            item.extra_keyword_matches.add(invariant.level)  # -k isolation
            items.append(item)

    def stored_case(self, invariant_id: str) -> Path | None:
        """Where a failing case of ``invariant_id`` is kept for ``--replay``."""
        if self.store is None:
            return None
        return self.store / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', invariant_id)}.json"


class ConformanceFailure(AssertionError):
    """An invariant failed (or the implementation crashed) on a counterexample."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"{verdict.id}: {verdict.reason}")
        self.verdict = verdict


class ConformanceItem(pytest.Item):
    """One invariant run against the implementation named by ``--ragward-impl``."""

    def __init__(self, *, invariant_id: str, plugin: _Conformance, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.invariant_id = invariant_id
        self.plugin = plugin

    def runtest(self) -> None:
        import json

        from ragward.conformance.invariant import REGISTRY
        from ragward.conformance.report import verdict_data
        from ragward.conformance.runner import run_invariant

        stored = self.plugin.stored_case(self.invariant_id)
        verdict = run_invariant(
            REGISTRY[self.invariant_id],
            self.plugin.factory,
            profile=self.plugin.profile,
            replay_hint=self._hint(stored),
            call_timeout=self.plugin.call_timeout,
        )
        if verdict.status == "n/a":
            # Reported at the invariant's source, not at this line: one entry per invariant.
            raise pytest.skip.Exception(
                f"{self.invariant_id} not applicable: {verdict.reason}", _use_item_location=True
            )
        if verdict.status != "pass":
            if stored is not None and verdict.counterexample is not None:
                text = json.dumps(verdict_data(verdict), indent=2, sort_keys=True) + "\n"
                stored.write_text(text, encoding="utf-8")
            raise ConformanceFailure(verdict)

    def _hint(self, stored: Path | None) -> str:
        impl = f"ragward conform {self.plugin.origin}".replace("{", "{{").replace("}", "}}")
        if stored is None:
            profile = f" --profile {self.plugin.profile}" if self.plugin.profile != "ci" else ""
            return f"{impl}{profile} --select {{id}}"
        where = str(stored)
        with contextlib.suppress(ValueError):  # outside the working directory: keep it whole
            where = str(stored.relative_to(Path.cwd()))
        return f"{impl} --replay " + where.replace("{", "{{").replace("}", "}}")

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        from ragward.conformance.report import format_counterexample

        if isinstance(excinfo.value, ConformanceFailure):
            return format_counterexample(excinfo.value.verdict)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        import inspect

        from ragward.conformance.invariant import REGISTRY

        check = REGISTRY[self.invariant_id].check
        try:
            source = inspect.getsourcefile(check)
            line = inspect.getsourcelines(check)[1] - 1
        except (OSError, TypeError):  # no source (built dynamically): point at the session
            source, line = None, 0
        where = Path(source) if source else self.path
        return where, line, f"ragward conformance invariant {self.invariant_id}"
