"""The Node anthropic SDK, pinned in clients.lock and installed by `make test`, with its own
defaults (its `anthropic-version`): plain, streamed, a thinking + tool loop and the beta tool runner. Fails, never
skips, when it is not installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.clients.helpers import NODE_SDK, SCENARIO
from tests.conftest import MakeServer

SCRIPT = Path(__file__).with_name("node_sdk.js")


def test_the_node_sdk_with_its_defaults(make_server: MakeServer, session: str) -> None:
    assert (NODE_SDK / "node_modules/@anthropic-ai/sdk").is_dir(), f"run `make test`: no Node SDK in {NODE_SDK}"
    server = make_server(SCENARIO)
    done = subprocess.run(
        ["node", str(SCRIPT), str(NODE_SDK), server.anthropic_url, session],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got == {
        "plain": "Hi there! How can I help?",
        "streamed": "Hi there! How can I help?",
        "first": ["thinking", "tool_use"],
        "input": {"city": "Paris"},
        "answer": "Paris is sunny today.",
        "runner": {"cities": ["Paris"], "answer": "Paris is sunny today."},
    }
    entries = [e for e in server.state.journal.entries() if e.session == session]
    entries += [e for e in server.state.journal.entries() if e.session == f"{session}-runner"]  # its own session
    assert [e.status for e in entries] == [200] * 6, [(e.rule, e.unmet_expectations, e.warnings) for e in entries]
    # the thinking loop passed its signed thinking back (the runner's loop has no thinking to pass back)
    assert all(e.unmet_expectations == [] for e in entries[:4]), [(e.rule, e.unmet_expectations) for e in entries]
    runner = entries[4:]  # the tool runner's two turns: a thread created, then continued with the tool result
    assert runner[0].body["thread"] == {"type": "create"} and runner[1].body["thread"]["type"] == "continue"
    assert [m["role"] for m in runner[1].body["messages"]] == ["user"] and runner[1].rule == "answer-weather"
    version = {k.lower(): v for k, v in entries[0].headers.items()}["anthropic-version"]
    assert version != "2023-06-01", "the SDK's own default version, not ZenMux's documented one"
