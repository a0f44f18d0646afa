"""The pytest plugin's `zenmux` handle with a Responses client: the face shares the chat base URL,
so `zenmux.openai_client()` and `zenmux.base_url` reach it, and the journal, near misses and rule
checks see its requests."""

from __future__ import annotations

from tests.faces.responses.helpers import MODEL, WEATHER_TOOL


def test_the_handle_drives_the_responses_face(zenmux):
    zenmux.add_rule(
        "call",
        match={"api": "responses", "tools": ["get_weather"], "tool_result": False},
        reply={"tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}]},
    )
    zenmux.add_rule(
        "answer",
        match={"tool_result": {"name": "get_weather"}},
        reply={"content": "{{ request.tool_result.content }} in Rome"},
    )
    client = zenmux.openai_client()
    assert zenmux.base_url.endswith("/api/v1")
    first = client.responses.create(model=MODEL, input="weather?", tools=[WEATHER_TOOL])
    second = client.responses.create(
        model=MODEL,
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": first.output[0].call_id, "output": "Warm"}],
    )
    assert second.output_text == "Warm in Rome"
    assert [(e.path, e.api, e.rule) for e in zenmux.requests] == [
        ("/api/v1/responses", "responses", "call"),
        ("/api/v1/responses", "responses", "answer"),
    ]
    assert zenmux.requests[0].body["tools"] == [WEATHER_TOOL]
    zenmux.assert_all_rules_used()
    zenmux.assert_client_well_behaved()


def test_unmatched_responses_requests_show_their_near_misses(zenmux):
    zenmux.add_rule("pirates", match={"system": "pirate"}, reply={"content": "arr"})
    client = zenmux.openai_client()
    assert client.responses.create(model=MODEL, input="hello", instructions="Be polite.").output_text != "arr"
    [entry] = zenmux.unmatched()
    assert entry.api == "responses" and entry.near_misses[0]["rule"] == "pirates"
