"""What `serve` imports: a plain chat request answered by a plain rule needs no template engine,
JSON Schema checker, fake-data or pattern library, Redis client or media library (nor the shared
state's backend, nor the control API's OpenAPI description, nor any face but chat's handlers), so a
serving process has none of them in `sys.modules` after answering one (issue 43: what a served
request does not need loads on first use, not at start-up). A face's handlers load with its first
request: the Anthropic face's, asked next, answer, and are then imported.

The server has no facility that reports its modules, so the check runs the real `serve` command in
a fresh interpreter (`python -c`): the command in the main thread, and beside it a thread that waits
for the start line, sends the request, reads `sys.modules` and stops the server with SIGTERM.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HEAVY = (
    "jsonschema",
    "jinja2",
    "faker",
    "rstr",
    "redis",
    "watchfiles",
    "PIL",
    "lameenc",
    "soundfile",
    "av",
    "zenmux_emulator.server.state_shared",  # --state only
    "zenmux_emulator.server.control.openapi",  # the control API's description, on its first request
)
FACES = tuple(
    f"zenmux_emulator.faces.{face}.{module}"
    for face, module in (
        ("anthropic", "face"),
        ("responses", "face"),
        ("objectiveai", "face"),
        ("vertex", "face"),
        ("embeddings", "face"),
        ("rerank", "face"),
        ("platform", "routes"),
        ("images", "face"),
        ("speech", "face"),
        ("transcription", "face"),
        ("videos", "face"),
        ("imagen", "face"),
        ("interactions", "face"),
    )
)
"""The handlers of every face but chat, loaded on each face's first request (`core/deferred.py`)."""

SCRIPT = r"""
import io, json, os, re, signal, sys, threading, urllib.request

HEAVY = {heavy!r}
LISTEN = re.compile(r"listening on http://127\.0\.0\.1:(\d+)/")
port, seen = [], threading.Event()

class Lines(io.TextIOBase):
    def write(self, text):
        found = LISTEN.search(text)
        if found:
            port.append(int(found.group(1)))
            seen.set()
        return len(text)

def ask():
    try:
        if not seen.wait(120):
            raise SystemExit("the server did not start")
        body = json.dumps({{"model": "openai/gpt-5", "messages": [{{"role": "user", "content": "plain please"}}]}})
        request = urllib.request.Request(
            f"http://127.0.0.1:{{port[0]}}/api/v1/chat/completions", data=body.encode(),
            headers={{"Authorization": "Bearer sk-test", "Content-Type": "application/json"}})
        with urllib.request.urlopen(request, timeout=60) as answer:
            reply = json.loads(answer.read())
        loaded = sorted(name for name in HEAVY if name in sys.modules)
        body = json.dumps({{"model": "anthropic/claude-sonnet-4.5", "max_tokens": 50,
                            "messages": [{{"role": "user", "content": "plain please"}}]}})
        request = urllib.request.Request(
            f"http://127.0.0.1:{{port[0]}}/api/anthropic/v1/messages", data=body.encode(),
            headers={{"x-api-key": "sk-test", "anthropic-version": "2023-06-01", "Content-Type": "application/json"}})
        with urllib.request.urlopen(request, timeout=60) as answer:
            message = json.loads(answer.read())
        sys.__stderr__.write("RESULT " + json.dumps({{"content": reply["choices"][0]["message"]["content"],
                                                      "loaded": loaded, "message": message["content"][0]["text"],
                                                      "then": "zenmux_emulator.faces.anthropic.face" in sys.modules}}) + "\n")
    finally:
        os.kill(os.getpid(), signal.SIGTERM)

sys.stdout = Lines()
threading.Thread(target=ask, daemon=True).start()
sys.argv = ["zenmux-emulator", "serve", "--host", "127.0.0.1", "--port", "0", "--scenarios", {folder!r},
            "--no-watch", "--log-level", "warning"]
from zenmux_emulator.cli.launch import main
sys.exit(main())
"""


def test_a_plain_request_loads_none_of_the_heavy_modules(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "plain.yaml").write_text(
        'rules:\n  - name: plain\n    match: {last_user: {equals: "plain please"}}\n    reply: {content: "plainly"}\n',
        encoding="utf-8",
    )
    script = SCRIPT.format(heavy=HEAVY + FACES, folder=str(folder))
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    results = [line for line in done.stderr.splitlines() if line.startswith("RESULT ")]
    assert results, done.stderr
    out = json.loads(results[-1].removeprefix("RESULT "))
    assert out["content"] == "plainly"
    assert out["loaded"] == []
    assert out["message"] == "plainly"
    assert out["then"] is True
