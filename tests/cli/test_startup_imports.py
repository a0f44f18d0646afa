"""What `serve` imports: a plain chat request answered by a plain rule needs no template engine,
JSON Schema checker, fake-data or pattern library, Redis client or media library (nor the shared
state's backend, nor the control API's OpenAPI description), so a serving process has none of them
in `sys.modules` after answering one (issue 43: what a served request
does not need loads on first use, not at start-up).

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
        sys.__stderr__.write("RESULT " + json.dumps({{"content": reply["choices"][0]["message"]["content"],
                                                      "loaded": loaded}}) + "\n")
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
    script = SCRIPT.format(heavy=HEAVY, folder=str(folder))
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
