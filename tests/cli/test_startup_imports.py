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
from typing import Any

LATER = (
    "zenmux_emulator.server.control.scenarios",  # the control API's handlers, on their route's first request
    "zenmux_emulator.core.match.distance",  # near misses' distances, on the first miss
)
"""Loaded on first use by every start: the control API's handlers and the near-miss distances."""
CONTROL = (
    "zenmux_emulator.server.control.journal",
    "zenmux_emulator.server.control.match",
    "zenmux_emulator.server.inspector.feed",  # the inspector's live list
    "zenmux_emulator.server.inspector.media",  # a reply's pictures and sounds
    "zenmux_emulator.core.explain",  # the inspector's face list and /match
)
"""Control API and inspector handlers no request of these tests calls."""
FROM_CACHE = (
    "yaml",
    "zenmux_emulator.scenario.positions",  # the YAML loaders
    "zenmux_emulator.scenario.located",  # a scenario problem's wording
)
"""Not loaded by a start whose scenario files all come from the parse cache."""

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
    "ctypes.util",  # find_library runs ldconfig in a process of its own: libc's mallopt is found without it
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
        ("systemone", "face"),
        ("interactions", "face"),
    )
)
"""The handlers of every face but chat, loaded on each face's first request (`core/deferred.py`)."""

SCRIPT = r"""
import io, json, os, re, signal, sys, threading, urllib.request

HEAVY = {heavy!r}
LATER = {later!r}
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
        then = "zenmux_emulator.faces.anthropic.face" in sys.modules
        with urllib.request.urlopen(f"http://127.0.0.1:{{port[0]}}/_emulator/scenarios", timeout=60) as answer:
            listed = [rule["name"] for rule in json.loads(answer.read())["rules"]]
        body = json.dumps({{"model": "openai/gpt-5", "messages": [{{"role": "user", "content": "plain pleas"}}]}})
        request = urllib.request.Request(
            f"http://127.0.0.1:{{port[0]}}/api/v1/chat/completions", data=body.encode(),
            headers={{"Authorization": "Bearer sk-test", "Content-Type": "application/json"}})
        try:
            urllib.request.urlopen(request, timeout=60)
        except urllib.error.HTTPError as missed:
            missed.read()
        from zenmux_emulator.faces.shipped import NAMES
        from zenmux_emulator.scenario.language import language
        spoken = language(NAMES)
        built = [spoken.rules.pydantic_complete, spoken.file.__pydantic_complete__]
        plugins = sys.modules["pydantic.plugin._loader"]._plugins  # None: the installed distributions never scanned
        sys.__stderr__.write("RESULT " + json.dumps({{"content": reply["choices"][0]["message"]["content"],
                                                      "built": built, "plugins": plugins is not None,
                                                      "loaded": loaded, "message": message["content"][0]["text"],
                                                      "then": then, "listed": listed,
                                                      "later": sorted(name for name in LATER if name in sys.modules)}}) + "\n")
    finally:
        os.kill(os.getpid(), signal.SIGTERM)

sys.stdout = Lines()
threading.Thread(target=ask, daemon=True).start()
sys.argv = ["zenmux-emulator", "serve", "--host", "127.0.0.1", "--port", "0", "--scenarios", {folder!r},
            "--no-watch", "--log-level", "warning", "--cache-dir", {cache!r}]
from zenmux_emulator.cli.launch import main
sys.exit(main())
"""


def served(tmp_path: Path, heavy: tuple[str, ...]) -> dict[str, Any]:
    """What one `serve` of the plain rule in `tmp_path` reports (its parse cache in `tmp_path` too)."""
    folder = tmp_path / "scenarios"
    if not folder.is_dir():
        folder.mkdir()
        (folder / "plain.yaml").write_text(
            'rules:\n  - name: plain\n    match: {last_user: {equals: "plain please"}}\n    reply: {content: "plainly"}\n',
            encoding="utf-8",
        )
    script = SCRIPT.format(heavy=heavy, later=LATER, folder=str(folder), cache=str(tmp_path / "cache"))
    root = Path(__file__).resolve().parents[2]
    env = {key: value for key, value in os.environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    env["PYTHONPATH"] = str(root)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    results = [line for line in done.stderr.splitlines() if line.startswith("RESULT ")]
    assert results, done.stderr
    out: dict[str, Any] = json.loads(results[-1].removeprefix("RESULT "))
    return out


def test_a_plain_request_loads_none_of_the_heavy_modules(tmp_path: Path) -> None:
    out = served(tmp_path, HEAVY + FACES + LATER + CONTROL)
    assert out["content"] == "plainly"
    assert out["loaded"] == []
    assert out["message"] == "plainly"
    assert out["then"] is True
    assert out["plugins"] is False  # pydantic's plugin lookup, which reads every distribution's entry points


def test_a_start_from_the_parse_cache_loads_no_yaml_and_the_control_api_on_its_first_request(tmp_path: Path) -> None:
    """The second start reads the plain file from the parse cache: no YAML library or loader, and no
    validator of the scenario language built; the control API's handlers load with its first request
    and the near-miss distances with the first miss."""
    served(tmp_path, ())
    out = served(tmp_path, FROM_CACHE + CONTROL)
    assert out["content"] == "plainly"
    assert out["loaded"] == []
    assert out["listed"] == ["plain"]
    assert out["later"] == sorted(LATER)
    assert out["built"] == [False, False]  # the language's validators: the files were not validated again
