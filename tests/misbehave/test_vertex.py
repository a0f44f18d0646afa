"""Every fault on the Vertex AI / Gemini face, through google-genai's generate_content and
generate_content_stream with a forced function (toolConfig ANY): the output is wrong in exactly
the named way, in Gemini's own terms (MALFORMED_FUNCTION_CALL, MAX_TOKENS, SAFETY); the SSE framing
stays valid, the same seed gives the same bytes, and the journal names the fault."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import orjson
import pytest
from google.genai import types

from tests.faces.vertex import helpers as vertex
from tests.misbehave.helpers import OPEN, SCHEMA, TOOL, misbehave
from tests.misbehave.test_asking import serve
from tests.support.polling import wait_for
from zenmux_emulator.core.draft.misbehave import EXTRA_PROPERTY
from zenmux_emulator.foundation.misbehaviours import CATALOGUE
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

CASES = [(kind.name, variant) for kind in CATALOGUE.values() for variant in kind.variants or ("",)]
GEMINI_TOOL = {"functionDeclarations": [{"name": TOOL, "parametersJsonSchema": SCHEMA}]}
FORCED = {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [TOOL]}}
MALFORMED_PREFIX = f"Malformed function call: call:default_api:{TOOL}"


@dataclass
class Seen:
    """A Gemini answer as the checks read it (a stream's responses gathered)."""

    calls: list[tuple[str | None, str, dict[str, Any]]] = field(default_factory=list)
    finish: str = ""
    message: str | None = None
    text: str = ""
    thoughts: str = ""
    blocked: bool = False


def config() -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name=TOOL, parameters_json_schema=SCHEMA)])],
        tool_config=types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(
                mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=[TOOL]
            )
        ),
        thinking_config=types.ThinkingConfig(include_thoughts=True),
    )


def gather(responses: list[types.GenerateContentResponse]) -> Seen:
    seen = Seen()
    for response in responses:
        candidate = (response.candidates or [])[0]
        for part in (candidate.content.parts if candidate.content else None) or ():
            if part.function_call is not None:
                call = part.function_call
                seen.calls.append((call.id, call.name or "", dict(call.args or {})))
            elif part.thought:
                seen.thoughts += part.text or ""
            elif part.text:
                seen.text += part.text
        if candidate.finish_reason is not None:
            seen.finish = candidate.finish_reason.value
            seen.message = candidate.finish_message
            seen.blocked = any(rating.blocked for rating in candidate.safety_ratings or ())
    return seen


def ask(server: EmulatorServer, session: str, headers: dict[str, str], *, stream: bool) -> Seen:
    client = vertex.client(server, session, vertexai=True)
    OPEN.append(client)
    options = types.HttpOptions(headers={SESSION_HEADER: session, **headers})
    made = config().model_copy(update={"http_options": options})
    if stream:
        return gather(list(client.models.generate_content_stream(model=vertex.MODEL, contents="weather", config=made)))
    return gather([client.models.generate_content(model=vertex.MODEL, contents="weather", config=made)])


def not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def check_tool_fault(fault: str, variant: str, seen: Seen) -> None:
    if fault == "tool-args-invalid-json":  # a call Gemini could not form: no part, the text in the message
        assert not seen.calls and seen.finish == "MALFORMED_FUNCTION_CALL", seen
        assert seen.message is not None and seen.message.startswith(MALFORMED_PREFIX), seen.message
        broken = seen.message.removeprefix(MALFORMED_PREFIX)
        assert not_json(broken), broken
        assert {
            "truncated": not broken.endswith("}"),
            "trailing-comma": broken.endswith(",}"),
            "single-quotes": "'" in broken,
        }[variant], broken
        return
    if fault == "stop-length-mid-tool":  # the cut call is never sent
        assert not seen.calls and seen.finish == "MAX_TOKENS" and seen.message is None, seen
        return
    assert seen.finish == "STOP" and seen.calls, seen
    ident, name, args = seen.calls[0]
    if fault == "tool-args-schema-violation":
        if variant == "not-object":  # Gemini's args is always an object: the JSON text rides in `value`
            assert set(args) == {"value"} and isinstance(json.loads(args["value"]), dict), args
        else:
            with pytest.raises(jsonschema.ValidationError) as refused:
                jsonschema.validate(args, SCHEMA)
            assert (
                refused.value.validator
                == {
                    "missing-required": "required",
                    "wrong-type": "type",
                    "extra-property": "additionalProperties",
                    "enum-mismatch": "enum",
                }[variant]
            ), refused.value
            if variant == "extra-property":
                assert args[EXTRA_PROPERTY] is True
    elif fault == "tool-unknown-name":
        assert name != TOOL and name.startswith(TOOL), name
    elif fault == "tool-call-id-duplicate":  # a first turn has no ids: the same call twice
        assert len(seen.calls) == 2 and seen.calls[1] == seen.calls[0] and ident is None, seen.calls


