"""A refused key gets ZenMux's bare 403 body and the emulator's hint beside it (issue 42): which
list of accepted keys refused it (--api-key, the scenario files' settings.api_keys), the keys masked,
or that no key came at all; on every face, through its own client."""

from __future__ import annotations

import anthropic
import pytest
from google.genai import errors

from tests.conftest import MakeServer
from tests.faces.vertex.helpers import MODEL as GEMINI
from tests.faces.vertex.helpers import client as gemini_client
from tests.gateway.helpers import chat, post
from zenmux_emulator.foundation.envelope import ACCESS_DENIED

GOOD = "sk-ai-v1-good-key-from-flag-1234"
WRONG = "sk-ai-v1-wrong-key-secret-9876"
FILE_KEY = "sk-ai-v1-key-from-the-file-5555"
RULES = f"""
settings: {{api_keys: [{FILE_KEY}]}}
rules:
  - name: hello
    match: {{last_user: {{contains: hello}}}}
    reply: {{content: "hi"}}
"""


def test_a_wrong_key_is_told_which_lists_refused_it_masked(make_server: MakeServer) -> None:
    server = make_server(RULES, api_keys=[GOOD])
    refused = post(server, "hint", chat("hello"), key=WRONG)
    assert refused.status == 403 and refused.json()["error"]["message"] == ACCESS_DENIED
    hint = refused.headers["x-emulator-hint"]
    assert hint == (
        "the key sk-ai-v1...9876 is in neither list of accepted keys: --api-key (1: sk-ai-v1...1234) "
        "nor the scenario files' settings.api_keys (1: sk-ai-v1...5555)"
    )
    assert WRONG not in hint and GOOD not in hint and FILE_KEY not in hint
    assert post(server, "hint", chat("hello"), key=GOOD).status == 200
    assert "x-emulator-hint" not in post(server, "hint", chat("hello"), key=FILE_KEY).headers


def test_a_missing_key_is_told_where_to_send_one(make_server: MakeServer) -> None:
    server = make_server(RULES)
    refused = post(server, "none", chat("hello"), key="", headers={"Authorization": ""})
    assert refused.status == 403 and refused.json()["error"]["message"] == ACCESS_DENIED
    assert refused.headers["x-emulator-hint"].startswith("no API key: send one as Authorization: Bearer")


@pytest.mark.parametrize("vertexai", [True, False])
def test_the_hint_reaches_google_genai_and_anthropic(make_server: MakeServer, vertexai: bool) -> None:
    server = make_server(RULES, api_keys=[GOOD])
    gemini = gemini_client(server, "genai", vertexai=vertexai, api_key=WRONG)
    with pytest.raises(errors.ClientError) as caught:
        gemini.models.generate_content(model=GEMINI, contents="hello")
    assert caught.value.code == 403 and caught.value.message == ACCESS_DENIED
    assert caught.value.response is not None
    assert "--api-key (1: sk-ai-v1...1234)" in caught.value.response.headers["x-emulator-hint"]
    with anthropic.Anthropic(base_url=server.url("anthropic"), api_key=WRONG, max_retries=0) as claude:
        with pytest.raises(anthropic.PermissionDeniedError) as denied:
            claude.messages.create(
                model="anthropic/claude-sonnet-4.5", max_tokens=10, messages=[{"role": "user", "content": "hello"}]
            )
    assert "sk-ai-v1...9876" in denied.value.response.headers["x-emulator-hint"]
