"""core/journal/verdict.py: client findings read from a session's journal entries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import orjson

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Finding
from zenmux_emulator.core.journal.verdict import verdict as read_verdict
from zenmux_emulator.core.spec import readers_of
from zenmux_emulator.faces.shipped import FACES


def verdict(entries: Iterable[JournalEntry]) -> list[Finding]:
    """The verdict with the shipped faces' readers, as each face's `FaceSpec` registers them."""
    return read_verdict(entries, readers_of(FACES))


PATHS = {
    "chat": "/api/v1/chat/completions",
    "anthropic": "/api/anthropic/v1/messages",
    "responses": "/api/v1/responses",
}


def entry(
    seq: int,
    body: Mapping[str, object],
    *,
    status: int = 200,
    response: object = None,
    arrived: float = 0.0,
    api: str = "chat",
    **more: object,
) -> JournalEntry:
    raw = orjson.dumps(response) if isinstance(response, dict) else response
    made = JournalEntry(
        seq=seq, request_id=str(seq), time=0, method="POST", path=PATHS[api], received_headers={}, arrived=arrived
    )
    for name, value in {"api": api, "body": body, "status": status, "response": raw, **more}.items():
        setattr(made, name, value)
    return made


def with_calls(*ids: str) -> dict[str, object]:
    calls = [{"id": i, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}} for i in ids]
    return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": calls}}]}


def answering(*ids: str) -> dict[str, object]:
    return {"messages": [{"role": "tool", "tool_call_id": i, "content": "x"} for i in ids]}


def test_a_well_behaved_agent_loop_has_no_findings() -> None:
    entries = [entry(1, {"messages": []}, response=with_calls("a", "b")), entry(2, answering("a", "b"))]
    assert verdict(entries) == []


def test_a_tool_call_never_answered_is_found() -> None:
    entries = [entry(1, {"messages": []}, response=with_calls("a", "b")), entry(2, answering("a"))]
    [finding] = verdict(entries)
    assert (finding.check, finding.seq) == ("tool_calls", 1)
    assert "b (get_weather) was never answered" in finding.message


def test_streamed_tool_calls_count_too() -> None:
    events = [
        b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"s1","type":"function",'
        b'"function":{"name":"f","arguments":""}}]}}]}\n\n',
        b"data: [DONE]\n\n",
    ]
    [finding] = verdict([entry(1, {"messages": []}, response=events, events_sent=2)])
    assert finding.check == "tool_calls" and "s1 (f)" in finding.message


def test_a_retry_before_retry_after_is_found_and_a_patient_one_is_not() -> None:
    limited = entry(1, {"messages": [1]}, status=429, arrived=100.0, sent_headers={"Retry-After": "2"})
    early = verdict([limited, entry(2, {"messages": [1]}, arrived=101.0)])
    assert [(f.check, f.seq) for f in early] == [("retry_after", 2)]
    assert "1.00s before the Retry-After of request #1" in early[0].message
    assert verdict([limited, entry(2, {"messages": [1]}, arrived=102.5)]) == []
    in_ms = entry(1, {"messages": [1]}, status=429, arrived=100.0, sent_headers={"retry-after-ms": "500"})
    assert verdict([in_ms, entry(2, {"messages": [1]}, arrived=100.6)]) == []


def test_a_retry_after_waited_on_the_emulator_s_clock_is_patient() -> None:
    """A test with fake time advances the emulator's frozen clock instead of sleeping: the Retry-After
    ran out on the emulator's clock, though a tenth of a second passed on the wall (issue 37 item 4)."""
    limited = entry(1, {"messages": [1]}, status=429, arrived=100.0, time=1000, sent_headers={"Retry-After": "30"})
    assert verdict([limited, entry(2, {"messages": [1]}, arrived=100.1, time=1030)]) == []
    early = verdict([limited, entry(2, {"messages": [1]}, arrived=100.1, time=1010)])
    assert [(f.check, f.seq) for f in early] == [("retry_after", 2)]
    assert "sent 20.00s before" in early[0].message


