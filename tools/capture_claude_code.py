"""Capture the request bodies Claude Code sends, for tests/faces/anthropic/test_wire.py.

    .venv/bin/python tools/capture_claude_code.py [OUT-FOLDER]

Runs the pinned Claude Code (`.venv/claude`, installed by `make test`; ZENMUX_TEST_CLAUDE names
another) headless twice against an emulator on a free loopback port, in a temporary working folder
and HOME: once with `--model anthropic/claude-sonnet-4.5`, once with Claude Code's default model.
ZenMux (and so the emulator) refuses a bare Anthropic id such as `claude-opus-4-8`, so for the
default run a small proxy in front of the emulator rewrites that one field to its catalogue id
(`anthropic/claude-opus-4.8`) on the way in, and the capture restores what Claude Code sent. Turn 1 answers with a Bash tool call and no thinking
block, as a minimal stub would; Claude Code runs the command and sends turn 2 with the tool result,
which the emulator refuses for a Claude model with thinking on (the test relies on that refusal).
The journal keeps what Claude Code sent; each `/v1/messages` request that offers the Bash tool is
written, with its `anthropic-beta` and `anthropic-version` headers (no key, no other header), as
gzip-compressed JSON (fixed mtime, so the same bodies give the same bytes) to OUT-FOLDER
(default tests/faces/anthropic/captures). Run by hand after bumping Claude Code's pin; never by
the tests.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from aiohttp import ClientSession, web  # noqa: E402

from zenmux_emulator.pytest_plugin.server import EmulatorServer  # noqa: E402
from zenmux_emulator.settings import Settings  # noqa: E402

CLAUDE = Path(os.environ.get("ZENMUX_TEST_CLAUDE", REPO / ".venv/claude/node_modules/.bin/claude"))
OUT = REPO / "tests/faces/anthropic/captures"
KEPT_HEADERS = ("anthropic-beta", "anthropic-version")
SCENARIO = """\
rules:
  - name: turn1-bash
    match: {api: anthropic, tools: [Bash], tool_result: false}
    reply:
      verbatim: true  # no generated thinking block: a minimal stub's answer
      content: "I'll run it."
      tool_calls:
        - name: Bash
          arguments: {command: "echo captured", description: "Print a word"}
  - name: turn2-report
    match: {api: anthropic, tool_result: {name: Bash}}
    reply: {content: "Done."}
  - name: anything-else
    reply: {content: "ok"}
"""
RUNS = {"sonnet45": ["--model", "anthropic/claude-sonnet-4.5"], "default_opus": []}


def catalogue_id(model: str) -> str:
    """`claude-opus-4-8` → `anthropic/claude-opus-4.8`; a `vendor/model` id stays as it is."""
    if "/" in model:
        return model
    family, _, version = model.rpartition("-")
    return f"anthropic/{family}.{version}" if version.isdigit() else f"anthropic/{model}"


async def start_proxy(target: str, renamed: dict[str, str]) -> tuple[web.AppRunner, str]:
    """A loopback proxy to `target` that gives a bare model id its catalogue form; `renamed` maps
    each catalogue id back to what the client sent."""
    client = ClientSession()

    async def forward(request: web.Request) -> web.StreamResponse:
        data = await request.read()
        if request.method == "POST" and data:
            body = json.loads(data)
            if isinstance(body.get("model"), str) and body["model"] != catalogue_id(body["model"]):
                renamed[catalogue_id(body["model"])] = body["model"]
                body["model"] = catalogue_id(body["model"])
                data = json.dumps(body).encode()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        async with client.request(request.method, target + request.path_qs, data=data, headers=headers) as upstream:
            answer = web.StreamResponse(
                status=upstream.status,
                headers={k: v for k, v in upstream.headers.items() if k.lower() in ("content-type", "request-id")},
            )
            await answer.prepare(request)
            async for chunk in upstream.content.iter_any():
                await answer.write(chunk)
            await answer.write_eof()
            return answer

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    app.on_cleanup.append(lambda _: client.close())
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}"


def run_once(model_args: list[str]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="claude-capture-") as temp:
        folder, work, home = Path(temp) / "scenarios", Path(temp) / "work", Path(temp) / "home"
        for path in (folder, work, home):
            path.mkdir()
        (folder / "stub.yaml").write_text(SCENARIO, encoding="utf-8")
        settings = Settings(port=0, scenarios=[str(folder)], watch=False, journal_body_bytes=16 << 20)
        renamed: dict[str, str] = {}
        with EmulatorServer(settings) as server:
            proxy, url = server.call(start_proxy(server.origin, renamed))
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(home),
                "ANTHROPIC_BASE_URL": url + "/api/anthropic",
                "ANTHROPIC_AUTH_TOKEN": "sk-ai-v1-capture",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0",
                "NO_PROXY": "127.0.0.1,localhost",
            }
            subprocess.run(
                [
                    str(CLAUDE),
                    "-p",
                    "Print a word with Bash",
                    *model_args,
                    "--allowedTools",
                    "Bash",
                    "--output-format",
                    "json",
                    "--max-turns",
                    "3",
                ],
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            server.call(proxy.cleanup())
            sent = [
                e
                for e in server.state.journal.entries()
                if e.path == "/api/anthropic/v1/messages"
                and any(t.get("name") == "Bash" for t in (e.body or {}).get("tools", ()))
            ]
            return [
                {
                    "body": {**e.body, "model": renamed.get(e.body["model"], e.body["model"])},
                    "headers": {k.lower(): v for k, v in e.headers.items() if k.lower() in KEPT_HEADERS},
                }
                for e in sent
            ]


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    if not CLAUDE.exists():
        print(f"Claude Code is not installed at {CLAUDE}: run `make test` first", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    number = 0
    for name, args in RUNS.items():
        requests = run_once(args)
        if len(requests) != 2:
            print(f"{name}: expected 2 requests offering Bash, got {len(requests)}", file=sys.stderr)
            return 1
        for turn, request in zip(("turn1_bash", "turn2_tool_result"), requests, strict=True):
            number += 1
            path = out / f"{number:02d}_{turn}_{name}.json.gz"
            data = json.dumps(request, indent=1, sort_keys=True).encode()
            path.write_bytes(gzip.compress(data, mtime=0))
            print(
                f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {len(data):,} bytes "
                f"({path.stat().st_size:,} compressed), model {request['body']['model']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
