"""The face over HTTP with the shipped scenarios: openai-python at `/objectiveai` for §7's examples,
unary and streamed (the stream merged by the SDK's rules equals the unary body), raw HTTP for the
SSE bytes and the §4.8 error bodies, and the side routes of §4.1."""

from __future__ import annotations

import re

import openai
import pytest

from tests.support.clients import API_KEY
from zenmux_emulator.faces.objectiveai.errors import ALL_FAILED, UNAUTHORIZED
from zenmux_emulator.pytest_plugin.server import EmulatorServer

from .examples import (
    CREATED,
    E_ERROR,
    EXPECTED_A,
    EXPECTED_D,
    PARIS,
    REQUEST_A,
    REQUEST_B,
    REQUEST_D,
    REQUEST_E,
)
from .helpers import close
from .merge import as_unary, comparable, merge
from .wire_helpers import error_of, query, raw, raw_sse, stream, with_id

ID_RE = re.compile(r"^qrycpl-[0-9a-f]{32}-1767225600$")


def test_example_a_through_the_sdk(shipped: EmulatorServer, session: str) -> None:
    body = query(shipped, session, REQUEST_A)
    assert ID_RE.match(body["id"])
    close(body, with_id(EXPECTED_A, body["id"]))


def test_example_d_through_the_sdk(shipped: EmulatorServer, session: str) -> None:
    body = query(shipped, session, REQUEST_D)
    close(body, with_id(EXPECTED_D, body["id"]))


def test_unary_headers_name_the_rule_and_the_generation(shipped: EmulatorServer, session: str) -> None:
    answer = raw(shipped, session, REQUEST_A)
    assert answer.status == 200 and answer.headers["content-type"].startswith("application/json")
    assert answer.headers["x-emulator-rule"] == "oa-websites"
    assert answer.json()["id"] == f"qrycpl-{answer.headers['x-generation-id']}-{CREATED}"


@pytest.mark.parametrize("request_body", [REQUEST_A, REQUEST_B, REQUEST_D], ids=["A", "B", "D"])
def test_the_merged_stream_equals_the_unary_body(shipped: EmulatorServer, session: str, request_body) -> None:
    unary = query(shipped, session, request_body)
    items = stream(shipped, session, request_body)
    assert all(item["object"] == "chat.completion.chunk" for item in items)
    merged = as_unary(merge(items))
    assert merged["id"] != unary["id"]  # the next completion of the session
    close(comparable(merged), comparable(with_id(unary, merged["id"])))


def test_example_b_votes_and_the_failed_llm(shipped: EmulatorServer, session: str) -> None:
    body = query(shipped, session, REQUEST_B)
    winner = body["choices"][0]
    assert winner["generate_id"] == PARIS and winner["completion_metadata"]["provider"] == "OpenAI"
    failed = next(c for c in body["choices"] if c["finish_reason"] == "error")
    assert failed["error"] == {"code": 502, "message": "Bad Gateway"}
    assert failed["confidence"] is None and failed["confidence_weight"] == 1.0
    assert body["usage"]["cost"] == pytest.approx(0.00001 + 0.00002 + 0.00003 + 0.00012)


def test_sse_bytes_are_data_lines_ending_with_done(shipped: EmulatorServer, session: str) -> None:
    answer, sse = raw_sse(shipped, session, REQUEST_B)
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/event-stream")
    assert sse.done and sse.data[-1] == "[DONE]" and not sse.comments
    assert answer.text.endswith("data: [DONE]\n\n") and "\nevent:" not in answer.text
    chunks = sse.chunks
    assert all("error" not in chunk for chunk in chunks)  # never a top-level error in a chunk
    assert all(chunk["id"] == chunks[0]["id"] and chunk["created"] == CREATED for chunk in chunks)
    assert [("usage" in chunk) for chunk in chunks] == [False] * (len(chunks) - 1) + [True]
    # chunk_tokens: 8 from the rule: "Paris." fits one piece
    mini = [c["choices"][0]["delta"] for c in chunks[:-1] if c["choices"][0]["index"] == 0]  # gpt-5-mini sorts first
    assert mini[0] == {"role": "assistant", "content": "Paris."} and mini[1] == {}


