"""Issue 31, item 6's leftovers: a conversation of 200,000 messages (or of 200,000 text parts)
held the event loop about two seconds, validating them. Each face now counts first, refuses an
over-long conversation with its own 400 naming the array and the limit, and answers at once while
a health probe sent meanwhile answers too (see stalls for the margins)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face, conversation
from tests.hardening.stalls import BIG_BODY_PROBE_S, assert_no_stall, timed_with_probes
from zenmux_emulator.faces.common.counts import ANTHROPIC_MESSAGES, CONVERSATION_ITEMS, PARTS_IN_ALL

DEFAULT = "rules:\n  - name: never\n    match: {last_user: never}\n    reply: {content: hi}\n"
HUGE = 200_001
"""The issue's size (and odd, so a conversation of chat's alternating turns ends with the user)."""


FIELD = {
    "chat": "messages",
    "anthropic": "messages",
    "responses": "input",
    "objectiveai": "messages",
    "vertex": "contents",
    "interactions": "input",
}
PARTS_FIELD = {
    "chat": "messages[0].content",
    "anthropic": "messages.0.content",
    "responses": "input[0].content",
    "objectiveai": "messages[0].content",
    "vertex": "contents[0].parts",
    "interactions": "input[0].content",
}


def items_cap(face: Face) -> int:
    return ANTHROPIC_MESSAGES if face.name == "anthropic" else CONVERSATION_ITEMS


@pytest.mark.parametrize("shape", ["items", "parts"])
@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_huge_conversation_is_refused_at_once_naming_the_array_and_the_limit(
    make_server: MakeServer, wire_to: WireTo, face: Face, shape: str
):
    server = make_server(DEFAULT)
    wire = wire_to(server)
    body = orjson.dumps(conversation(face, HUGE) if shape == "items" else conversation(face, 1, HUGE))

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.post_json(face.route, body, list(face.headers))
        return status, answer

    timed = timed_with_probes(server, send, warm=lambda: wire_to(server).ask(face, face.valid()))
    # Counting refuses it in microseconds; what the probes still wait for is the body itself: 12 MB
    # read and decoded into 600,000 objects (0.4 s, then one pass of the cycle collector over
    # them), a big body's margin on this shared machine (the 200,000 messages took 2 s)
    assert_no_stall(timed, probe_within=BIG_BODY_PROBE_S)
    assert timed.status == 400, timed.body[:300]
    message = face.envelope(400, timed.body)["message"]
    limit = items_cap(face) if shape == "items" else PARTS_IN_ALL
    assert str(limit) in message, message
    field = FIELD[face.name] if shape == "items" else PARTS_FIELD[face.name]
    assert field in message and str(HUGE) in message, message


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_conversation_at_the_caps_is_answered_and_one_past_them_refused(
    make_server: MakeServer, wire_to: WireTo, face: Face
):
    """The caps are exact: a conversation at the limit (its first turn holding all the parts the
    limit leaves) is answered; one item or one part more is the 400."""
    wire = wire_to(make_server(DEFAULT))
    items = items_cap(face)
    at_parts = PARTS_IN_ALL - (min(items, PARTS_IN_ALL) - 1)  # the other turns hold one part each, or none
    if face.name in ("chat", "anthropic", "objectiveai"):
        at_parts = PARTS_IN_ALL  # their other turns' content is a string: no parts
    assert wire.ask(face, conversation(face, items))[0] == 200
    assert wire.ask(face, conversation(face, 1, PARTS_IN_ALL))[0] == 200
    assert wire.ask(face, conversation(face, min(items, PARTS_IN_ALL), at_parts))[0] == 200
    status, _, answer = wire.ask(face, conversation(face, items + 1))
    assert status == 400 and f"{items + 1}" in face.envelope(400, answer)["message"]
    status, _, answer = wire.ask(face, conversation(face, 1, PARTS_IN_ALL + 1))
    assert status == 400 and PARTS_FIELD[face.name] in face.envelope(400, answer)["message"]


def test_anthropic_counts_tool_result_and_system_blocks_too(make_server: MakeServer, wire_to: WireTo):
    """A tool result's own blocks, and the system prompt's, are parts of the conversation as well."""
    anthropic = FACES[1]
    wire = wire_to(make_server(DEFAULT))
    text = {"type": "text", "text": "x"}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [text] * PARTS_IN_ALL}
    body = {**anthropic.valid(), "messages": [{"role": "user", "content": [result]}]}
    status, _, answer = wire.ask(anthropic, body)
    assert status == 400
    assert anthropic.envelope(400, answer)["message"].startswith("messages.0.content: too many content blocks")
    body = {**anthropic.valid(), "system": [text] * (PARTS_IN_ALL + 1)}
    status, _, answer = wire.ask(anthropic, body)
    assert status == 400 and anthropic.envelope(400, answer)["message"].startswith("system: too many content blocks")


@pytest.mark.parametrize(
    ("route", "body", "message"),
    [
        (
            "/api/anthropic/v1/messages/count_tokens",
            {"model": "anthropic/claude-sonnet-4", "messages": [{"role": "user", "content": "hi"}] * HUGE},
            f"messages: List should have at most {ANTHROPIC_MESSAGES} items after validation, not {HUGE}",
        ),
        (
            "/api/vertex-ai/v1beta/models/google/gemini-2.5-pro:countTokens",
            {"generateContentRequest": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}] * HUGE}},
            f"generateContentRequest.contents: at most {CONVERSATION_ITEMS} contents are allowed",
        ),
    ],
    ids=["anthropic", "vertex"],
)
def test_counting_tokens_is_capped_the_same_way(
    make_server: MakeServer, wire_to: WireTo, route: str, body: dict[str, Any], message: str
):
    wire = wire_to(make_server(DEFAULT))
    status, _, answer = wire.post_json(route, body, [("anthropic-version", "2023-06-01")])
    assert status == 400, answer[:300]
    assert orjson.loads(answer)["error"]["message"].startswith(message)
