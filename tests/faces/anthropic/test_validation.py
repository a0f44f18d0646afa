"""The whole Messages request is validated: Anthropic's messages, with the JSON path, in ZenMux's
envelope (400 invalid_params); what Claude Code and the SDK send is accepted."""

from __future__ import annotations

from typing import Any

import pytest

from tests.faces.anthropic.helpers import SONNET, body, error_of, post
from zenmux_emulator.pytest_plugin.server import EmulatorServer

USE = {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "found"}


def msgs(*messages: Any) -> dict[str, Any]:
    return {"model": SONNET, "max_tokens": 256, "messages": list(messages)}


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ({"model": SONNET, "messages": [{"role": "user", "content": "x"}]}, "max_tokens: Field required"),
        (body("x", max_tokens=0), "max_tokens: Input should be greater than or equal to 1"),
        ({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]}, "model: Field required"),
        (msgs(), "messages: at least one message is required"),
        (msgs({"role": "bot", "content": "x"}), "messages.0.role: Input should be 'user', 'assistant' or 'system'"),
        (msgs({"role": "user", "content": 5}), "messages.0.content: Input should be a valid string"),
        (
            msgs({"role": "user", "content": "x"}, {"role": "assistant", "content": [{"type": "picture"}]}),
            "messages.1.content.0.type: Input tag 'picture' found using 'type' does not match any of the expected tags",
        ),
        (msgs({"role": "user", "content": [{"text": "x"}]}), "messages.0.content.0.type: Field required"),
        (msgs({"role": "user", "content": [{"type": "text"}]}), "messages.0.content.0.text: Field required"),
        (
            msgs({"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "forever"}}]}),
            "messages.0.content.0.cache_control.type: Input should be 'ephemeral'",
        ),
        (
            msgs({"role": "user", "content": [USE]}),
            "messages.0.content.0.type: `tool_use` blocks are only allowed in `assistant` messages",
        ),
        (
            msgs(
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": "?"},
            ),
            "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
        ),
        (
            msgs({"role": "user", "content": [RESULT]}),
            "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
        ),
        (body("x", tools=[{"name": "lookup"}]), "tools.0.input_schema: Field required"),
        (body("x", tools=[{"name": "bad name", "input_schema": {}}]), "tools.0.name: String should match pattern"),
        (body("x", tool_choice={"type": "tool"}), "tool_choice.name: Field required"),
        (body("x", tool_choice={"type": "any"}), "tool_choice.any may only be specified while providing tools"),
        (
            body("x", tool_choice={"type": "tool", "name": "lookup"}),
            "tool_choice.tool may only be specified while providing tools",
        ),
        (
            body(
                "x",
                tools=[{"name": "lookup", "input_schema": {"type": "object"}}],
                tool_choice={"type": "tool", "name": "other"},
            ),
            "tool_choice.name: tool `other` is not one of the tools provided",
        ),
        (body("x", thinking={"type": "enabled"}), "thinking.budget_tokens: Field required"),
        (
            body("x", thinking={"type": "enabled", "budget_tokens": 512}),
            "thinking.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            body("x", max_tokens=2000, thinking={"type": "enabled", "budget_tokens": 2000}),
            "`max_tokens` must be greater than `thinking.budget_tokens`",
        ),
        (body("x", temperature=1.5), "temperature: Input should be less than or equal to 1"),
        (body("x", metadata={"user": "a"}), "metadata.user: Extra inputs are not permitted"),
        (body("x", system=[{"type": "image", "source": {}}]), "system.0.type: Input should be 'text'"),
        ([1, 2], "Request body must be a JSON object"),
        (b"{not json", "Request body is not valid JSON"),
    ],
)
def test_invalid_requests_name_the_path(shipped: EmulatorServer, session: str, sent: Any, message: str) -> None:
    assert error_of(post(shipped, sent, session), 400).startswith(message)


@pytest.mark.parametrize(
    "sent",
    [
        msgs({"role": "user", "content": "x"}, {"role": "system", "content": "mid-conversation system"}),
        msgs(
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": [USE]},
            {
                "role": "user",
                "content": [
                    {**RESULT, "is_error": False, "cache_control": {"type": "ephemeral"}},
                    {"type": "text", "text": "and then?"},
                ],
            },
        ),
        body(
            "x",
            thinking={"type": "adaptive"},
            output_config={"effort": "high"},
            context_management={"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        ),
        body(
            "x",
            thinking={"type": "disabled"},
            top_k=5,
            top_p=0.5,
            temperature=0.2,
            stop_sequences=["\n\nHuman:"],
            metadata={"user_id": '{"device_id":"d","session_id":"s"}'},
            service_tier="auto",
        ),
        body(
            "x",
            tools=[
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
                {
                    "type": "custom",
                    "name": "lookup",
                    "input_schema": {"type": "object"},
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                },
            ],
            tool_choice={"type": "any", "disable_parallel_tool_use": True},
        ),
        msgs(
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
                    {"type": "document", "source": {"type": "text", "data": "doc", "media_type": "text/plain"}},
                    {"type": "text", "text": "describe"},
                ],
            }
        ),
    ],
)
def test_what_clients_send_is_accepted(shipped: EmulatorServer, session: str, sent: dict[str, Any]) -> None:
    raw = post(shipped, sent, session)
    assert raw.status == 200, raw.text
    assert "x-emulator-warnings" not in raw.headers


def test_count_tokens_validates_too_but_needs_no_max_tokens(shipped: EmulatorServer, session: str) -> None:
    counted = post(
        shipped,
        {"model": SONNET, "messages": [{"role": "user", "content": "x"}]},
        session,
        path="/v1/messages/count_tokens",
    )
    assert counted.status == 200 and set(counted.json()) == {"input_tokens"}
    bad = post(shipped, {"model": SONNET, "messages": []}, session, path="/v1/messages/count_tokens")
    assert error_of(bad, 400) == "messages: at least one message is required"
