"""`POST /_emulator/match` on the Vertex AI / Gemini face's paths: its handlers are wrapped (Google's
`?key=` taken as the key), and the probe still finds the face behind the wrapper."""

from __future__ import annotations

import pytest

from tests.conftest import MakeServer
from tests.control.helpers import control, ok

RULES = """\
rules:
  - name: gemini-hello
    match: {api: vertex, last_user: {contains: hello}}
    reply: {content: "Hello from Gemini"}
"""
CONTENTS = {"contents": [{"role": "user", "parts": [{"text": "hello there"}]}]}


@pytest.mark.parametrize(
    "path",
    [
        "/api/vertex-ai/v1beta/models/google/gemini-2.5-pro:generateContent",
        "/api/vertex-ai/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
        "/api/vertex-ai/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro:generateContent",
    ],
)
def test_a_probe_on_a_gemini_path_finds_the_vertex_face_and_its_rule(make_server: MakeServer, path: str) -> None:
    verdict = ok(control(make_server(RULES), "POST", "match", json_body={"path": path, "body": CONTENTS}))
    assert (verdict["face"], verdict["accepted"], verdict["rule"]) == ("vertex", True, "gemini-hello")


def test_a_probe_of_a_body_gemini_refuses_carries_the_faces_error(make_server: MakeServer) -> None:
    path = "/api/vertex-ai/v1beta/models/google/gemini-2.5-pro:generateContent"
    verdict = ok(control(make_server(RULES), "POST", "match", json_body={"path": path, "body": {"contents": 3}}))
    assert (verdict["face"], verdict["accepted"]) == ("vertex", False)
    assert "contents" in str(verdict["rejected"])
