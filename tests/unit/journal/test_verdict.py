"""journal/verdict.py: client findings read from a session's journal entries."""

from __future__ import annotations

import orjson

from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.journal.verdict import verdict

CHAT = "/api/v1/chat/completions"


def entry(seq: int, body: dict[str, object], *, status: int = 200, response: object = None, arrived: float = 0.0,
          **more: object) -> JournalEntry:
    raw = orjson.dumps(response) if isinstance(response, dict) else response
    return JournalEntry(seq=seq, request_id=str(seq), time=0, method="POST", path=CHAT, api="chat", received_headers={}, body=body,
                        status=status, response=raw, arrived=arrived, **more)  # type: ignore[arg-type]


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
    events = [b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"s1","type":"function",'
              b'"function":{"name":"f","arguments":""}}]}}]}\n\n', b"data: [DONE]\n\n"]
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


def test_repeating_a_request_that_got_a_non_retryable_error_is_found() -> None:
    bad = entry(1, {"model": "x"}, status=400)
    [finding] = verdict([bad, entry(2, {"model": "y"}), entry(3, {"model": "x"})])
    assert (finding.check, finding.seq) == ("non_retryable", 3)
    assert verdict([entry(1, {"model": "x"}, status=500), entry(2, {"model": "x"})]) == []


def test_reasoning_rejections_and_unmet_expectations_are_findings() -> None:
    rejected = entry(1, {"turn": 1}, status=422, error_type="provider_unprocessable_entity_error")
    warned = entry(2, {"turn": 2}, warnings=["reasoning check: messages.1.content.0: Invalid `signature` in `thinking` block"])
    unmet = entry(3, {}, unmet_expectations=["r: expected body.temperature equals 0, got 1"])
    assert [(f.check, f.seq) for f in verdict([rejected, warned, unmet])] == [
        ("reasoning", 1), ("reasoning", 2), ("expectations", 3)]
