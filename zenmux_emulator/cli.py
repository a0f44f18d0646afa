"""`zenmux-emulator serve`, `validate` and `record`."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from aiohttp import web
from pydantic import ValidationError

from zenmux_emulator.app import create_app, make_runner
from zenmux_emulator.foundation.errors import ScenarioError
from zenmux_emulator.logs import configure
from zenmux_emulator.record.command import add_record_parser, add_recording_options, record_settings
from zenmux_emulator.rules.compile import load_paths
from zenmux_emulator.settings import Settings

log = logging.getLogger("emulator")


def _serve_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="serve the chat completions API from scenario files (the default)",
                       description="Every option also reads ZENMUX_EMULATOR_<OPTION> (e.g. ZENMUX_EMULATOR_PORT).")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port, 0 for a free one (default 8000)")
    p.add_argument("--scenarios", nargs="+", metavar="PATH", help="scenario files or folders (default scenarios/)")
    p.add_argument("--seed", type=int, help="seed for ids, default replies and fake values")
    p.add_argument("--clock", help="freeze `created` at unix seconds or an ISO 8601 time")
    p.add_argument("--strict", action="store_const", const=True, help="answer unmatched requests 404 emulator_no_match")
    p.add_argument("--api-key", dest="api_keys", action="append", metavar="KEY",
                   help="accept only this key (repeatable; default: any non-empty key)")
    p.add_argument("--log-format", choices=["text", "json"])
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    p.add_argument("--no-watch", dest="watch", action="store_const", const=False, help="do not reload on file changes")
    p.add_argument("--keepalive-ms", type=int, help="keep-alive comment interval during stream waits (default 10000)")
    p.add_argument("--max-body-bytes", type=int, help="largest accepted request body (default 32 MiB)")
    p.add_argument("--header-timeout", type=float, metavar="SECONDS",
                   help="close a new connection that has not sent a whole request header by then (default 10)")
    p.add_argument("--idle-timeout", type=float, metavar="SECONDS",
                   help="close a kept-alive connection idle this long (default 60)")
    p.add_argument("--max-connections", type=int, metavar="N",
                   help="open connections at most (default: the open-file limit less 64)")
    p.add_argument("--journal-size", type=int, help="requests kept in the in-memory journal (default 1000)")
    p.add_argument("--journal-bytes", type=int,
                   help="bytes of bodies and responses the in-memory journal keeps, at most (default 32 MiB)")
    p.add_argument("--journal-body-bytes", type=int,
                   help="a body or response larger than this is journaled as its size and hash (default 256 KiB)")
    p.add_argument("--journal", dest="journal_file", metavar="FILE",
                   help="append every finished request to FILE as one JSON line")
    p.add_argument("--admin-token", help="token that opens the control API to non-loopback clients")
    p.add_argument("--reasoning-secret", help="key of reasoning signatures (default: derived from --seed)")
    p.add_argument("--reasoning-check", choices=["strict", "warn", "off"],
                   help="altered or missing signed reasoning: 400 invalid_params (strict, default), a warning, or nothing")
    p.add_argument("--no-control-headers", dest="control_headers", action="store_const", const=False,
                   help="ignore the X-Emulator-Rule, -Fault and -Chaos request headers (shared deployments)")
    p.add_argument("--chaos-rate", type=float, metavar="RATE",
                   help="seeded share of requests that fail, 0 to 1 (default 0; rules and headers override)")
    p.add_argument("--chaos-failure", metavar="FAILURE",
                   help="how chaos fails: error=STATUS (default error=503), delay=MS, hang, close or reset")
    add_recording_options(p, missing=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zenmux-emulator", description="A scripted, deterministic ZenMux gateway.")
    sub = parser.add_subparsers(dest="command")
    _serve_parser(sub)
    add_record_parser(sub)
    v = sub.add_parser("validate", help="check scenario files; print file:line for every problem")
    v.add_argument("paths", nargs="*", default=["scenarios"], metavar="PATH", help="default: scenarios")
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment, overridden by the flags given on the command line."""
    given = {k: v for k, v in vars(args).items() if k != "command" and v is not None}
    if args.command == "record":
        given = record_settings(given)
    return Settings.from_environment(**given)


async def serve(settings: Settings) -> None:
    """Run until SIGINT or SIGTERM; open streams are ended on the way out."""
    runner = make_runner(create_app(settings), settings)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port)
    await site.start()
    port = runner.addresses[0][1]
    if not gc.isenabled():  # paused by the launcher for start-up (emulator/launch.py)
        gc.freeze()  # what start-up made lives as long as the process: never scan it again
        gc.enable()
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    print(f"ZenMux emulator listening on http://{host}:{port}/api/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        log.info("shutting down")
        await runner.cleanup()


def validate(paths: Sequence[str]) -> int:
    try:
        scenarios = load_paths([Path(p) for p in paths])
    except ScenarioError as exc:
        print(exc.render(), file=sys.stderr)
        print(f"{len(exc.problems)} problem(s) found", file=sys.stderr)
        return 1
    print(f"ok: {len(scenarios.rules)} rules in {len(scenarios.files)} files")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] not in ("serve", "validate", "record", "-h", "--help"):
        words.insert(0, "serve")  # `serve` is the default command
    args = build_parser().parse_args(words)
    if args.command == "validate":
        return validate(args.paths)
    try:
        settings = settings_from(args)
    except ValidationError as exc:
        for error in exc.errors():
            print(f"zenmux-emulator: {'.'.join(map(str, error['loc']))}: {error['msg']}", file=sys.stderr)
        return 2
    configure(settings.log_format, settings.log_level)
    try:
        asyncio.run(serve(settings))
    except ScenarioError as exc:
        print(exc.render(), file=sys.stderr)
        print("zenmux-emulator: not started: the scenario files have problems", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"zenmux-emulator: cannot listen on {settings.host}:{settings.port}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0
