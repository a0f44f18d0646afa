"""Errors over HTTP: ZenMux's envelope `{"error": {"code", "type", "message"}}` with the exact
documented messages, the SDK's exception classes, and ignored fields reported as warnings."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import aiohttp
import openai
import pytest

from tests.conftest import API_KEY
from tests.faces.chat.contract.helpers import ACCESS_DENIED, MODEL, SESSION_HEADER, assert_envelope, chat, post, request
from tests.support.bodies import user
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

USER = user("x")

OPEN_YAML = """
rules:
  - name: anything
    match: {}
    reply: {content: "ok"}
"""


def invalid(response, message: str) -> None:
    assert_envelope(response, 400, "invalid_params", message)


# --- authentication (contract §2) ------------------------------------------------------------


def test_missing_key_is_403_access_denied(shipped: EmulatorServer) -> None:
    assert_envelope(post(shipped, chat("hello"), key=None), 403, "access_denied", ACCESS_DENIED)


@pytest.mark.parametrize("authorization", ["Basic c2stYWk6eA==", "Bearer ", "Bearer", "sk-ai-v1-no-scheme"])
def test_malformed_authorization_is_403(shipped: EmulatorServer, authorization: str) -> None:
    response = post(shipped, chat("hello"), key=None, headers={"Authorization": authorization})
    assert_envelope(response, 403, "access_denied", ACCESS_DENIED)


@pytest.mark.parametrize("header", ["x-api-key", "x-goog-api-key", "X-Api-Key"])
def test_alternative_key_headers_are_accepted(shipped: EmulatorServer, session: str, header: str) -> None:
    response = post(shipped, chat("hello alt key"), key=None, session=session, headers={header: "sk-ai-v1-alt"})
    assert response.status == 200, response.body
    assert response.json()["choices"][0]["message"]["content"] == "Hi hello alt key! How can I help?"


def test_server_api_keys_reject_other_keys(make_server) -> None:
    server = make_server(OPEN_YAML, api_keys=["k1"])
    assert post(server, chat("hi"), key="k1").status == 200
    assert post(server, chat("hi"), key=None, headers={"x-api-key": "k1"}).status == 200
    assert_envelope(post(server, chat("hi"), key="k2"), 403, "access_denied", ACCESS_DENIED)
    assert_envelope(post(server, chat("hi"), key=None, headers={"x-api-key": "k2"}), 403, "access_denied")
    assert_envelope(post(server, chat("hi"), key=None), 403, "access_denied", ACCESS_DENIED)


def test_scenario_api_keys_restrict_too(make_server) -> None:
    server = make_server("settings: {api_keys: [k2]}\n" + OPEN_YAML)
    assert post(server, chat("hi"), key="k2").status == 200
    assert_envelope(post(server, chat("hi"), key="k1"), 403, "access_denied", ACCESS_DENIED)


def test_sdk_raises_permission_denied_with_the_envelope(make_server) -> None:
    server = make_server(OPEN_YAML, api_keys=["k1"])
    with sdk(server, "errors", api_key="wrong") as client, pytest.raises(openai.PermissionDeniedError) as caught:
        client.chat.completions.create(model=MODEL, messages=USER)
    exc = caught.value
    assert exc.status_code == 403
    assert exc.response.json() == {"error": {"code": "403", "type": "access_denied", "message": ACCESS_DENIED}}
    assert exc.body == {"code": "403", "type": "access_denied", "message": ACCESS_DENIED}
    assert exc.code == "403" and exc.type == "access_denied"


# --- bodies that are not a JSON object --------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "Request body is empty: expected a JSON object"),
        (b"   \n", "Request body is empty: expected a JSON object"),
        (b'[{"model": "openai/gpt-5"}]', "Request body must be a JSON object"),
        (b'"a string"', "Request body must be a JSON object"),
        (b"null", "Request body must be a JSON object"),
        (b"42", "Request body must be a JSON object"),
    ],
    ids=["empty", "blank", "array", "string", "null", "number"],
)
def test_body_that_is_not_an_object_is_400(shipped: EmulatorServer, raw: bytes, message: str) -> None:
    invalid(post(shipped, None, raw=raw, headers={"Content-Type": "application/json"}), message)


@pytest.mark.parametrize(
    "raw", [b"{not json", b'{"model": "openai/gpt-5",}', b"\xff\xfe{}"], ids=["garbage", "trailing-comma", "bad-utf8"]
)
def test_body_that_is_not_json_is_400(shipped: EmulatorServer, raw: bytes) -> None:
    error = assert_envelope(post(shipped, None, raw=raw), 400, "invalid_params")
    assert error["message"].startswith("Request body is not valid JSON")


# --- the documented 400 messages (contract §1.3) ---------------------------------------------

DOCUMENTED = [
    ("model-missing", {"messages": USER}, "Parameter model is required"),
    ("model-empty", {"model": "", "messages": USER}, "Parameter model is required"),
    ("model-null", {"model": None, "messages": USER}, "Parameter model is required"),
    ("messages-missing", {"model": MODEL}, "Parameter messages is required"),
    ("messages-null", {"model": MODEL, "messages": None}, "Parameter messages is required"),
    ("messages-empty", {"model": MODEL, "messages": []}, "Parameter messages can not be empty"),
    (
        "messages-null-element",
        {"model": MODEL, "messages": [*USER, None]},
        "Parameter messages can not contain null elements",
    ),
    (
        "message-without-content",
        {"model": MODEL, "messages": [{"role": "user"}]},
        "Parameter messages can not contain elements without content",
    ),
    (
        "message-null-content",
        {"model": MODEL, "messages": [{"role": "user", "content": None}]},
        "Parameter messages can not contain elements without content",
    ),
    (
        "stream_options-without-stream",
        chat("x", stream_options={"include_usage": True}),
        "Parameter stream_options is not supported while stream is false",
    ),
    (
        "stream_options-stream-false",
        chat("x", stream=False, stream_options={"include_usage": True}),
        "Parameter stream_options is not supported while stream is false",
    ),
    ("n-2", chat("x", n=2), "Parameter n grater than 1 is not supported"),
    ("temperature-negative", chat("x", temperature=-1), "Parameter temperature is not valid"),
    (
        "include_usage-conflict",
        chat("x", stream=True, stream_options={"include_usage": True}, usage={"include": False}),
        "Parameter stream_options.include_usage conflict with usage.include",
    ),
    (
        "include_usage-conflict-reversed",
        chat("x", stream=True, stream_options={"include_usage": False}, usage={"include": True}),
        "Parameter stream_options.include_usage conflict with usage.include",
    ),
    (
        "include_reasoning-conflict",
        chat("x", include_reasoning=True, reasoning={"exclude": True}),
        "Parameter include_reasoning conflict with reasoning.exclude",
    ),
    (
        "include_reasoning-conflict-reversed",
        chat("x", include_reasoning=False, reasoning={"exclude": False}),
        "Parameter include_reasoning conflict with reasoning.exclude",
    ),
    (
        "routing-type",
        chat("x", provider={"routing": {"type": "fastest"}}),
        "Parameter type of provider.routing is not valid",
    ),
    (
        "routing-type-missing",
        chat("x", provider={"routing": {"providers": ["openai"]}}),
        "Parameter type of provider.routing is not valid",
    ),
    (
        "routing-providers-empty",
        chat("x", provider={"routing": {"type": "priority", "providers": []}}),
        "Parameter providers of provider.routing is not valid",
    ),
]


@pytest.mark.parametrize(("body", "message"), [(b, m) for _, b, m in DOCUMENTED], ids=[i for i, _, _ in DOCUMENTED])
def test_documented_validation_messages(shipped: EmulatorServer, body: dict[str, Any], message: str) -> None:
    invalid(post(shipped, body), message)


# --- messages naming a nested path ------------------------------------------------------------

NESTED = [
    (
        "bad-content-part",
        {"model": MODEL, "messages": [{"role": "user", "content": [{"type": "video", "video": {}}]}]},
        "Parameter messages[0].content[0].type is not valid: "
        "expected one of 'text', 'image_url', 'input_audio', 'file', got 'video'",
    ),
    (
        "five-stop-sequences",
        chat("x", stop=["a", "b", "c", "d", "e"]),
        "Parameter stop is not valid: at most 4 stop sequences are allowed",
    ),
    (
        "seventeen-metadata-pairs",
        chat("x", metadata={f"k{i}": "v" for i in range(17)}),
        "Parameter metadata is not valid: at most 16 key-value pairs are allowed, got 17",
    ),
    (
        "metadata-key-too-long",
        chat("x", metadata={"k" * 65: "v"}),
        "Parameter metadata is not valid: keys must be at most 64 characters",
    ),
    (
        "metadata-value-too-long",
        chat("x", metadata={"k": "v" * 513}),
        "Parameter metadata is not valid: values must be at most 512 characters",
    ),
    (
        "top_logprobs-21",
        chat("x", logprobs=True, top_logprobs=21),
        "Parameter top_logprobs is not valid: expected an integer between 0 and 20, got 21",
    ),
    (
        "json-schema-name",
        chat("x", response_format={"type": "json_schema", "json_schema": {"name": "bad name!"}}),
        "Parameter response_format.json_schema.name is not valid: "
        "expected a string matching ^[a-zA-Z0-9_-]{1,64}$, got 'bad name!'",
    ),
]


@pytest.mark.parametrize(("body", "message"), [(b, m) for _, b, m in NESTED], ids=[i for i, _, _ in NESTED])
def test_nested_validation_messages_name_the_path(shipped: EmulatorServer, body: dict[str, Any], message: str) -> None:
    invalid(post(shipped, body), message)


ACCEPTED_AT_THE_LIMIT = [
    ("four-stop-sequences", chat("x", stop=["a", "b", "c", "d"])),
    ("sixteen-metadata-pairs", chat("x", metadata={f"k{i}": "v" for i in range(16)})),
    ("metadata-at-64-and-512", chat("x", metadata={"k" * 64: "v" * 512})),
    ("top_logprobs-20", chat("x", logprobs=True, top_logprobs=20)),
    ("n-1", chat("x", n=1)),
    ("temperature-0", chat("x", temperature=0)),
    ("temperature-above-2", chat("x", temperature=2.5)),
    ("agreeing-usage-flags", chat("x", stream=True, stream_options={"include_usage": True}, usage={"include": True})),
    ("agreeing-reasoning-flags", chat("x", include_reasoning=True, reasoning={"exclude": False})),
    (
        "routing-order-with-providers",
        chat("x", provider={"routing": {"type": "order", "providers": ["openai/openai"]}}),
    ),
]


@pytest.mark.parametrize("body", [b for _, b in ACCEPTED_AT_THE_LIMIT], ids=[i for i, _ in ACCEPTED_AT_THE_LIMIT])
def test_values_at_the_documented_limits_are_accepted(
    shipped: EmulatorServer, session: str, body: dict[str, Any]
) -> None:
    response = post(shipped, body, session=session)
    assert response.status == 200, response.body


MALFORMED = [
    ("model-number", {"model": 5, "messages": USER}),
    ("messages-string", {"model": MODEL, "messages": "hi"}),
    ("message-number", {"model": MODEL, "messages": [1]}),
    ("unknown-role", {"model": MODEL, "messages": [{"role": "wizard", "content": "x"}]}),
    ("stream-string", chat("x", stream="yes")),
    ("tools-garbage", chat("x", tools=[{"type": "function"}])),
    ("tool_choice-garbage", chat("x", tool_choice={"type": "function"})),
    ("max_completion_tokens-zero", chat("x", max_completion_tokens=0)),
    ("max_completion_tokens-string", chat("x", max_completion_tokens="10")),
    ("top_p-above-1", chat("x", top_p=1.5)),
    ("penalty-above-2", chat("x", presence_penalty=3)),
    ("logit_bias-above-100", chat("x", logit_bias={"50256": 101})),
    ("reasoning_effort-number", chat("x", reasoning_effort=7)),
    ("metadata-not-strings", chat("x", metadata={"a": 1})),
    ("image-without-url", {"model": MODEL, "messages": [{"role": "user", "content": [{"type": "image_url"}]}]}),
    ("tool-message-without-id", {"model": MODEL, "messages": [*USER, {"role": "tool", "content": "r"}]}),
]


@pytest.mark.parametrize("body", [b for _, b in MALFORMED], ids=[i for i, _ in MALFORMED])
def test_malformed_requests_are_400_never_500(shipped: EmulatorServer, body: dict[str, Any]) -> None:
    error = assert_envelope(post(shipped, body), 400, "invalid_params")
    assert error["message"].startswith("Parameter ")


def test_sdk_raises_bad_request_with_the_envelope(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=MODEL, messages=USER, temperature=-1)
    exc = caught.value
    expected = {"code": "400", "type": "invalid_params", "message": "Parameter temperature is not valid"}
    assert exc.status_code == 400
    assert exc.response.json() == {"error": expected}
    assert exc.body == expected
    assert exc.type == "invalid_params"


def test_rejected_requests_do_not_advance_reply_sequences(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=MODEL, messages=user("retry me"), n=2)
    assert client.chat.completions.create(model=MODEL, messages=user("retry me")).choices[0].message.content == "first"


# --- size limits and models ------------------------------------------------------------------


def test_oversized_body_is_413_in_the_envelope(make_server) -> None:
    server = make_server(OPEN_YAML, max_body_bytes=2048)
    response = post(server, chat("x" * 4000))
    error = assert_envelope(response, 413, "invalid_params")
    assert "2048" in error["message"]


def _post_in_two_parts(server: EmulatorServer, body: bytes) -> tuple[int, dict[str, Any]]:
    """POST `body` over a raw socket, its second half sent after a pause: the server starts on
    the request before the body is complete. Returns the status and the JSON answer."""
    head = (
        f"POST /api/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {API_KEY}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    half = len(body) // 2
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head + body[:half])
        time.sleep(0.3)
        sock.sendall(body[half:])
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


@pytest.mark.parametrize("text, status", [("x" * 4000, 413), ("x" * 1500, 200)])
def test_a_body_that_arrives_late_meets_the_same_size_limit(make_server, text: str, status: int) -> None:
    server = make_server(OPEN_YAML, max_body_bytes=2048)
    got, answer = _post_in_two_parts(server, json.dumps(chat(text)).encode())
    assert got == status, answer
    if status == 413:
        assert answer["error"]["type"] == "invalid_params" and "2048" in answer["error"]["message"]
    else:
        assert answer["choices"][0]["message"]["content"] == "ok"


def test_body_under_the_size_limit_is_served(make_server) -> None:
    server = make_server(OPEN_YAML, max_body_bytes=2048)
    response = post(server, chat("x" * 1500))
    assert response.status == 200
    assert response.json()["choices"][0]["message"]["content"] == "ok"


@pytest.mark.parametrize("model", ["acme/tiny-test", "acme/tiny-test:acme"])
def test_prompt_over_the_context_length_is_413(shipped: EmulatorServer, model: str) -> None:
    response = post(shipped, chat("word " * 80, model=model))
    assert_envelope(response, 413, "invalid_params", "Prompt is too long")


def test_prompt_within_the_context_length_is_served(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("word " * 10, model="acme/tiny-test"), session=session)
    assert response.status == 200
    assert response.json()["choices"][0]["message"]["content"] == "tiny reply"


def test_sdk_raises_a_413_status_error(client: openai.OpenAI) -> None:
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model="acme/tiny-test", messages=user("word " * 80))
    assert caught.value.status_code == 413
    assert caught.value.body == {"code": "413", "type": "invalid_params", "message": "Prompt is too long"}


CLOSED_YAML = """
settings: {catalogue: closed}
models:
  acme/only-model: {display_name: "Acme: Only", context_length: 1000}