def check_reply_fault(fault: str, seen: Seen) -> None:
    assert not seen.calls and not seen.text, seen
    if fault == "empty-response":
        assert seen.finish == "STOP" and not seen.thoughts and seen.message is None, seen
    elif fault == "refusal":
        assert seen.finish == "SAFETY" and seen.message and not seen.thoughts and not seen.blocked, seen
    elif fault == "content-filter":
        assert seen.finish == "SAFETY" and seen.message is None and seen.blocked and not seen.thoughts, seen
    elif fault == "reasoning-only":
        assert seen.finish == "MAX_TOKENS" and seen.thoughts, seen


@pytest.mark.parametrize("stream", [False, True], ids=["generate", "stream"])
@pytest.mark.parametrize(("fault", "variant"), CASES)
def test_each_fault_in_geminis_terms(server: EmulatorServer, fault: str, variant: str, stream: bool) -> None:
    session = f"vertex-{fault}-{variant}-{stream}"
    seen = ask(server, session, misbehave(fault, variant), stream=stream)
    if CATALOGUE[fault].tool:
        check_tool_fault(fault, variant, seen)
    else:
        check_reply_fault(fault, seen)
    entry = wait_for(
        lambda: next((e for e in server.state.journal.entries(session=session) if e.finished is not None), None)
    )
    assert entry.status == 200 and not entry.warnings, entry.warnings
    assert entry.misbehaved is not None
    assert entry.misbehaved.as_dict() == {"fault": fault, "variant": variant, "source": "header"}
    assert entry.response_headers["X-Emulator-Misbehaved"] == (f"{fault};{variant}" if variant else fault)


def test_a_duplicate_id_where_the_conversation_uses_ids(server: EmulatorServer) -> None:
    earlier = {"role": "model", "parts": [{"functionCall": {"id": "call-1", "name": TOOL, "args": {"city": "Rome"}}}]}
    answered = {"role": "user", "parts": [{"functionResponse": {"id": "call-1", "name": TOOL, "response": {"t": 1}}}]}
    body = {
        "contents": [
            vertex.ask("weather")["contents"][0],
            earlier,
            answered,
            {"role": "user", "parts": [{"text": "weather again"}]},
        ],
        "tools": [GEMINI_TOOL],
        "toolConfig": FORCED,
    }
    answer = vertex.post(
        server, f"/v1beta/models/{vertex.MODEL}:generateContent", body, headers=misbehave("tool-call-id-duplicate")
    )
    assert answer.status == 200, answer.text
    parts = orjson.loads(answer.text)["candidates"][0]["content"]["parts"]
    ids = [part["functionCall"]["id"] for part in parts if "functionCall" in part]
    assert len(ids) == 2 and ids[0] == ids[1], parts


def sse(server: EmulatorServer, fault: str) -> bytes:
    body = {**vertex.ask("weather"), "tools": [GEMINI_TOOL], "toolConfig": FORCED}
    answer = vertex.post(
        server,
        f"/v1beta/models/{vertex.MODEL}:streamGenerateContent?alt=sse",
        body,
        headers={**misbehave(fault), SESSION_HEADER: "same"},
    )
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/event-stream")
    return answer.text.encode()


@pytest.mark.parametrize("fault", ["tool-args-invalid-json", "stop-length-mid-tool", "tool-args-schema-violation"])
def test_the_stream_is_valid_sse_and_the_same_seed_gives_the_same_bytes(fault: str) -> None:
    sent: list[bytes] = []
    for seed in (1, 1):
        with serve(seed=seed) as running:
            sent.append(sse(running, fault))
    assert sent[0] == sent[1]
    events = sent[0].split(b"\r\n\r\n")
    assert events[-1] == b"" and len(events) > 1
    responses = [orjson.loads(event.removeprefix(b"data: ")) for event in events[:-1]]
    assert all(event.startswith(b"data: {") for event in events[:-1])
    finishes = [r["candidates"][0].get("finishReason") for r in responses]
    assert finishes[:-1] == [None] * (len(finishes) - 1) and finishes[-1] is not None
