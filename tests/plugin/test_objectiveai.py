"""The `zenmux` handle's ObjectiveAI face: its base URL and a ready client, in a pytester run."""

from __future__ import annotations

import pytest

from tests.plugin.helpers import write_example

QUERY_TESTS = '''
import openai

MODEL = {"models": [{"id": "openai/gpt-5-nano", "mode": "generate", "weight": {"type": "static", "weight": 1}}],
         "weight": {"type": "static"}}


def test_the_face_has_its_url_and_client(zenmux):
    assert zenmux.objectiveai_url == zenmux.base_url.removesuffix("/api/v1") + "/objectiveai"
    assert zenmux.objectiveai_base_url == zenmux.objectiveai_url
    zenmux.load("""
rules:
  - name: capital
    match: {api: objectiveai, last_user: {contains: France}}
    reply:
      query:
        llms: [{match: {id: "openai/*"}, output: {content: Paris}}]
""")
    client = zenmux.objectiveai_client()
    assert isinstance(client, openai.OpenAI) and str(client.base_url).rstrip("/") == zenmux.objectiveai_url
    body = {"messages": [{"role": "user", "content": "capital of France?"}], "model": MODEL}
    reply = client.post("/query/completions", body=body, cast_to=object)
    assert reply["object"] == "chat.completion"
    assert reply["choices"][0]["message"]["content"] == "Paris" and reply["choices"][0]["confidence"] == 1.0
    [entry] = zenmux.requests
    assert (entry.path, entry.api, entry.rule, entry.status) == ("/objectiveai/query/completions", "objectiveai",
                                                                "capital", 200)
    zenmux.assert_all_rules_used()
'''


def test_the_handle_serves_the_objectiveai_face(pytester: pytest.Pytester) -> None:
    write_example(pytester, **{"tests/test_query.py": QUERY_TESTS})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests/test_query.py", "-v")
    result.assert_outcomes(passed=1)
