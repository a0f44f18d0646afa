"""The shape comparison of `drift` (zenmux_emulator/cli/drift/shape.py): pure functions, by example."""

from __future__ import annotations

from zenmux_emulator.cli.drift.report import Known
from zenmux_emulator.cli.drift.shape import (
    Answer,
    Difference,
    compare,
    compare_headers,
    compare_shapes,
    grammar,
    json_shape,
)

CHAT = {
    "id": "gen-1",
    "created": 1,
    "choices": [{"message": {"content": "hi", "tool_calls": [{"id": "call_a", "function": {"arguments": "{}"}}]}}],
    "usage": {"total_tokens": 3},
}


def test_paths_and_types_with_array_items_merged() -> None:
    shape = json_shape({"a": [{"b": 1}, {"b": None, "c": "x"}], "d": True})
    assert shape["$.a[].b"] == {"number", "null"}
    assert shape["$.a[].c"] == {"string"} and shape["$.d"] == {"boolean"}


def test_added_missing_and_retyped_by_path_and_nothing_below_an_added_field() -> None:
    upstream = json_shape({"new": {"deep": 1}, "created": "1", "kept": 2})
    emulator = json_shape({"old": 1, "created": 1, "kept": 3})
    assert compare_shapes(upstream, emulator) == [
        Difference("retyped", "$.created", "string", "number"),
        Difference("added", "$.new", "object"),
        Difference("missing", "$.old", "", "number"),
    ]


def test_values_texts_and_counts_are_not_compared() -> None:
    other = {**CHAT, "id": "gen-2", "created": 99, "usage": {"total_tokens": 1000}}
    other["choices"] = [
        {
            "message": {
                "content": "a longer text",
                "tool_calls": [{"id": "call_z", "function": {"arguments": '{"x": 1}'}}],
            }
        }
    ]
    assert compare(Answer(200, {}, CHAT), Answer(200, {}, other)) == []


def test_tool_call_arguments_as_an_object_id_format_and_parallel_calls() -> None:
    objects = {**CHAT, "choices": [{"message": {"tool_calls": [{"id": "toolu_1", "function": {"arguments": {}}}] * 2}}]}
    kinds = {(d.kind, d.path) for d in compare(Answer(200, {}, objects), Answer(200, {}, CHAT))}
    assert ("retyped", "$.choices[].message.tool_calls[].function.arguments") in kinds
    assert ("id-format", "$.choices[].message.tool_calls[].id") in kinds
    assert ("tool-calls", "tool_calls") in kinds
    assert ("missing", "$.choices[].message.content") in kinds


def test_headers_by_name_without_transport_or_emulator_ones() -> None:
    upstream = {
        "Date": "x",
        "X-ZenMux-RequestId": "1",
        "CF-Ray": "r",
        "Content-Type": "application/json; charset=utf-8",
    }
    emulator = {"X-Emulator-Journal": "j", "x-generation-id": "g", "Content-Type": "text/event-stream"}
    assert compare_headers(upstream, emulator) == [
        Difference("added", "header:x-zenmux-requestid"),
        Difference("missing", "header:x-generation-id"),
        Difference("retyped", "header:content-type", "application/json", "text/event-stream"),
    ]


def test_a_stream_s_grammar_folds_repeats_and_names_chat_chunks_by_what_they_carry() -> None:
    anthropic = [("message_start", {}), ("content_block_delta", {}), ("content_block_delta", {}), ("message_stop", {})]
    assert grammar(anthropic) == ["message_start", "content_block_delta+", "message_stop"]
    chat = [
        (None, {"choices": [{"delta": {"role": "assistant", "content": "a"}, "finish_reason": None}]}),
        (None, {"choices": [{"delta": {"content": "b"}, "finish_reason": None}]}),
        (None, {"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": {"total_tokens": 1}}),
        (None, "[DONE]"),
    ]
    assert grammar(chat) == ["chunk(role+content)", "chunk(content)", "chunk(finish+usage)", "[DONE]"]


def test_a_reordered_stream_and_a_renamed_error_are_named() -> None:
    first = [("message_start", {}), ("ping", {}), ("content_block_start", {})]
    second = [("message_start", {}), ("content_block_start", {}), ("ping", {})]
    [order] = compare(Answer(200, {}, events=first), Answer(200, {}, events=second))
    assert order == Difference(
        "stream-order", "events", "message_start ping content_block_start", "message_start content_block_start ping"
    )
    refused = compare(
        Answer(400, {}, {"error": {"type": "model_not_found", "code": "400"}}),
        Answer(400, {}, {"error": {"type": "invalid_params", "code": "400"}}),
    )
    assert refused == [Difference("error", "$.error.type", "model_not_found", "invalid_params")]
    assert compare(Answer(404, {}, {}), Answer(400, {}, {})) == [Difference("status", "status", "404", "400")]


def test_a_known_entry_matches_its_path_with_stars_and_its_optional_face_probe_and_kind() -> None:
    difference = Difference("added", "$.choices[].message.cost")
    assert Known("$.choices[].*").allows("chat", "plain", difference)
    assert not Known("$.choices[].*", face="anthropic").allows("chat", "plain", difference)
    assert not Known("$.choices[].message.cost", kind="missing").allows("chat", "plain", difference)
    assert not Known("$.choices").allows("chat", "plain", difference)
