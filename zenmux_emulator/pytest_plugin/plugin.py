"""The pytest plugin (entry point `pytest11: zenmux`): options, the `zenmux` marker, the
`zenmux_server` and `zenmux` fixtures, the failure report section and `--zenmux-report`.

The test-facing API is `handle.py`; the text it prints is `report.py`. pytest loads this module in
every run of every project that has the package installed, so it imports the server only when a
test asks for a fixture."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from zenmux_emulator.foundation.ids import DEFAULT_SEED
from zenmux_emulator.pytest_plugin.cassette import KEY_ENV, Cassette, RecordMode
from zenmux_emulator.pytest_plugin.options import MARKER_HELP, ServerOptions, read_markers
from zenmux_emulator.pytest_plugin.report import (
    PROPERTY,
    SECTION,
    WhyFirst,
    journal_section,
    summary_lines,
    unmatched_record,
    why_first,
)

if TYPE_CHECKING:
    from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle
    from zenmux_emulator.pytest_plugin.server import EmulatorServer
    from zenmux_emulator.settings import Settings

HANDLE = pytest.StashKey["ZenmuxHandle"]()
REPORT_DATA = pytest.StashKey[dict[str, Any]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("zenmux", "ZenMux emulator")
    group.addoption(
        "--zenmux-scenarios",
        action="extend",
        nargs="+",
        default=[],
        metavar="PATH",
        help="scenario files or folders every test's emulator serves (default: none, "
        "only default replies); repeat as --zenmux-scenarios=PATH",
    )
    group.addoption(
        "--zenmux-strict", action="store_true", default=False, help="unmatched requests answer 404 emulator_no_match"
    )
    group.addoption(
        "--zenmux-record-mode",
        choices=[mode.value for mode in RecordMode],
        default=RecordMode.NONE.value,
        help="what a test with a cassette (zenmux marker's record=) does: none replays only (default), once "
        "records a missing cassette, new_episodes records what it lacks, all records it again",
    )
    group.addoption(
        "--zenmux-upstream",
        metavar="URL",
        default=None,
        help="the gateway cassettes are recorded from (its root, e.g. https://zenmux.ai)",
    )
    group.addoption(
        "--zenmux-upstream-key-env",
        metavar="NAME",
        default=KEY_ENV,
        help=f"the environment variable holding the upstream's key for recording (default {KEY_ENV})",
    )
    group.addoption(
        "--zenmux-report",
        action="store_true",
        default=False,
        help="at the end, list loaded rules that never matched and requests that matched nothing",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    if config.getoption("zenmux_report") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(RunReport(), "zenmux-run-report")


def base_options(config: pytest.Config) -> ServerOptions:
    return ServerOptions(strict=bool(config.getoption("zenmux_strict")), seed=DEFAULT_SEED, clock=None)


def wanted_options(base: ServerOptions, overrides: dict[str, object]) -> ServerOptions:
    from zenmux_emulator.settings import parse_clock

    clock = overrides.get("clock", base.clock)
    return ServerOptions(
        strict=bool(overrides.get("strict", base.strict)),
        seed=int(overrides.get("seed", base.seed)),  # type: ignore[call-overload]
        clock=parse_clock(clock),  # type: ignore[arg-type]
    )


def server_settings(config: pytest.Config, options: ServerOptions) -> Settings:
    from zenmux_emulator.settings import Settings

    here = config.invocation_params.dir
    paths = [str((here / p).resolve()) for p in config.getoption("zenmux_scenarios")]
    return Settings(
        port=0,
        scenarios=paths,
        strict=options.strict,
        seed=options.seed,
        clock=options.clock,
        watch=False,
        journal_size=10_000,
    )


@pytest.fixture(scope="session")
def zenmux_server(pytestconfig: pytest.Config) -> Iterator[EmulatorServer]:
    """One emulator for the whole run (per xdist worker), on a free loopback port."""
    from zenmux_emulator.pytest_plugin.server import EmulatorServer

    with EmulatorServer(server_settings(pytestconfig, base_options(pytestconfig))) as server:
        yield server


@pytest.fixture
def zenmux(request: pytest.FixtureRequest) -> Iterator[ZenmuxHandle]:
    """This test's view of the emulator: its own key and session, its marker scenarios loaded."""
    from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle
    from zenmux_emulator.pytest_plugin.server import EmulatorServer

    config = request.config
    marked = read_markers(request.node)
    base = base_options(config)
    wanted = wanted_options(base, marked.overrides)
    cassette = Cassette(marked.record, RecordMode(config.getoption("zenmux_record_mode"))) if marked.record else None
    recording: Path | None = None
    if cassette is not None and not cassette.records:
        cassette.check_replayable()
        wanted = replace(wanted, strict=True)  # a request the cassette does not hold fails the test
    dedicated: EmulatorServer | None = None
    if cassette is not None and cassette.records:  # a recording server for this test alone
        recording = request.getfixturevalue("tmp_path_factory").mktemp("zenmux-cassette")
        upstream, key_env = config.getoption("zenmux_upstream"), config.getoption("zenmux_upstream_key_env")
        dedicated = EmulatorServer(
            cassette.recording_settings(server_settings(config, wanted), recording, upstream, key_env)
        )
    elif wanted != base:  # strict/seed/clock of its own: a server for this test alone
        dedicated = EmulatorServer(server_settings(config, wanted))
    if dedicated is None:
        server: EmulatorServer = request.getfixturevalue("zenmux_server")
    else:
        server = dedicated
        try:
            server.start()
        except BaseException:
            server.stop()
            raise
    handle = ZenmuxHandle(server, request.node.nodeid, dedicated=dedicated is not None)
    request.node.stash[HANDLE] = handle
    try:
        handle.clear()  # a rerun of the same test id starts clean
        for path in marked.scenarios:
            handle.load(path)
        if cassette is not None and recording is None:
            handle.load(cassette.path)
        if marked.misbehave is not None:
            handle.misbehave(
                str(marked.misbehave["fault"]),
                _text_or_none(marked.misbehave.get("variant")),
                rate=float(str(marked.misbehave.get("rate", 1.0))),
            )
        yield handle
        if config.getoption("zenmux_report"):
            request.node.stash[REPORT_DATA] = report_data(handle)
    finally:
        handle.close_clients()
        try:
            handle.stop_misbehaving()
            handle.unload_all()
            handle.restore_clock()
        finally:
            if dedicated is not None:
                dedicated.stop()
            if cassette is not None and recording is not None:  # written as VCR does: passed or failed
                cassette.save(recording)