def test_repeating_a_request_that_got_a_non_retryable_error_is_found() -> None:
    bad = entry(1, {"model": "x"}, status=400)
    [finding] = verdict([bad, entry(2, {"model": "y"}), entry(3, {"model": "x"})])
    assert (finding.check, finding.seq) == ("non_retryable", 3)
    assert verdict([entry(1, {"model": "x"}, status=500), entry(2, {"model": "x"})]) == []


def test_reasoning_rejections_and_unmet_expectations_are_findings() -> None:
    rejected = entry(
        1,
        {"turn": 1},
        status=400,
        error_type="invalid_params",
        response=error(400, "invalid_params", "messages.1.content.0: Invalid `signature` in `thinking` block"),
    )
    warned = entry(
        2, {"turn": 2}, warnings=["reasoning check: messages.1.content.0: Invalid `signature` in `thinking` block"]
    )
    unmet = entry(3, {}, unmet_expectations=["r: expected body.temperature equals 0, got 1"])
    assert [(f.check, f.seq) for f in verdict([rejected, warned, unmet])] == [
        ("reasoning", 1),
        ("reasoning", 2),
        ("expectations", 3),
    ]


# --- Anthropic: tool_use blocks answered by tool_result blocks -----------------------------------------


def anthropic_calls(*ids: str) -> dict[str, object]:
    return {
        "type": "message",
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "Let me check."}]
        + [{"type": "tool_use", "id": i, "name": "get_weather", "input": {}} for i in ids],
    }


def anthropic_answering(*ids: str) -> dict[str, object]:
    return {
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": i, "name": "get_weather", "input": {}} for i in ids],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": i, "content": "x"} for i in ids]},
        ]
    }


def test_anthropic_tool_use_never_answered_is_found_and_an_answered_one_is_not() -> None:
    first = entry(1, {"messages": []}, api="anthropic", response=anthropic_calls("toolu_a", "toolu_b"))
    assert verdict([first, entry(2, anthropic_answering("toolu_a", "toolu_b"), api="anthropic")]) == []
    [finding] = verdict([first, entry(2, anthropic_answering("toolu_a"), api="anthropic")])
    assert (finding.check, finding.seq) == ("tool_calls", 1)
    assert "toolu_b (get_weather) was never answered" in finding.message


def test_anthropic_streamed_tool_use_counts_until_a_tool_result_answers_it() -> None:
    events = [
        b'event: message_start\ndata: {"type":"message_start","message":{"content":[]}}\n\n',
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"tool_use","id":"toolu_s","name":"Bash","input":{}}}\n\n',
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ]
    streamed = entry(1, {"messages": []}, api="anthropic", response=events, events_sent=3)
    [finding] = verdict([streamed, entry(2, anthropic_answering("toolu_other"), api="anthropic")])
    assert finding.check == "tool_calls" and "toolu_s (Bash)" in finding.message
    assert verdict([streamed, entry(2, anthropic_answering("toolu_s"), api="anthropic")]) == []


# --- Responses: function_call / custom_tool_call items answered by *_output items ----------------------


def responses_calls(*ids: str) -> dict[str, object]:
    return {
        "object": "response",
        "status": "completed",
        "output": [{"type": "reasoning", "id": "rs_1", "summary": []}]
        + [
            {"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": "get_weather", "arguments": "{}"}
            for i in ids
        ],
    }


def responses_answering(*ids: str) -> dict[str, object]:
    return {
        "input": [{"role": "user", "content": "weather?"}]
        + [{"type": "function_call_output", "call_id": i, "output": "x"} for i in ids]
    }


