"""`zenmux-emulator serve`, `validate`, `record`, `drift`, `catalogue`, `init`, `wait` and `version`.

The server (aiohttp, pydantic, the scenario compiler) is imported only by the commands that need it,
so `--help`, `--version`, `init` and `wait` answer at once.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from zenmux_emulator.cli import environment
from zenmux_emulator.cli.catalogue.command import add_catalogue_parser
from zenmux_emulator.cli.drift.command import add_drift_parser
from zenmux_emulator.record.command import add_record_parser, add_recording_options, record_settings

if TYPE_CHECKING:
    from zenmux_emulator.foundation.errors import ScenarioError
    from zenmux_emulator.settings import Settings

log = logging.getLogger("emulator")
COMMANDS = ("serve", "validate", "record", "drift", "catalogue", "init", "wait", "version")
ENVIRONMENT = (
    "Every option also reads ZENMUX_EMULATOR_<OPTION>: --port reads ZENMUX_EMULATOR_PORT, --api-key "
    "ZENMUX_EMULATOR_API_KEY (comma-separated), --no-watch ZENMUX_EMULATOR_NO_WATCH=true; the flag wins. "
    "An unknown ZENMUX_EMULATOR_* variable stops the start."
)


def version() -> str:
    """The package's version."""
    from zenmux_emulator.foundation.version import VERSION

    return VERSION