rules:
  - name: anything
    match: {}
    reply: {content: "ok"}
"""


def test_closed_catalogue_rejects_unknown_models(make_server) -> None:
    server = make_server(CLOSED_YAML)
    invalid(post(server, chat("hi", model="openai/gpt-5")), "Model openai/gpt-5 is not valid")
    assert post(server, chat("hi", model="acme/only-model")).status == 200


def test_closed_catalogue_sdk_raises_bad_request(make_server) -> None:
    server = make_server(CLOSED_YAML)
    with sdk(server, "errors") as client, pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="openai/gpt-5", messages=USER)
    assert caught.value.body == {"code": "400", "type": "invalid_params", "message": "Model openai/gpt-5 is not valid"}


def test_the_default_catalogue_refuses_models_zenmux_does_not_list(shipped: EmulatorServer, session: str) -> None:
    invalid(
        post(shipped, chat("hi", model="mistralai/some-new-model"), session=session),
        "Model mistralai/some-new-model is not valid",
    )
    invalid(
        post(shipped, chat("hi", model="openai/gpt-5-typo:openai"), session=session),
        "Model openai/gpt-5-typo:openai is not valid",
    )
    assert post(shipped, chat("hi", model="moonshotai/kimi-k2.5"), session=session).status == 200


def test_open_catalogue_accepts_models_it_does_not_list(make_server) -> None:
    server = make_server("settings: {catalogue: open}\nrules: []\n")
    response = post(server, chat("hi", model="mistralai/some-new-model"))
    assert response.status == 200
    assert response.json()["model"] == "mistralai/some-new-model"
    invalid(post(server, chat("hi", model="gpt-5")), "Model gpt-5 is not valid")  # still vendor/model


@pytest.mark.parametrize("model", ["gpt-5", "openai/", "/gpt-5", "openai gpt-5"])
def test_malformed_model_id_is_400(shipped: EmulatorServer, model: str) -> None:
    invalid(post(shipped, chat("hi", model=model)), f"Model {model} is not valid")


STRICT_YAML = """
rules:
  - name: only-hello
    match: {last_user: {contains: hello}}
    reply: {content: "hi"}