def test_example_e_unary_is_the_all_failed_http_error(shipped: EmulatorServer, session: str) -> None:
    answer = raw(shipped, session, REQUEST_E)
    assert answer.status == 429 and answer.json() == ALL_FAILED
    with pytest.raises(openai.RateLimitError) as caught:
        query(shipped, session, REQUEST_E)
    assert caught.value.status_code == 429


def test_example_e_stream_fails_mid_answer_then_sends_the_all_failed_item(
    shipped: EmulatorServer, session: str
) -> None:
    answer, sse = raw_sse(shipped, session, REQUEST_E)
    assert answer.status == 200
    items = sse.chunks
    assert items[-1] == {"code": 429, "message": ALL_FAILED}
    first, finish, final = items[:-1]
    assert first["choices"][0]["delta"] == {"role": "assistant", "content": "Hello"}
    assert finish["choices"][0]["finish_reason"] == "error"
    assert finish["choices"][0]["error"] == {"code": 429, "message": E_ERROR}
    assert final["usage"] == {"completion_tokens": 0, "prompt_tokens": 0, "total_tokens": 0}
    assert sse.done
    # the SDK hands the bare item over as one more item
    assert stream(shipped, session, REQUEST_E)[-1] == {"code": 429, "message": ALL_FAILED}


def test_unauthorized_is_401_in_the_face_shape(shipped: EmulatorServer, session: str) -> None:
    answer = raw(shipped, session, REQUEST_A, api_key=None)
    assert answer.status == 401 and answer.json() == UNAUTHORIZED
    assert raw(shipped, session, REQUEST_A, api_key="").json() == UNAUTHORIZED  # an empty Bearer token is no key


def test_a_key_not_accepted_is_401(make_server) -> None:
    server = make_server("rules: []\n", api_keys=["sk-good"])
    assert raw(server, "s", REQUEST_A, api_key="sk-bad").json() == UNAUTHORIZED
    with pytest.raises(openai.AuthenticationError) as caught:
        query(server, "s", REQUEST_A, api_key="sk-bad")
    assert caught.value.body == UNAUTHORIZED["error"]  # the SDK hands over body["error"]
    assert raw(server, "s", REQUEST_A, api_key="sk-good").status == 200


@pytest.mark.parametrize(
    ("body", "status", "kind"),
    [
        ({**REQUEST_A, "model": "nope"}, 400, "invalid_model"),
        ({**REQUEST_A, "model": "AAAAAAAAAAAAAAAAAAAAAA"}, 404, "model_not_found"),
        ({k: v for k, v in REQUEST_D.items() if k != "select_deterministic"}, 400, "invalid_request"),
        ([1, 2], 400, "invalid_request"),
        ({"messages": []}, 400, "invalid_request"),
    ],
    ids=["invalid-model", "unknown-model", "select-only", "not-an-object", "no-messages"],
)
def test_validation_errors_have_the_face_shape(shipped: EmulatorServer, session: str, body, status, kind) -> None:
    error_of(raw(shipped, session, body), status, kind)


def test_an_unknown_mode_names_its_path(shipped: EmulatorServer, session: str) -> None:
    body = {
        **REQUEST_A,
        "model": {**REQUEST_A["model"], "models": [{**REQUEST_A["model"]["models"][0], "mode": "vote"}]},
    }
    assert "model.models[0].mode" in error_of(raw(shipped, session, body), 400, "invalid_request")


def test_a_body_that_is_not_json_is_invalid_request(shipped: EmulatorServer, session: str) -> None:
    error_of(raw(shipped, session, b"{not json"), 400, "invalid_request")


def test_unknown_fields_are_named_in_the_warnings_header(shipped: EmulatorServer, session: str) -> None:
    answer = raw(shipped, session, {**REQUEST_A, "temperature": 0.2})
    assert answer.status == 200
    assert "temperature is not a Query request field" in answer.headers["x-emulator-warnings"]


