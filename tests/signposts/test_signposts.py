"""A server that says where you went wrong (issue 30): `/`, `/_emulator/` and the printed base URL answer an index of
what it serves (HTML for a browser, JSON otherwise), and a wrong path answers ZenMux's 404 envelope naming the route
it most likely meant, or the ZenMux API it belongs to when that API is not emulated."""

from __future__ import annotations

import anthropic
import openai
import pytest

from tests.support.clients import API_KEY, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

JSON = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
HELLO = b'{"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello there"}]}'


@pytest.mark.parametrize("path", ["/", "/_emulator/", "/api/v1"])
def test_the_index_answers_json_naming_every_face_and_the_control_api(shipped: EmulatorServer, path: str):
    answer = http(shipped.origin + path)
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("application/json")
    index = answer.json()
    faces = {face["name"]: face for face in index["faces"]}
    assert set(faces) >= {"chat", "anthropic", "responses", "objectiveai"}
    assert faces["chat"]["base_url"] == shipped.base_url
    assert faces["anthropic"]["base_url"] == shipped.anthropic_url
    assert faces["objectiveai"]["base_url"] == shipped.objectiveai_url
    assert "POST /api/v1/chat/completions" in faces["chat"]["routes"]
    assert "POST /api/anthropic/v1/messages" in faces["anthropic"]["routes"]
    assert "POST /api/v1/responses" in faces["responses"]["routes"]
    assert index["control_api"]["openapi"] == f"{shipped.origin}/_emulator/openapi.json"
    assert "GET /_emulator/health" in index["control_api"]["routes"]
    assert "ZenMux's platform statistics API" in index["not_emulated"]
    assert "POST /api/v1/images/generations" in faces["images"]["routes"]
    assert "POST /api/v1/audio/speech" in faces["speech"]["routes"]
    assert "POST /api/v1/audio/transcriptions" in faces["transcription"]["routes"]
    videos = set(faces["videos"]["routes"])
    assert {"POST /api/v1/videos", "GET /api/v1/videos/{id}"} <= videos
    assert "POST /api/vertex-ai/{veo_version}/publishers/{provider}/models/{name}:predictLongRunning" in videos
    assert "POST /api/v1/embeddings" in faces["embeddings"]["routes"]
    assert "POST /api/v1/rerank" in faces["rerank"]["routes"]
    assert "POST /api/v1/systemone" in faces["systemone"]["routes"]
    assert faces["interactions"]["routes"] == ["POST /api/v1/interactions", "POST /api/v1beta1/interactions"]
    assert faces["interactions"]["base_url"] == shipped.origin + "/api"
    assert "GET /api/v1/management/payg/balance" in faces["platform"]["routes"]
    assert "GET /api/v1/management/generation" not in faces["platform"]["routes"]