def test_responses_function_call_never_answered_is_found_and_an_answered_one_is_not() -> None:
    first = entry(1, {"input": "weather?"}, api="responses", response=responses_calls("call_a", "call_b"))
    assert verdict([first, entry(2, responses_answering("call_a", "call_b"), api="responses")]) == []
    [finding] = verdict([first, entry(2, responses_answering("call_b"), api="responses")])
    assert (finding.check, finding.seq) == ("tool_calls", 1)
    assert "call_a (get_weather) was never answered" in finding.message
    chained = {
        "previous_response_id": "resp_1",
        "input": [
            {"type": "function_call_output", "call_id": "call_a", "output": "x"},
            {"type": "function_call_output", "call_id": "call_b", "output": "y"},
        ],
    }
    assert verdict([first, entry(2, chained, api="responses")]) == []


def test_responses_streamed_calls_count_once_each_from_their_done_events() -> None:
    item = {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c", "name": "apply_patch", "input": "x"}
    events = [
        b"event: response.output_item.added\ndata: "
        + orjson.dumps({"type": "response.output_item.added", "sequence_number": 0, "item": item})
        + b"\n\n",
        b"event: response.output_item.done\ndata: "
        + orjson.dumps({"type": "response.output_item.done", "sequence_number": 1, "item": item})
        + b"\n\n",
        b"event: response.completed\ndata: "
        + orjson.dumps({"type": "response.completed", "sequence_number": 2, "response": {"output": [item]}})
        + b"\n\n",
    ]
    streamed = entry(1, {"input": "patch it"}, api="responses", response=events, events_sent=3)
    [finding] = verdict([streamed])
    assert finding.check == "tool_calls" and "call_c (apply_patch)" in finding.message
    answer = {"input": [{"type": "custom_tool_call_output", "call_id": "call_c", "output": "done"}]}
    assert verdict([streamed, entry(2, answer, api="responses")]) == []
    assert verdict([entry(1, {"input": "patch it"}, api="responses", response=events, events_sent=1)]) == []


# --- errors and reasoning on the other faces -----------------------------------------------------------


def error(status: int, kind: str, message: str) -> bytes:
    return orjson.dumps({"error": {"code": str(status), "type": kind, "message": message}})


def test_signed_reasoning_rejections_on_the_anthropic_and_responses_faces_are_findings() -> None:
    """The same 400 on every face; any other 400 (even on chat) is no reasoning finding."""
    thinking = entry(
        1,
        {"messages": [1]},
        api="anthropic",
        status=400,
        error_type="invalid_params",
        response=error(400, "invalid_params", "messages.1.content.0: Invalid `signature` in `thinking` block"),
    )
    encrypted = entry(
        2,
        {"input": [1]},
        api="responses",
        status=400,
        error_type="invalid_params",
        response=error(
            400,
            "invalid_params",
            "input.1.encrypted_content: The encrypted content for item rs_1 could not be verified.",
        ),
    )
    other = entry(
        3,
        {"input": [2]},
        api="responses",
        status=400,
        error_type="invalid_params",
        response=error(400, "invalid_params", "input: Field required"),
    )
    plain = entry(
        4,
        {"messages": [2]},
        status=400,
        error_type="invalid_params",
        response=error(400, "invalid_params", "messages.0.content: Field required"),
    )
    findings = verdict([thinking, encrypted, other, plain])
    assert [(f.check, f.seq) for f in findings if f.check == "reasoning"] == [("reasoning", 1), ("reasoning", 2)]
    assert "Invalid `signature` in `thinking` block" in findings[0].message
    assert "rs_1 could not be verified" in findings[1].message


def test_retry_after_and_non_retryable_hold_on_every_face() -> None:
    for api, body in (("anthropic", {"messages": [1]}), ("responses", {"input": "x"})):
        limited = entry(1, body, api=api, status=429, arrived=100.0, sent_headers={"retry-after": "2"})
        assert [(f.check, f.seq) for f in verdict([limited, entry(2, body, api=api, arrived=100.5)])] == [
            ("retry_after", 2)
        ]
        bad = entry(
            1,
            body,
            api=api,
            status=400,
            error_type="invalid_params",
            response=error(400, "invalid_params", "max_tokens: Field required"),
        )
        assert [(f.check, f.seq) for f in verdict([bad, entry(2, body, api=api)])] == [("non_retryable", 2)]