"""


def test_strict_mode_answers_unmatched_requests_with_an_envelope(make_server) -> None:
    server = make_server(STRICT_YAML, strict=True)
    error = assert_envelope(post(server, chat("goodbye")), 404, "emulator_no_match")
    assert "only-hello" in error["message"]
    assert post(server, chat("hello")).json()["choices"][0]["message"]["content"] == "hi"


# --- ignored fields ---------------------------------------------------------------------------


def test_unsupported_fields_are_accepted_and_reported(
    shipped: EmulatorServer, client: openai.OpenAI, session: str
) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model=MODEL, messages=user("hello warnings"), extra_body={"max_tokens": 5, "seed": 7, "user": "someone"}
    )
    assert raw.status_code == 200
    assert raw.parse().choices[0].message.content == "Hi hello warnings! How can I help?"
    header = raw.headers["X-Emulator-Warnings"]
    for field in ("max_tokens", "seed", "user"):
        assert f"{field} is not supported by ZenMux and was ignored" in header
    entry = [e for e in shipped.state.journal.entries(session=session)][-1]
    assert entry.status == 200
    assert len(entry.warnings) == 3
    assert [w.split(" ", 1)[0] for w in entry.warnings] == ["max_tokens", "seed", "user"]


def test_max_tokens_is_ignored_not_applied(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("tell me slowly", max_tokens=2), session=session)
    assert response.json()["choices"][0]["message"]["content"] == "one two three four five"
    assert "max_tokens" in response.headers["X-Emulator-Warnings"]


def test_unknown_fields_are_reported(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("hello", frobnicate=True), session=session)
    assert response.status == 200
    assert response.headers["X-Emulator-Warnings"] == "unknown parameter 'frobnicate' was ignored"


def many_unknown_fields(count: int) -> dict[str, int]:
    return {f"unknown_field_{i:04d}": 1 for i in range(count)}


async def test_many_unknown_fields_still_give_a_response_aiohttp_can_read(
    shipped: EmulatorServer, session: str
) -> None:
    """Every ignored field is named in one `X-Emulator-Warnings` header; with 200 of them it passes
    aiohttp's 8190-byte header limit and the client cannot read the 200 response at all."""
    body = chat("hello many fields", **many_unknown_fields(200))
    headers = {"Authorization": f"Bearer {API_KEY}", SESSION_HEADER: session}
    async with aiohttp.ClientSession() as http:
        async with http.post(shipped.base_url + "/chat/completions", json=body, headers=headers) as response:
            assert response.status == 200
            completion = await response.json()
    assert completion["choices"][0]["message"]["content"] == "Hi hello many fields! How can I help?"
    assert len([e for e in shipped.state.journal.entries(session=session)][-1].warnings) == 200