def report_data(handle: ZenmuxHandle) -> dict[str, Any]:
    """What `--zenmux-report` needs from one test, plain enough to travel from an xdist worker."""
    from zenmux_emulator.core.rules.registry import API_PREFIX

    listed = handle.listed_rules()
    shared = {r["name"]: [r["where"], r["hits"]["session"]] for r in listed if not r["source"].startswith(API_PREFIX)}
    return {
        "loaded": [[r.name, r.where, hits] for r, hits in handle.rule_hits(listed)],
        "shared": shared,
        "unmatched": [unmatched_record(e, handle.locate) for e in handle.unmatched()],
        "misbehaved": handle.misbehaved(),
        "scenarios": handle.scenarios_moved(),
    }


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
    call: pytest.CallInfo[None],
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    handle = item.stash.get(HANDLE, None)
    if handle is not None and call.excinfo is not None:  # before the report is made of it
        relocate(call.excinfo.value, handle.locate)
    report = yield
    unmet_failed = False
    if handle is not None and report.passed and call.when == "call" and (unmet := handle.unmet_expectations()):
        report.outcome = "failed"  # a rule's `expect` is part of the test's assertions
        report.longrepr = "requests did not meet the scenario's expectations:\n" + "\n".join(f"  {u}" for u in unmet)
        unmet_failed = True
    if handle is not None and report.failed and call.when in ("setup", "call"):
        entries = handle.requests
        summary = why_first(entries, handle.locate, expectations=not unmet_failed)
        if summary and report.longrepr is not None:  # the emulator's why before the SDK's traceback
            report.longrepr = WhyFirst(summary, report.longrepr)  # type: ignore[assignment]
        report.sections.append((SECTION, journal_section(entries, handle.session, handle.locate)))
    if call.when == "teardown" and REPORT_DATA in item.stash:
        report.user_properties.append((PROPERTY, item.stash[REPORT_DATA]))
    return report


INTERNAL_WHERE = re.compile(r"api:[A-Za-z0-9._-]+:\d+")
"""Where a rule the test loaded sits, as the server names it (`api:<scenario>:<line>`)."""


def relocate(exc: BaseException, locate: Callable[[str], str]) -> None:
    """The exception's text (a strict miss's 404, as the SDK raised it) naming each rule the test loaded at its
    file and line, not at the scenario name the plugin gave it on the server."""

    def fix(value: object) -> object:
        return INTERNAL_WHERE.sub(lambda found: locate(found.group(0)), value) if isinstance(value, str) else value

    try:
        exc.args = tuple(fix(arg) for arg in exc.args)
        if isinstance(getattr(exc, "message", None), str):  # the SDKs' own copy of the text
            exc.message = fix(exc.message)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # an exception that keeps its text read-only: left as it is
        return


class RunReport:
    """Gathers every test's report data (local or from xdist workers) for the terminal summary."""

    def __init__(self) -> None:
        self.loaded: dict[tuple[str, str], list[Any]] = {}
        """(rule, where) -> [hits over every test that loaded it, the tests that did]: a rule a
        module's marker loads for each of its tests is one rule, reported once."""
        self.shared: dict[str, list[Any]] = {}
        self.unmatched: list[tuple[str, dict[str, Any]]] = []
        self.misbehaved: list[tuple[str, list[str]]] = []
        self.scenarios: dict[str, bool] = {}
        """Each scenario in force in some test, and whether a rule moved it out of `started` in any."""

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, data in report.user_properties if report.when == "teardown" else ():
            if name != PROPERTY or not isinstance(data, dict):  # ours: a report_data() dict
                continue
            for rule, where, hits in data["loaded"]:
                seen = self.loaded.setdefault((rule, where), [0, []])
                seen[0] += hits
                seen[1].append(report.nodeid)
            for rule, (where, hits) in data["shared"].items():
                self.shared.setdefault(rule, [where, 0])[1] += hits
            self.unmatched += [(report.nodeid, record) for record in data["unmatched"]]
            if data.get("misbehaved"):
                self.misbehaved.append((report.nodeid, list(data["misbehaved"])))
            for scenario, moved in data.get("scenarios", {}).items():
                self.scenarios[scenario] = self.scenarios.get(scenario, False) or bool(moved)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        never = [(rule, where, "") for rule, (where, hits) in self.shared.items() if hits == 0]
        never += [(rule, where, _owners(tests)) for (rule, where), (hits, tests) in self.loaded.items() if hits == 0]
        terminalreporter.write_sep("=", "zenmux report")
        stuck = sorted(name for name, moved in self.scenarios.items() if not moved)
        for line in summary_lines(never, self.unmatched, self.misbehaved, stuck):
            terminalreporter.write_line(line)


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _owners(tests: list[str]) -> str:
    return tests[0] if len(tests) == 1 else f"{len(tests)} tests ({tests[0]}, ...)"


__all__ = ["HANDLE", "zenmux", "zenmux_server"]