def _serve_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="serve the ZenMux APIs from scenario files (the default command)",
        description="Serve the ZenMux APIs from scenario files.",
        epilog=ENVIRONMENT,
    )
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port, 0 for a free one (default 8000)")
    p.add_argument("--scenarios", nargs="+", metavar="PATH", help="scenario files or folders (default scenarios/)")
    p.add_argument("--seed", type=int, help="seed for ids, default replies and fake values")
    p.add_argument("--clock", help="freeze `created` at unix seconds or an ISO 8601 time")
    p.add_argument("--strict", action="store_const", const=True, help="answer unmatched requests 404 emulator_no_match")
    p.add_argument(
        "--api-key",
        dest="api_keys",
        action="append",
        metavar="KEY",
        help="accept only this key (repeatable; default: any non-empty key)",
    )
    p.add_argument(
        "--log-format",
        choices=["text", "json"],
        help="text for people (default), or json: one JSON object per line, the start-up lines included",
    )
    p.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        help="the least severe log line written (default info: start-up, reloads, one line per request)",
    )
    p.add_argument("--no-watch", dest="watch", action="store_const", const=False, help="do not reload on file changes")
    p.add_argument("--keepalive-ms", type=int, help="keep-alive comment interval during stream waits (default 10000)")
    p.add_argument(
        "--time-scale",
        type=float,
        metavar="F",
        help="multiply every wait (first token, chunk gaps, keep-alives, delay faults, provider latency) by F: "
        "0 sends at once, 0.1 ten times faster (default: the scenarios' settings.time_scale, else 1; "
        "X-Emulator-Time-Scale per request)",
    )
    p.add_argument("--max-body-bytes", type=int, help="largest accepted request body (default 32 MiB)")
    p.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        help="close a new connection that has not sent a whole request header by then (default 10)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        metavar="SECONDS",
        help="close a kept-alive connection idle this long (default 60)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="open connections at most (default: the open-file limit less 64)",
    )
    p.add_argument("--journal-size", type=int, help="requests kept in the in-memory journal (default 1000)")
    p.add_argument(
        "--journal-bytes",
        type=int,
        help="bytes of bodies and responses the in-memory journal keeps, at most (default 32 MiB)",
    )
    p.add_argument(
        "--journal-body-bytes",
        type=int,
        help="a body or response larger than this is journaled as its size and hash (default 256 KiB)",
    )
    p.add_argument(
        "--journal", dest="journal_file", metavar="FILE", help="append every finished request to FILE as one JSON line"
    )
    p.add_argument("--admin-token", help="token that opens the control API to non-loopback clients")
    p.add_argument(
        "--allowed-host",
        dest="allowed_hosts",
        action="append",
        metavar="NAME",
        help="a Host name the control API and inspector answer under without --admin-token, besides "
        "localhost, loopback addresses and --host (repeatable)",
    )
    p.add_argument("--reasoning-secret", help="key of reasoning signatures (default: derived from --seed)")
    p.add_argument(
        "--reasoning-check",
        choices=["strict", "warn", "off"],
        help="altered or missing signed reasoning: 400 invalid_params (strict, default), a warning, or nothing",
    )
    p.add_argument(
        "--no-control-headers",
        dest="control_headers",
        action="store_const",
        const=False,
        help="ignore the X-Emulator-Rule, -Fault, -Chaos and -Time-Scale request headers (shared deployments)",
    )
    p.add_argument(
        "--chaos-rate",
        type=float,
        metavar="RATE",
        help="seeded share of requests that fail, 0 to 1 (default 0; rules and headers override)",
    )
    p.add_argument(
        "--chaos-failure",
        metavar="FAILURE",
        help="how chaos fails: error=STATUS (default error=503), delay=MS, hang, close or reset",
    )
    p.add_argument(
        "--misbehave",
        action="append",
        metavar="NAME:RATE",
        help="a seeded share of requests get this fault of the misbehaviour catalogue "
        "(NAME[;variant]:RATE, repeatable; GET /_emulator/misbehave lists them)",
    )
    p.add_argument(
        "--workers",
        metavar="N",
        help="serving processes on the one port, or `auto` for one per core (default 1); "
        "they share their state through --state, else a private redis-server",
    )
    p.add_argument(
        "--state",
        metavar="URL",
        help="keep sessions, limits, balances and the journal in Redis (redis://HOST:PORT/DB) "
        "so workers and instances act as one gateway (default: in this process)",
    )
    p.add_argument(
        "--state-timeout",
        metavar="SECONDS",
        help="how long one operation on the --state Redis may take before the request answers 503 "
        "emulator_state_unavailable (default 2)",
    )
    p.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep the validated scenario files here across starts (default: $XDG_CACHE_HOME/zenmux-emulator, "
        "else zenmux-emulator-<uid> in the temporary folder)",
    )
    p.add_argument(
        "--catalogue",
        metavar="FILE",
        help="serve this catalogue file (`zenmux-emulator catalogue pull` writes one) instead of the packaged snapshot",
    )
    add_recording_options(p, missing=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zenmux-emulator",
        description="A scripted, deterministic ZenMux gateway.",
        epilog="Start with `zenmux-emulator init scenarios`, then `zenmux-emulator serve`.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"zenmux-emulator {version()}")
    sub = parser.add_subparsers(dest="command")
    _serve_parser(sub)
    add_record_parser(sub)
    add_drift_parser(sub)
    add_catalogue_parser(sub)
    v = sub.add_parser("validate", help="check scenario files; print file:line for every problem")
    v.add_argument("paths", nargs="*", default=["scenarios"], metavar="PATH", help="default: scenarios")
    i = sub.add_parser("init", help="write the example scenario files into a folder to start from")
    i.add_argument("folder", nargs="?", default="scenarios", metavar="DIR", help="default: scenarios")
    i.add_argument("--force", action="store_true", help="overwrite example files already there")
    w = sub.add_parser(
        "wait",
        help="wait until a server answers its health check; exit 1 after --timeout",
        description="Poll the emulator's /_emulator/health until it answers 2xx (exit 0) "
        "or the timeout passes (exit 1): for CI scripts.",
    )
    w.add_argument(
        "--url",
        default="http://127.0.0.1:8000",
        help="the server (or any URL to poll; default http://127.0.0.1:8000, polled at /_emulator/health)",
    )
    w.add_argument("--timeout", type=float, default=30.0, metavar="S", help="seconds before giving up (default 30)")
    w.add_argument("--pid", type=int, help="the server's process id: give up as soon as it has exited (e.g. $!)")
    sub.add_parser("version", help="print the version")
    return parser


def serve_parser() -> argparse.ArgumentParser:
    """The `serve` command's own parser (its options name the environment variables): made alone, as
    `build_parser` makes it, where every start built the whole command line a second time for it."""
    sub = argparse.ArgumentParser(prog="zenmux-emulator").add_subparsers(dest="command")
    _serve_parser(sub)
    return sub.choices["serve"]


def settings_from(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from the `ZENMUX_EMULATOR_*` variables, overridden by the flags given on the command line.

    Raises environment.EnvironmentProblem for a variable that is unknown or unreadable, and pydantic's
    ValidationError for a value the settings refuse."""
    from zenmux_emulator.settings import Settings

    accepted = environment.variables(serve_parser(), Settings.model_fields)
    from_env = environment.read(os.environ if environ is None else environ, accepted)
    given = {k: v for k, v in vars(args).items() if k != "command" and v is not None}
    if args.command == "record":
        given = record_settings(given)
    return Settings(**{**from_env, **given})


def _setting_problems(exc: Exception, args: argparse.Namespace, environ: Mapping[str, str]) -> list[str]:
    """Each refused setting named as the user gave it: the flag, or the environment variable."""
    from zenmux_emulator.settings import Settings

    accepted = environment.variables(serve_parser(), Settings.model_fields)
    from_env = environment.sources(environ, accepted)
    options = {v.field: v.option for v in accepted.values() if v.option}
    lines = []
    for error in exc.errors():  # type: ignore[attr-defined]
        field = str(error["loc"][0]) if error["loc"] else ""
        given_by_flag = getattr(args, field, None) is not None
        named = options.get(field, field) if given_by_flag or field not in from_env else from_env[field]
        message = str(error["msg"]).removeprefix("Value error, ")
        lines.append(f"zenmux-emulator: {named} ({field}): {message}")
    return lines


async def serve(settings: Settings, sock: socket.socket | None = None, ready: int | None = None) -> None:
    """Run until SIGINT or SIGTERM; open streams are ended on the way out. A worker of `--workers`
    serves on the supervisor's socket and hands its start lines to the supervisor (on `ready`)."""
    import asyncio
    import signal

    from aiohttp import web

    from zenmux_emulator.cli.summary import catalogue_facts, start_lines
    from zenmux_emulator.server.app import create_app, make_runner

    app = create_app(settings)
    runner = make_runner(app, settings)
    await runner.setup()
    site = web.SockSite(runner, sock) if sock is not None else web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    port = runner.addresses[0][1]
    if not gc.isenabled():  # paused by the launcher for start-up (emulator/launch.py)
        gc.freeze()  # what start-up made lives as long as the process: never scan it again
        gc.enable()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # before the lines: a reader may signal as soon as it has them
        loop.add_signal_handler(sig, stop.set)
    lines = start_lines(app, settings, port)
    if ready is not None:
        from zenmux_emulator.cli.workers import announce

        announce(ready, lines)
    else:
        for line in lines:
            print(line, flush=True)
        hint = catalogue_facts(app)["catalogue_hint"]
        if hint:
            log.warning(hint)
    try:
        await stop.wait()
    finally:
        log.info("shutting down")
        await runner.cleanup()


def worker(settings: Settings, sock: socket.socket, ready: int) -> int:
    """One process of `--workers`: serve until stopped; the exit code."""
    import asyncio

    from zenmux_emulator.foundation.errors import ScenarioError
    from zenmux_emulator.state.shared import StateUnavailable

    try:
        asyncio.run(serve(settings, sock, ready))
    except ScenarioError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    except (OSError, StateUnavailable) as exc:
        print(f"zenmux-emulator: worker {os.getpid()} stopped: {exc}", file=sys.stderr)
        return 1
    return 0


NO_SCENARIOS = (
    "zenmux-emulator: no scenarios to serve. Write the examples to start from with "
    "`zenmux-emulator init scenarios` (or `init DIR` and `--scenarios DIR`), or point --scenarios "
    "(ZENMUX_EMULATOR_SCENARIOS) at your own files."
)


def _not_started(exc: ScenarioError, settings: Settings) -> str:
    """Why `serve` did not start: the --catalogue file, no scenarios, or the scenario files' problems."""
    if settings.catalogue is not None and all(p.file == str(settings.catalogue) for p in exc.problems):
        return f"zenmux-emulator: not started: the catalogue file {settings.catalogue} has problems"
    if _missing_only(exc):
        return NO_SCENARIOS
    return "zenmux-emulator: not started: the scenario files have problems"


def _missing_only(exc: ScenarioError) -> bool:
    return all(p.reason == "no such file or directory" for p in exc.problems)


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" + ("" if n == 1 else "s")


def validate(paths: Sequence[str]) -> int:
    from zenmux_emulator.core.rules.compile import load_paths
    from zenmux_emulator.faces.shipped import NAMES
    from zenmux_emulator.foundation.errors import ScenarioError

    try:
        scenarios = load_paths([Path(p) for p in paths], NAMES)
    except ScenarioError as exc:
        print(exc.render(), file=sys.stderr)
        print(f"{len(exc.problems)} problem(s) found", file=sys.stderr)
        if _missing_only(exc):
            print(NO_SCENARIOS, file=sys.stderr)
        return 1
    for warning in scenarios.warnings:
        print(f"warning: {warning}", file=sys.stderr)
        if warning.snippet:
            print(warning.snippet, file=sys.stderr)
    warned = f", {_count(len(scenarios.warnings), 'warning')}" if scenarios.warnings else ""
    print(f"ok: {_count(len(scenarios.rules), 'rule')} in {_count(len(scenarios.files), 'file')}{warned}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] not in (*COMMANDS, "-h", "--help", "-V", "--version"):
        words.insert(0, "serve")  # `serve` is the default command
    args = build_parser().parse_args(words)
    if args.command == "version":
        print(f"zenmux-emulator {version()}")
        return 0
    if args.command == "init":
        from zenmux_emulator.cli.starter import init

        return init(Path(args.folder), force=args.force)
    if args.command == "wait":
        from zenmux_emulator.cli.wait import wait

        return wait(args.url, args.timeout, args.pid)
    if args.command == "validate":
        return validate(args.paths)
    if args.command == "drift":
        from zenmux_emulator.cli.drift.command import drift

        return drift(args)
    if args.command == "catalogue":
        from zenmux_emulator.cli.catalogue.command import catalogue

        return catalogue(args)
    return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    from pydantic import ValidationError

    from zenmux_emulator.cli.logs import configure
    from zenmux_emulator.foundation.errors import ScenarioError
    from zenmux_emulator.state.shared import StateUnavailable

    try:
        settings = settings_from(args)
    except environment.EnvironmentProblem as exc:
        for line in str(exc).splitlines():
            print(f"zenmux-emulator: {line}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        for line in _setting_problems(exc, args, os.environ):
            print(line, file=sys.stderr)
        return 2
    configure(settings.log_format, settings.log_level)
    try:
        if settings.workers > 1:
            from zenmux_emulator.cli.workers import run_workers
            from zenmux_emulator.core.rules.compile import load_paths
            from zenmux_emulator.faces.shipped import NAMES
            from zenmux_emulator.scenario.cache import ParseCache, folder

            cache = ParseCache(folder(settings.cache_dir))
            load_paths(settings.scenario_paths(), NAMES, cache)  # a bad file stops start-up before any worker starts
            if settings.catalogue is not None:
                from zenmux_emulator.scenario.default_models import read_catalogue

                read_catalogue(settings.catalogue)
            return run_workers(settings, worker)
        asyncio.run(serve(settings))
    except ScenarioError as exc:
        print(exc.render(), file=sys.stderr)
        print(_not_started(exc, settings), file=sys.stderr)
        return 1
    except StateUnavailable as exc:
        print(f"zenmux-emulator: not started: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"zenmux-emulator: cannot listen on {settings.host}:{settings.port}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0
