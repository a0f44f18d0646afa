"""Determinism: the same scenarios, seed and clock give byte-identical answers; another seed does not."""

from __future__ import annotations

from typing import Any

from tests.conftest import SHIPPED
from tests.faces.chat.contract.helpers import RawResponse, chat, post, request

SHIPPED_YAML = [path.read_text(encoding="utf-8") for path in sorted(SHIPPED.glob("*.yaml"))]

# A mix of matched, default, sequenced, streamed, templated and rejected requests, in order.
SEQUENCE: list[dict[str, Any]] = [
    chat("hello determinism"),
    chat("retry me"),
    chat("retry me"),
    chat("nobody scripted this question"),
    chat("say it slowly", stream=True),
    chat("nobody scripted this streamed question", stream=True, stream_options={"include_usage": True}),
    {
        "model": "openai/gpt-5",
        "messages": [{"role": "system", "content": "Talk like a pirate"}, {"role": "user", "content": "hi"}],
    },
    chat("x", n=2),
    chat("the password", stream=True, usage={"include": True}),
    chat("an unscripted answer with logprobs", logprobs=True, top_logprobs=3),
    chat("hi", model="acme/tiny-test", metadata={"suite": "billing"}),
]


def replay(server) -> list[RawResponse]:
    """Send SEQUENCE to the server (one session, by API key), then an unknown route."""
    responses = [post(server, body) for body in SEQUENCE]
    responses.append(request(server, {}, path="/api/v1/unknown"))
    return responses


def fingerprint(responses: list[RawResponse]) -> list[tuple[int, bytes, str | None, str | None]]:
    return [
        (r.status, r.body, r.headers.get("X-ZenMux-RequestId"), r.headers.get("x-generation-id")) for r in responses
    ]


def generation_ids(responses: list[RawResponse]) -> list[str]:
    return [r.headers["x-generation-id"] for r in responses if r.status == 200]


def test_same_seed_and_clock_give_byte_identical_responses(make_server) -> None:
    first = replay(make_server(*SHIPPED_YAML, seed=7))
    second = replay(make_server(*SHIPPED_YAML, seed=7))
    assert [r.status for r in first] == [200] * 7 + [400, 200, 200, 200, 404]
    assert fingerprint(second) == fingerprint(first)


def test_default_seed_is_also_reproducible(make_server) -> None:
    assert fingerprint(replay(make_server(*SHIPPED_YAML))) == fingerprint(replay(make_server(*SHIPPED_YAML)))


def test_a_different_seed_gives_different_ids(make_server) -> None:
    one = replay(make_server(*SHIPPED_YAML, seed=7))
    other = replay(make_server(*SHIPPED_YAML, seed=8))
    pairs = list(zip(generation_ids(one), generation_ids(other), strict=True))
    assert pairs and all(a != b for a, b in pairs)
    request_ids = list(
        zip(
            [r.headers["X-ZenMux-RequestId"] for r in one],
            [r.headers["X-ZenMux-RequestId"] for r in other],
            strict=True,
        )
    )
    assert all(a != b for a, b in request_ids)


def test_a_different_seed_changes_the_default_reply_but_not_scripted_text(make_server) -> None:
    one = replay(make_server(*SHIPPED_YAML, seed=7))
    other = replay(make_server(*SHIPPED_YAML, seed=8))
    content = [r.json()["choices"][0]["message"]["content"] for r in (one[0], other[0], one[3], other[3])]
    assert content[0] == content[1] == "Hi hello determinism! How can I help?"
    assert content[2] != content[3]


def test_ids_do_not_depend_on_arrival_at_other_sessions(make_server) -> None:
    """A session's generation ids depend on its own requests only, not on other clients' traffic."""
    quiet, busy = make_server(*SHIPPED_YAML, seed=7), make_server(*SHIPPED_YAML, seed=7)
    for _ in range(3):
        post(busy, chat("some other client"), session="other")
    alone = post(quiet, chat("hello ids"), session="mine")
    crowded = post(busy, chat("hello ids"), session="mine")
    assert alone.body == crowded.body
    assert alone.headers["x-generation-id"] == crowded.headers["x-generation-id"]