def test_a_browser_gets_the_index_as_html(shipped: EmulatorServer):
    answer = http(shipped.base_url, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert answer.status == 200  # the URL the start-up line prints, opened in a browser
    assert answer.headers["content-type"].startswith("text/html")
    assert "<h1>ZenMux Emulator</h1>" in answer.text
    assert f"<code>{shipped.base_url}</code>" in answer.text
    assert f'href="{shipped.origin}/_emulator/openapi.json"' in answer.text


@pytest.mark.parametrize(
    ("wrong", "meant"),
    [
        ("/v1/chat/completions", "/api/v1/chat/completions"),  # no /api
        ("/api/v1/v1/chat/completions", "/api/v1/chat/completions"),  # /v1 doubled
        ("/api/v1/api/v1/chat/completions", "/api/v1/chat/completions"),  # the base URL doubled
        ("/api/anthropic/messages", "/api/anthropic/v1/messages"),  # no /v1
        ("/api/anthropic/v1/v1/messages", "/api/anthropic/v1/messages"),
        ("/v1/messages", "/api/anthropic/v1/messages"),
        ("/v1/responses", "/api/v1/responses"),
        ("/v1/embeddings", "/api/v1/embeddings"),
        ("/v1/rerank", "/api/v1/rerank"),
        ("/v1/systemone", "/api/v1/systemone"),
        ("/v1/interactions", "/api/v1/interactions"),
        ("/v1/audio/transcriptions", "/api/v1/audio/transcriptions"),
        ("/v1/images/generations", "/api/v1/images/generations"),
        ("/query/completions", "/objectiveai/query/completions"),
        ("/api/v1/chat/completion", "/api/v1/chat/completions"),  # a near spelling
        ("/_emulator/healthz", "/_emulator/health"),
    ],
)
def test_a_wrong_path_gets_the_404_envelope_naming_the_route_meant(shipped: EmulatorServer, wrong: str, meant: str):
    answer = http(shipped.origin + wrong, HELLO, method="POST", headers=JSON)
    assert answer.status == 404
    error = answer.json()["error"]
    assert (error["code"], error["type"]) == ("404", "not_found")
    assert error["message"].endswith(f"did you mean {meant}?"), error["message"]
    assert wrong in error["message"]


@pytest.mark.parametrize(
    ("path", "api"),
    [
        ("/api/vertex-ai/v1/publishers/google/models/text-embedding-004:embedContent", "Vertex AI"),
        ("/api/v1/management/statistics/leaderboard", "platform statistics"),
    ],
)
def test_a_zenmux_api_not_emulated_is_named_as_such(shipped: EmulatorServer, path: str, api: str):
    answer = http(shipped.origin + path, b"{}", method="POST", headers=JSON)
    assert answer.status == 404
    message = answer.json()["error"]["message"]
    assert f"ZenMux's {api}" in message and "this emulator does not serve" in message, message
    served = message.partition("; it serves ")[2]
    for title in ("Chat Completions", "Video jobs", "Imagen", "Structured Evaluation", "Interactions"):
        assert title in served, message  # every registered face, the ones added since included


def test_a_path_like_nothing_says_where_the_routes_are_listed(shipped: EmulatorServer):
    answer = http(shipped.origin + "/completely/else", method="GET")
    assert answer.status == 404
    assert answer.json()["error"]["message"] == (
        "Not Found: no route serves GET /completely/else; GET / lists the routes this emulator serves"
    )


def test_the_sdks_show_the_hint_when_the_base_url_lacks_api(shipped: EmulatorServer):
    with openai.OpenAI(base_url=f"{shipped.origin}/v1", api_key=API_KEY, max_retries=0) as client:
        with pytest.raises(openai.NotFoundError) as caught:
            client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": "hi"}])
    assert "did you mean /api/v1/chat/completions?" in str(caught.value)
    with anthropic.Anthropic(
        base_url=f"{shipped.origin}/api",
        api_key=API_KEY,
        max_retries=0,
        default_headers={"anthropic-version": "2023-06-01"},
    ) as claude:
        with pytest.raises(anthropic.NotFoundError) as missed:
            claude.messages.create(model="openai/gpt-5", max_tokens=64, messages=[{"role": "user", "content": "hi"}])
    assert "did you mean /api/anthropic/v1/messages?" in str(missed.value)


def test_a_served_route_is_never_suggested_for_itself(shipped: EmulatorServer):
    answer = http(shipped.base_url + "/chat/completions", HELLO, method="POST", headers=JSON)
    assert answer.status == 200
    assert http(shipped.origin + "/api/v1/responses/resp_unknown").json()["error"]["type"] != "not_found"


@pytest.mark.parametrize(
    ("method", "path", "kind", "says"),
    [
        ("POST", "/objectiveai/query/completion", "not_found", "did you mean /objectiveai/query/completions?"),
        ("GET", "/objectiveai/zzzz/qqqq/wwww", "not_found", "GET / lists the routes"),
        ("PUT", "/objectiveai/query/completions", "method_not_allowed", "Method Not Allowed"),
    ],
)
def test_the_routers_404_and_405_under_objectiveai_answer_its_query_envelope(
    shipped: EmulatorServer, method: str, path: str, kind: str, says: str
):
    answer = http(shipped.origin + path, b"{}", method=method, headers=JSON)
    assert answer.status == (405 if kind == "method_not_allowed" else 404)
    body = answer.json()
    assert set(body) == {"kind", "error"} and body["kind"] == "query", body  # ObjectiveAI's, not ZenMux's
    assert body["error"]["kind"] == kind and says in body["error"]["error"], body
    if kind == "method_not_allowed":
        assert "POST" in answer.headers["allow"]


def test_a_path_next_to_objectiveai_keeps_zenmux_envelope(shipped: EmulatorServer):
    for path in ("/objectiveaix/query/completions", "/query/completions", "/api/v1/chat/completion"):
        answer = http(shipped.origin + path, HELLO, method="POST", headers=JSON)
        assert answer.status == 404
        assert answer.json()["error"]["type"] == "not_found", path
