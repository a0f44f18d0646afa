"""A face's side routes, with the endpoint's first and last steps around the face's own part, so
the face hands back what to send and this module writes the journal entry (as the endpoint and
the middleware do for every other request):

- `SideRoute` answers from the request alone (Anthropic's `count_tokens`, Vertex's
  `countTokens`): authenticate → read → the face's answer → write. A refusal (`RequestRejected`)
  goes on to the middleware, which answers it in ZenMux's envelope.
- `GuardedRoute` answers from the face's own objects (ObjectiveAI's registry, credits, stored
  completions): authenticate (the face's check) → the face's handler → JSON, a refusal in the
  face's terms.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.body import read_json
from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.gateway.auth import authenticate
from zenmux_emulator.core.headers import WARNINGS_HEADER, list_header
from zenmux_emulator.core.keys import ENTRY
from zenmux_emulator.foundation.offload import parse_off_loop
from zenmux_emulator.state.sessions import SESSION_HEADER, session_name


def note(request: web.Request, **facts: Any) -> None:
    """A face's own route's facts (`api`, `body`, `response`, …) written to its request's journal
    entry here, so that no face writes the entry itself."""
    entry = request[ENTRY]
    for name, value in facts.items():
        setattr(entry, name, value)


def note_session(request: web.Request, key: str | None) -> None:
    """A face's own route's session: the key's (or its header's), or, for a route that takes no key,
    its header's when it names one."""
    if key is not None:
        request[ENTRY].session = session_name(request.headers, key)
    elif request.headers.get(SESSION_HEADER):
        request[ENTRY].session = session_name(request.headers, "")


@dataclass(frozen=True, slots=True)
class SideAnswer:
    """What a side route answers: a JSON value, and the warnings the request earned."""

    body: object
    warnings: Sequence[str] = ()


Answer = Callable[[object, Mapping[str, str]], SideAnswer]
"""The face's part: the decoded body and the request's headers to the answer (or `RequestRejected`)."""


@dataclass(frozen=True, slots=True)
class SideRoute:
    """The handler of one side route of the face named `api`."""

    api: str
    core: Core
    answer: Answer

    async def handle(self, request: web.Request) -> web.Response:
        entry = request[ENTRY]
        entry.api = self.api
        authenticate(request.headers, self.core.accepted_keys())
        body = await read_json(request, self.core.settings.max_body_bytes)
        entry.body = body
        answer = await parse_off_loop(partial(self.answer, body, request.headers))  # a large schema: off the loop
        if answer.warnings:
            entry.warn(answer.warnings)
        sent = entry.response = orjson.dumps(answer.body)
        headers = {WARNINGS_HEADER: list_header(answer.warnings)} if answer.warnings else {}
        return web.Response(body=sent, content_type="application/json", headers=headers)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A side route's refusal in its face's own terms: status, the journal's error type, body, headers."""

    status: int
    type: str
    body: bytes
    headers: Mapping[str, str] | None = None


Authenticate = Callable[[Mapping[str, str], frozenset[str]], str]
Handler = Callable[[web.Request, str], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class GuardedRoute:
    """A face's side route over its own objects (ObjectiveAI's registry, credits, stored completions):
    the key checked as the face checks it, the session known, the handler's answer as JSON (or its
    own response), and a refusal the face's `refusal` recognises answered in the face's terms."""

    api: str
    core: Core
    handler: Handler
    authenticate: Authenticate
    refusal: Callable[[Exception], Refusal | None]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        entry = request[ENTRY]
        entry.api = self.api
        try:
            key = self.authenticate(request.headers, self.core.accepted_keys())
            entry.session = name = session_name(request.headers, key)
            self.core.state.visit(name)
            answer = await self.handler(request, key)
        except Exception as exc:
            refused = self.refusal(exc)
            if refused is None:
                raise
            entry.error_type = refused.type
            return web.Response(
                body=refused.body, status=refused.status, headers=refused.headers, content_type="application/json"
            )
        if isinstance(answer, web.StreamResponse):
            return answer
        return web.Response(body=orjson.dumps(answer), content_type="application/json")
