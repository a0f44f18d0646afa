"""What the client tests share: one scenario a weather tool loop and a greeting answer, on the
Anthropic face, and where the npm clients are installed."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import REPO

SCENARIO = """\
rules:
  - name: greeting
    match: {last_user: {contains: hello}}
    reply: {content: "Hi there!"}
  - name: call-weather
    match: {tools: [get_weather], tool_result: false}
    reply:
      reasoning: "I will call get_weather for Paris."
      tool_calls:
        - {name: get_weather, arguments: {city: Paris}}
  - name: answer-weather
    match: {tool_result: {name: get_weather}}
    expect: {reasoning_intact: true}
    reply:
      content: "Paris is {{ request.tool_result.content }} today."
"""
SONNET = "anthropic/claude-sonnet-4.5"
NODE_SDK = Path(os.environ.get("ZENMUX_TEST_NODE_SDK", REPO / ".venv/node-sdk"))
"""The folder the Node anthropic SDK is installed in (`make test` puts the pinned one there)."""
