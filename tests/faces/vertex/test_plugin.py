"""The pytest plugin's side of the Vertex face: its base URL and a google-genai client on it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.plugin.helpers import INI

CASE = """
def test_gemini_through_the_plugin(zenmux):
    zenmux.add_rule("hi", match={"api": "vertex", "last_user": "hi"}, reply={"content": "hello back"})
    assert zenmux.url("vertex").endswith("/api/vertex-ai")
    for vertexai in (True, False):
        gemini = zenmux.gemini_client(vertexai=vertexai)
        assert gemini.models.generate_content(model="google/gemini-2.5-pro", contents="hi").text == "hello back"
    assert [e.api for e in zenmux.requests] == ["vertex", "vertex"]
    zenmux.assert_all_rules_used()
"""


def test_the_plugin_gives_a_gemini_client(pytester: pytest.Pytester) -> None:
    pytester.makeini(INI)
    pytester.makepyfile(CASE)
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize("face", ["vertex"])
def test_the_face_is_in_the_index(shipped: Any, face: str) -> None:
    from tests.support.clients import http

    index = http(shipped.origin + "/", headers={"Accept": "application/json"}).json()
    [entry] = [f for f in index["faces"] if f["name"] == face]
    assert entry["base_url"] == shipped.url(face)
    assert "POST /api/vertex-ai/{vertex_version}/publishers/{provider}/models/{name}:countTokens" in entry["routes"]
