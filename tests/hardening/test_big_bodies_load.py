"""Issue 40, item 7: a request under 1 MB held the event loop past 100 ms, so every other client
waited behind it: Responses with 16,384 items 170 to 250 ms on an idle machine, 1 MB of arrays
nested 60 deep 140 to 230 ms, chat with 16,384 messages up to 170 ms, Vertex with 16,384 parts up
to 150 ms. A large body is now decoded with the cycle collector paused and parsed by its face in a
thread, and a Responses input is listed when it is read: a health probe sent meanwhile is
answered promptly (see stalls for how)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.faces import FACE_IDS, FACES, Face, conversation
from tests.hardening.stalls import assert_no_stall, timed_with_probes
from zenmux_emulator.faces.common.counts import ANTHROPIC_MESSAGES, CONVERSATION_ITEMS, PARTS_IN_ALL

RULES = "rules:\n  - name: hi\n    reply: {content: hi}\n"
PROBE_WITHIN_S = 0.75
"""The issue asks 100 ms on an idle machine; the loaded test machine gets the margin the other
load tests take (a lone probe has waited over a second there): see docs/reference/limits.md for
what these bodies hold the loop, idle and loaded."""
BY_NAME = {face.name: face for face in FACES}


def nested_arrays(depth: int = 60, size: int = 1_000_000) -> list[Any]:
    """About `size` bytes of JSON: arrays nested `depth` levels deep (counted from the body's own
    object, which holds them in one more array), side by side."""
    one: list[Any] = [1, 2, 3, 4, 5, 6, 7, 8]
    for _ in range(depth - 3):
        one = [one]
    return [one] * (size // len(orjson.dumps(one)))


def served(make_server: MakeServer, wire_to: WireTo, face: Face, body: dict[str, Any], under: int = 1 << 20) -> None:
    """The body (of fewer than `under` bytes) answered 200, and no health probe sent meanwhile
    waited past the margin."""
    server = make_server(RULES)
    wire = wire_to(server)
    raw = orjson.dumps(body)
    assert len(raw) < under

    def send() -> tuple[int, bytes]:
        status, _, answer = wire.post_json(face.route, raw, list(face.headers))
        return status, answer

    timed = timed_with_probes(server, send, warm=lambda: wire_to(server).ask(face, face.valid()))
    assert_no_stall(timed, probe_within=PROBE_WITHIN_S)
    assert timed.status == 200, timed.body[:300]


@pytest.mark.parametrize(
    ("name", "items", "parts"),
    [
        ("chat", CONVERSATION_ITEMS, 1),
        ("responses", CONVERSATION_ITEMS, 1),
        ("vertex", 1, PARTS_IN_ALL),
        ("anthropic", ANTHROPIC_MESSAGES, 1),
        ("objectiveai", CONVERSATION_ITEMS, 1),
    ],
    ids=["chat-messages", "responses-items", "vertex-parts", "anthropic-messages", "objectiveai-messages"],
)
def test_a_conversation_at_the_caps_does_not_hold_a_health_probe(
    make_server: MakeServer, wire_to: WireTo, name: str, items: int, parts: int
):
    """Anthropic's own cap is 100,000 messages (3.3 MB here): before, they were parsed on the loop,
    and a probe waited 1.5 s on an idle machine."""
    face = BY_NAME[name]
    served(make_server, wire_to, face, conversation(face, items, parts), under=4 << 20)


@pytest.mark.parametrize("face", FACES, ids=FACE_IDS)
def test_a_megabyte_of_arrays_60_deep_does_not_hold_a_health_probe(
    make_server: MakeServer, wire_to: WireTo, face: Face
):
    """Any JSON face: the arrays ride in a field the face ignores (with a warning), so what the
    probes wait for is the body's decoding and its nesting check."""
    body = {**face.valid(), "x_nested": nested_arrays()}
    assert len(orjson.dumps(body)) > 900_000
    served(make_server, wire_to, face, body)
