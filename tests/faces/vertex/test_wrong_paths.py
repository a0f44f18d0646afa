"""A Vertex / Gemini path the face does not serve gets a 404 that says what it is (issue 42): an
unversioned Gemini API path (litellm's `gemini/` provider with `api_base=…/api/vertex-ai`) is the
`v1beta` one it meant; Gemini's embeddings, Imagen and Veo are each named for what ZenMux does there."""

from __future__ import annotations

import pytest

from tests.support.clients import http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

JSON = {"Content-Type": "application/json", "x-goog-api-key": "sk-ai-v1-any"}


@pytest.mark.parametrize(
    ("wrong", "meant"),
    [
        (
            "/api/vertex-ai/models/google/gemini-2.5-pro:generateContent",
            "/api/vertex-ai/v1beta/models/google/gemini-2.5-pro:generateContent",
        ),
        (
            "/api/vertex-ai/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
            "/api/vertex-ai/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
        ),
    ],
)
def test_an_unversioned_path_is_told_the_versioned_one(shipped: EmulatorServer, wrong: str, meant: str) -> None:
    answer = http(shipped.origin + wrong, b"{}", method="POST", headers=JSON)
    assert answer.status == 404
    message = answer.json()["error"]["message"]
    assert message == f"Not Found: no route serves POST {wrong}; did you mean {meant}?"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (
            "/api/vertex-ai/models/google/text-embedding-004:embedContent",
            "ZenMux serves embeddings at /api/v1/embeddings",
        ),
        ("/api/vertex-ai/v1beta/models/google/gemini-embedding-001:batchEmbedContents", "/api/v1/embeddings"),
        ("/api/vertex-ai/v1beta/models/veo-3:predictLongRunning", "Veo route"),  # served on Vertex AI's form only
    ],
)
def test_a_route_zenmux_has_elsewhere_or_not_at_all_is_named(shipped: EmulatorServer, path: str, said: str) -> None:
    answer = http(shipped.origin + path, b"{}", method="POST", headers=JSON)
    assert answer.status == 404
    message = answer.json()["error"]["message"]
    assert said in message and "which this emulator does not serve" in message, message
    assert "beyond generateContent" not in message
