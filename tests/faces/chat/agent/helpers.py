"""Helpers of the agent tests (tool calls and reasoning): tool definitions, stream reassembly,
journal look-ups and a server over YAML that lives for a whole module."""

from __future__ import annotations

import copy
import json
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import FROZEN, SHIPPED
from tests.faces.chat.contract.helpers import RawResponse, request
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

SESSION_HEADER = "X-Emulator-Session"
RULE_HEADER = "X-Emulator-Rule"
WARNINGS_HEADER = "X-Emulator-Warnings"

CALL_ID = r"^call_[0-9A-Za-z]{24}$"
TOOLU_ID = r"^toolu_01[0-9A-Za-z]{22}$"

ANTHROPIC = "anthropic/claude-sonnet-4.5"
GPT5 = "openai/gpt-5"
GEMINI = "google/gemini-2.5-pro"


def function_tool(
    name: str, properties: dict[str, Any] | None = None, required: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    """A function tool offered in a request."""
    parameters: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required is not None:
        parameters["required"] = required
    return {"type": "function", "function": {"name": name, "parameters": parameters, **extra}}


GET_WEATHER = function_tool(
    "get_weather", {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, ["city"]
)
GET_TIME = function_tool("get_time", {"timezone": {"type": "string"}}, ["timezone"])
RUN_SQL = {"type": "custom", "custom": {"name": "run_sql", "description": "Run one SQL query"}}
SEARCH_CITY_WEATHER = {
    "type": "function",
    "function": {
        "name": "search_city_weather",
        "description": "搜索城市天气",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "城市名称"},
                "date": {"type": "string", "description": "yyyy-mm-dd格式的日期"},
            },
            "required": ["city", "date"],
            "additionalProperties": False,
        },
    },
}


def message_of(response: RawResponse) -> dict[str, Any]:
    assert response.status == 200, (response.status, response.body)
    return response.json()["choices"][0]["message"]


def journal(server: EmulatorServer, session: str) -> list[dict[str, Any]]:
    """The journal entries of one session, through the control API."""
    response = request(server, method="GET", path=f"/_emulator/journal?session={session}", key=None)
    assert response.status == 200, response.body
    return response.json()["entries"]


def last_warnings(server: EmulatorServer, session: str) -> list[str]:
    entries = journal(server, session)
    assert entries, f"no journal entry for session {session}"
    latest = max(entries, key=lambda e: e["seq"])
    return latest["warnings"]


# --- stream reassembly -------------------------------------------------------------------------


def as_streamed(details: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`reasoning_details` as a stream rebuilds them: each block's `index` its integer position
    (the JSON body keeps ZenMux's `"0"` for the openai shape)."""
    return [{**block, "index": n} for n, block in enumerate(details)]


def merge_details(fragments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`reasoning_details` fragments of a stream merged into blocks: text (or summary) pieces of one
    (type, index) concatenated, the signature added to its block, encrypted blocks kept whole."""
    blocks: list[dict[str, Any]] = []
    for fragment in fragments:
        kind = fragment["type"]
        if kind == "reasoning.encrypted":
            blocks.append(dict(fragment))
            continue
        key = "summary" if kind == "reasoning.summary" else "text"
        block = next((b for b in blocks if b["type"] == kind and b.get("index") == fragment.get("index")), None)
        if block is None:
            blocks.append(dict(fragment))
            continue
        for name, value in fragment.items():
            if name == key:
                block[key] = block.get(key, "") + value
            elif name not in block:
                block[name] = value
            else:
                assert block[name] == value, f"fragment disagrees on {name}: {block[name]!r} != {value!r}"
    return blocks


def accumulate(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant message a stream adds up to (content, reasoning, reasoning_details, tool_calls)."""
    content: list[str] = []
    reasoning: list[str] = []
    fragments: list[dict[str, Any]] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        if not chunk.get("choices"):
            continue
        delta = chunk["choices"][0]["delta"]
        if delta.get("content"):
            content.append(delta["content"])
        if delta.get("reasoning"):
            reasoning.append(delta["reasoning"])
        fragments.extend(delta.get("reasoning_details") or [])
        for call in delta.get("tool_calls") or []:
            index = call["index"]
            if index not in calls:
                calls[index] = {k: copy.deepcopy(v) for k, v in call.items() if k != "index"}
                continue
            kind = calls[index]["type"]
            field = "arguments" if kind == "function" else "input"
            calls[index][kind][field] += call[kind][field]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if reasoning:
        message["reasoning"] = "".join(reasoning)
    if fragments:
        message["reasoning_details"] = merge_details(fragments)
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


def sdk_chunks(stream: Any) -> list[dict[str, Any]]:
    """The chunks of an SDK stream as the dicts that were sent (unset fields left out)."""
    return [chunk.to_dict() for chunk in stream]


def deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["choices"][0]["delta"] for c in chunks if c.get("choices")]


def tool_deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool-call delta in stream order."""
    return [call for d in deltas(chunks) for call in d.get("tool_calls") or []]


# --- a server over YAML for a whole module -----------------------------------------------------


@contextmanager
def serve(folder: Path, *yaml_texts: str, **settings: Any) -> Iterator[EmulatorServer]:
    """A server over the given YAML texts (dedented), written to `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(yaml_texts):
        (folder / f"s{i}.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    options: dict[str, Any] = {"port": 0, "scenarios": [str(folder)], "clock": FROZEN, "watch": False}
    options.update(settings)
    with EmulatorServer(Settings(**options)) as server:
        yield server


def shipped_text(name: str) -> str:
    """A shipped scenario file's YAML, to serve it alone or with other settings."""
    return (SHIPPED / name).read_text(encoding="utf-8")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
