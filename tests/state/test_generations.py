"""The generation lookup across instances on one Redis (`--state`): a completion one instance
served is found by the id its client got on the other, with the same answer."""

from __future__ import annotations

import json

from tests.conftest import MakeServer
from tests.faces.anthropic.helpers import sdk as anthropic_sdk
from tests.state.helpers import SCENARIO, ask
from tests.support.clients import API_KEY, Raw, http

MANAGEMENT = "/api/v1/management/generation"
STREAMED = """
rules:
  - name: paced
    match: {last_user: {contains: pace}}
    reply: {content: "a b c d", stream: {first_token_ms: 20, chunk_ms: 5}}
"""


def lookup(origin: str, name: str, route: str = MANAGEMENT) -> Raw:
    return http(f"{origin}{route}?id={name}", headers={"Authorization": f"Bearer {API_KEY}"})


def test_a_completion_served_by_one_instance_is_found_on_the_other(make_server: MakeServer, redis_url: str):
    a, b = make_server(SCENARIO, STREAMED, state=redis_url), make_server(SCENARIO, STREAMED, state=redis_url)
    served = ask(a.origin, "gen", "step")
    generation = served.json()["id"]
    here, there = lookup(a.origin, generation), lookup(b.origin, generation)
    assert here.status == there.status == 200
    assert here.text == there.text  # byte for byte
    assert json.loads(there.text)["generationId"] == generation == served.headers["x-generation-id"]
    assert lookup(b.origin, generation, "/api/v1/generation").json()["generation_id"] == generation
    assert lookup(b.origin, "0" * 32).status == 404


def test_a_stream_and_a_message_id_are_found_on_the_other_instance(make_server: MakeServer, redis_url: str):
    a, b = make_server(SCENARIO, STREAMED, state=redis_url), make_server(SCENARIO, STREAMED, state=redis_url)
    with anthropic_sdk(a, "gen-stream") as client:
        events = list(
            client.messages.create(
                model="anthropic/claude-sonnet-4.5",
                max_tokens=64,
                stream=True,
                messages=[{"role": "user", "content": "pace me"}],
            )
        )
    message_id = next(e for e in events if e.type == "message_start").message.id
    found, here = lookup(b.origin, message_id).json(), lookup(a.origin, message_id).json()
    assert found["api"] == "messages" and found["streamed"] is True and found["latency"] == 20
    assert found["nativeTokens"] == here["nativeTokens"] and found["nativeTokens"]["completion_tokens"] > 0
    # the other instance has the generation time once the stream's journal entry is written
    assert here["generationTime"] > 0 and here["generationTime"] % 5 == 0  # 5 ms a chunk after the first
