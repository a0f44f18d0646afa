"""§4.6: the SSE events, and the stream merged by the SDK's rules equals the unary body."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from zenmux_emulator.faces.objectiveai import render

from .examples import (
    ID_A,
    ID_B,
    ID_D,
    ID_E,
    REQUEST_A,
    REQUEST_B,
    REQUEST_D,
    REQUEST_E,
    SCRIPT_A,
    SCRIPT_B,
    SCRIPT_D,
    SCRIPT_E,
    llm,
)
from .helpers import close, events_json, run
from .merge import as_unary, comparable, merge

TOOLS_REQUEST: dict[str, Any] = {
    "messages": [{"role": "user", "content": "weather?"}],
    "model": {"models": [llm("a/x", "generate", 1), llm("b/y", "generate", 1)], "weight": {"type": "static"}},
    "tools": [{"type": "function", "function": {"name": "get_weather"}}],
}
TOOLS_SCRIPT: dict[str, Any] = {
    "llms": [
        {
            "match": {"id": "a/*"},
            "output": {
                "reasoning": "Look it up.",
                "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
                "usage": {"reasoning_tokens": 3},
            },
        },
        {"match": {"id": "b/*"}, "outputs": [{"refusal": "No."}]},
    ]
}

CASES = [
    (REQUEST_A, SCRIPT_A, ID_A, 1),
    (REQUEST_A, SCRIPT_A, ID_A, 8),
    (REQUEST_D, SCRIPT_D, ID_D, 1),
    (REQUEST_B, SCRIPT_B, ID_B, 8),
    (REQUEST_B, SCRIPT_B, ID_B, 1),
    ({**REQUEST_B, "n": 2}, SCRIPT_B, ID_B, 2),
    (REQUEST_E, SCRIPT_E, ID_E, 8),
    (TOOLS_REQUEST, TOOLS_SCRIPT, ID_A, 1),
    (REQUEST_D, None, ID_D, 1),
]


@pytest.mark.parametrize(("body", "script", "rid", "chunk_tokens"), CASES)
def test_merged_stream_equals_unary(
    body: dict[str, Any], script: dict[str, Any] | None, rid: str, chunk_tokens: int
) -> None:
    outcome = run(body, script, rid, chunk_tokens=chunk_tokens)
    items = events_json(render.stream_events(outcome))
    chunks = [item for item in items if "choices" in item]
    assert all(item.get("object") == "chat.completion.chunk" for item in chunks)
    assert all("error" not in item for item in chunks)  # a top-level "error" would make the SDKs throw
    close(comparable(as_unary(merge(chunks))), comparable(render.unary_json(outcome)))


def test_example_d_schedule() -> None:
    items = events_json(render.stream_events(run(REQUEST_D, SCRIPT_D, ID_D)))
    first = items[0]
    assert [c["index"] for c in first["choices"]] == [0, 1]
    assert first["choices"][1]["delta"] == {"role": "assistant", "content": '{"approved":true}'}
    assert first["choices"][1]["finish_reason"] == "stop" and first["choices"][1]["model_index"] is None
    final = items[-1]
    assert "usage" in final and all(c["finish_reason"] is None and c["delta"] == {} for c in final["choices"])
    assert [c["index"] for c in final["choices"]] == [0, 1, 2, 3]
    assert "usage" not in final["choices"][0]["completion_metadata"]
    assert final["choices"][2]["completion_metadata"]["usage"]["prompt_tokens"] == 52
    assert all("usage" not in item for item in items[:-1])
    # select phase: one choice per chunk, round-robin by index, finish event carries the confidence id
    middle = [item["choices"][0] for item in items[1:-1]]
    assert all(len(item["choices"]) == 1 for item in items[1:-1])
    assert middle[0]["index"] == 2 and middle[1]["index"] == 3 and middle[0]["delta"]["role"] == "assistant"
    assert middle[-1]["confidence_id"] == {"4Zjy6BMklNXwutCtXC5nOT": 0.9, "27emL2kxexyY2vYDZIMWPm": 0.1}
    assert all("confidence" not in c for c in middle)


def test_generate_phase_is_round_robin_and_before_select() -> None:
    items = events_json(render.stream_events(run(REQUEST_B, SCRIPT_B, ID_B, chunk_tokens=1)))
    order = [item["choices"][0]["index"] for item in items[:-1]]
    # mini "Paris." = 2 pieces + finish, nano "Paris" = 1 piece + finish, gemini = finish only
    assert order[:5] == [0, 1, 2, 0, 1]
    assert max(order[: order.index(3)]) <= 2 and set(order[order.index(3) :]) == {3, 4}
    gemini = [item["choices"][0] for item in items[:-1] if item["choices"][0]["index"] == 2]
    assert gemini == [
        {
            "delta": {},
            "finish_reason": "error",
            "index": 2,
            "confidence_weight": 1.0,
            "error": {"code": 502, "message": "Bad Gateway"},
            "model": "7W051ct7yeEWFZczC98xKl",
            "model_index": 4,
            "completion_metadata": {
                "id": gemini[0]["completion_metadata"]["id"],
                "created": 1767225600,
                "model": "google/gemini-2.5-flash",
            },
        }
    ]
    nano = [item["choices"][0] for item in items[:-1] if item["choices"][0]["index"] == 1]
    assert all(c["completion_metadata"]["provider"] == "OpenAI" for c in nano)
    final = items[-1]["choices"]
    assert "confidence" not in final[2] and final[1]["confidence"] == pytest.approx(0.7, abs=1e-9)


def test_mid_stream_failure_and_all_failed_item() -> None:
    events = render.stream_events(run(REQUEST_E, SCRIPT_E, ID_E, chunk_tokens=8))
    items = events_json(events)
    assert items[0]["choices"][0]["delta"] == {"role": "assistant", "content": "Hello"}
    assert items[1]["choices"][0]["finish_reason"] == "error"
    assert items[1]["choices"][0]["error"] == {
        "code": 429,
        "message": {"kind": "provider", "message": "Rate limit exceeded", "metadata": None},
    }
    assert items[2]["usage"] == {"completion_tokens": 0, "prompt_tokens": 0, "total_tokens": 0}
    assert items[3] == {
        "code": 429,
        "message": {
            "kind": "query",
            "error": {"kind": "all_choices_failed", "error": "all choices failed, see choices for further details"},
        },
    }
    assert len(items) == 4
    assert events[3] == b"data: " + orjson.dumps(items[3]) + b"\n\n"


def test_chunk_top_level_keys() -> None:
    items = events_json(render.stream_events(run(REQUEST_A, SCRIPT_A, ID_A)))
    assert all(list(item) == ["id", "choices", "created", "model", "object"] for item in items[:-1])
    assert list(items[-1]) == ["id", "choices", "created", "model", "object", "usage"]
    choice = items[0]["choices"][0]
    assert list(choice) == [
        "delta",
        "finish_reason",
        "index",
        "confidence_weight",
        "model",
        "model_index",
        "completion_metadata",
    ]