def test_a_model_used_once_is_stored_and_may_be_named(shipped: EmulatorServer, session: str) -> None:
    first = query(shipped, session, REQUEST_A)
    name = first["model"].removeprefix("objectiveai/")
    by_name = query(shipped, session, {**REQUEST_A, "model": name})
    assert by_name["model"] == first["model"]
    assert [c["confidence"] for c in by_name["choices"]] == [c["confidence"] for c in first["choices"]]
    prefixed = query(shipped, session, {**REQUEST_A, "model": f"objectiveai/{name}"})
    assert prefixed["model"] == first["model"]


def test_the_query_model_routes(make_server) -> None:
    server = make_server("rules: []\n")
    model = REQUEST_A["model"]
    normal = raw(server, None, model, path="/query_models").json()
    assert normal["name"] == "2FgLFqAf8M6MTa6MtGLLwM" and normal["weight"] == {"type": "static"}
    assert [m["name"] for m in normal["models"]] == sorted(m["name"] for m in normal["models"])
    assert {m["name"]: m["index"] for m in normal["models"]} == {
        "5Fr43anduAkLuCN7PL9BAK": 0,
        "61jFz6OhuRTAKokNtby9Qn": 1,
        "7W051ct7yeEWFZczC98xKl": 2,
    }
    assert raw(server, None, None, path="/query_models", method="GET").json() == {"data": ["2FgLFqAf8M6MTa6MtGLLwM"]}
    assert raw(server, None, None, path="/query_models/count", method="GET").json() == {"count": 1}
    assert raw(server, None, None, path="/query_models/2FgLFqAf8M6MTa6MtGLLwM", method="GET").json() == normal
    error_of(raw(server, None, None, path="/query_models/AAAAAAAAAAAAAAAAAAAAAA", method="GET"), 404, "model_not_found")
    llm = raw(server, None, model["models"][0], path="/query_llms").json()
    assert llm["name"] == "61jFz6OhuRTAKokNtby9Qn" and llm["id"] == "openai/gpt-5-nano"
    assert "mode" in error_of(
        raw(server, None, {"id": "x", "mode": "vote", "weight": {"type": "static", "weight": 1}}, path="/query_llms"),
        400,
        "invalid_request",
    )
    assert raw(server, None, None, path="/query_models", method="GET", api_key=None).json() == UNAUTHORIZED


def test_stored_completions_and_credits(make_server) -> None:
    server = make_server("settings: {balances: {sk-rich: 5.0}}\nrules: []\n")
    first = query(server, "s", REQUEST_A, api_key="sk-rich")
    second = query(server, "s", REQUEST_D, api_key="sk-rich")
    listed = raw(server, None, None, path="/query/completions", method="GET", api_key="sk-rich").json()
    assert listed == {
        "data": [
            {"id": second["id"], "created": "2026-01-01T00:00:00Z"},
            {"id": first["id"], "created": "2026-01-01T00:00:00Z"},
        ]
    }
    page = raw(server, None, None, path="/query/completions?count=1&offset=1", method="GET").json()
    assert [item["id"] for item in page["data"]] == [first["id"]]
    stored = raw(server, None, None, path=f"/query/completions/{first['id']}", method="GET").json()
    assert stored["request"] == REQUEST_A and stored["response"] == first
    error_of(raw(server, None, None, path="/query/completions/nope", method="GET"), 404, "completion_not_found")
    credits = raw(server, "s", None, path="/auth/credits", method="GET", api_key="sk-rich").json()
    assert credits["total_credits_purchased"] == 5.0 and credits["total_credits_used"] > 0  # see test_billing
    assert credits["credits"] == 5.0 - credits["total_credits_used"]


def test_an_api_key_header_other_than_bearer_is_accepted(shipped: EmulatorServer, session: str) -> None:
    answer = raw(shipped, session, REQUEST_A, api_key=None, headers={"x-api-key": API_KEY})
    assert answer.status == 200
