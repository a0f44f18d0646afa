"""The command line of recording: `zenmux-emulator record` and `serve`'s recording options."""

from __future__ import annotations

import argparse
from typing import Any

RECORD_HELP = "proxy to a real gateway and write what it answers as scenario files"
RECORD_DESCRIPTION = """\
Serve every face the emulator speaks, forward each request to UPSTREAM with the caller's own key,
pass the answer back unchanged (streams as they arrive) and write each exchange as a scenario rule
in DIR/recorded.yaml (and the answers as sent in DIR/exchanges.jsonl, which
`zenmux-emulator drift --recorded DIR` compares with the emulator's). Replay with:
zenmux-emulator serve --scenarios DIR --strict.
Request headers (Authorization, x-api-key and every other) are never written."""


def add_recording_options(parser: argparse.ArgumentParser, *, missing: bool) -> None:
    """The options both commands share; `missing` adds serve's --record-missing and --record-out."""
    group = parser.add_argument_group("recording")
    if missing:
        group.add_argument(
            "--record-missing",
            action="store_const",
            const=True,
            help="forward requests no rule matches to --upstream and record them",
        )
        group.add_argument(
            "--record-out", metavar="DIR", help="folder to record into (default: the first scenario folder)"
        )
    group.add_argument(
        "--upstream",
        metavar="URL",
        required=not missing,
        help="the gateway to forward to, e.g. https://zenmux.ai (the only address contacted)",
    )
    group.add_argument(
        "--redact",
        action="append",
        metavar="REGEX",
        help="mask text matching REGEX in everything recorded (repeatable)",
    )
    group.add_argument(
        "--record-errors",
        action="store_const",
        const=True,
        help="also record failed calls: error statuses, broken streams, an unreachable upstream",
    )


def add_record_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("record", help=RECORD_HELP, description=RECORD_DESCRIPTION)
    p.add_argument("--out", required=True, metavar="DIR", help="folder the recorded scenarios are written to")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port, 0 for a free one (default 8000)")
    p.add_argument("--log-format", choices=["text", "json"])
    p.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    add_recording_options(p, missing=False)


def record_settings(given: dict[str, Any]) -> dict[str, Any]:
    """`record` is `serve --record-missing` over no scenarios: every request is forwarded. The
    recorder checks no passed-back reasoning and obeys no control headers (the upstream does)."""
    settings = {k: v for k, v in given.items() if k != "out"}
    settings.update(
        record_out=given["out"],
        record_missing=True,
        scenarios=[],
        watch=False,
        reasoning_check="off",
        control_headers=False,
        record_exchanges=True,
    )
    return settings
