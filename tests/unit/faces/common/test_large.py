"""A large body's request, made in a thread, waits for its parse in that request's own context
(`ctx.preloaded`), not on the long-lived face (issue 43, item 1): another request's parse of the
same body object finds nothing the first one made."""

from __future__ import annotations

from functools import partial
from typing import Any

import orjson
import pytest
from yarl import URL

from tests.unit.core.test_endpoint import endpoints
from zenmux_emulator.core.exchange import FaceContext
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.foundation.offload import LARGE_BYTES, Deferred, attempt

WORDS = "lorem ipsum " * (LARGE_BYTES // 12 + 64)
BODIES: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "chat": ({"model": "openai/gpt-4o", "messages": [{"role": "user", "content": WORDS}]}, {}),
    "responses": ({"model": "openai/gpt-4o", "input": WORDS}, {}),
    "vertex": (
        {"contents": [{"role": "user", "parts": [{"text": WORDS}]}]},
        {"provider": "google", "name": "gemini-2.5-flash:generateContent"},
    ),
}


def context(body: dict[str, Any], params: dict[str, str]) -> FaceContext:
    ctx = FaceContext("s", {"Content-Type": "application/json"}, params, URL("/"))
    ctx.body_bytes = len(orjson.dumps(body))
    return ctx


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_large_bodys_request_made_in_a_thread_waits_in_its_own_context(name: str) -> None:
    face = next(endpoint.face for endpoint in endpoints() if endpoint.face.name == name)
    body, params = BODIES[name]
    mine, other = context(body, params), context(body, params)
    assert mine.body_bytes is not None and mine.body_bytes >= LARGE_BYTES

    deferred = attempt(partial(face.parse, body, mine))
    assert isinstance(deferred, Deferred), "a large body's parse is made in a thread"
    deferred.work()  # the thread's part, run here

    assert isinstance(attempt(partial(face.parse, body, other)), Deferred), (
        "another request found the request made for this one on the face"
    )
    made = attempt(partial(face.parse, body, mine))
    assert isinstance(made, NeutralRequest)
    assert made.prompt_tokens > LARGE_BYTES // 12