def test_many_unknown_fields_still_give_a_response_the_sdk_can_read(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model=MODEL, messages=user("hello many fields"), extra_body=many_unknown_fields(3000)
    )
    assert completion.choices[0].message.content == "Hi hello many fields! How can I help?"


def test_clean_request_has_no_warnings(shipped: EmulatorServer, session: str) -> None:
    response = post(shipped, chat("hello"), session=session)
    assert "X-Emulator-Warnings" not in response.headers
    assert [e for e in shipped.state.journal.entries(session=session)][-1].warnings == []


# --- routes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/chat/completion", "/nope", "/api/v2/chat/completions"])
def test_unknown_route_is_404_envelope(shipped: EmulatorServer, path: str) -> None:
    response = request(shipped, chat("x"), path=path)
    assert_envelope(response, 404, "not_found")
    assert response.headers.get("X-ZenMux-RequestId")


def test_wrong_method_is_405_envelope(shipped: EmulatorServer) -> None:
    response = request(shipped, method="GET")
    assert_envelope(response, 405, "method_not_allowed")
    assert_envelope(request(shipped, chat("x"), path="/"), 405, "method_not_allowed")  # / is the index, GET only


@pytest.mark.parametrize("body", [chat("x", n=2), {"model": MODEL}], ids=["n", "messages"])
def test_errors_carry_a_request_id(shipped: EmulatorServer, body: dict[str, Any]) -> None:
    response = post(shipped, body)
    assert response.status == 400
    assert len(response.headers.get("X-ZenMux-RequestId", "")) == 32
    assert json.loads(response.body)["error"]["code"] == "400"


WINDOW_YAML = """
models:
  acme/window: {display_name: "Acme: Window", context_length: 1000}
rules:
  - name: anything
    match: {}
    reply: {content: "ok"}
"""


@pytest.mark.parametrize("words, status", [(993, 200), (994, 413), (400_000, 413)])
def test_the_context_window_is_counted_exactly_up_to_its_edge(make_server, words: int, status: int) -> None:
    """One message of `words` words is 3 + 1 + words + 3 tokens: 1,000 fits, 1,001 does not; a prompt
    far past the window is refused the same way (its counting stops once past the window)."""
    server = make_server(WINDOW_YAML)
    response = post(server, chat(" ".join(["word"] * words), model="acme/window"))
    if status == 413:
        assert_envelope(response, 413, "invalid_params", "Prompt is too long")
    else:
        assert response.status == 200, response.body
        assert response.json()["usage"]["prompt_tokens"] == 1000
