"""A large body's request, made in a thread (`prepared`): validated and built there, with the facts
the core reads of its whole conversation worked out before the event loop reads them, so a
conversation of thousands of items is walked off the loop. The request made waits for the parse that
runs again in the request's own `FaceContext.preloaded`, never on the long-lived face."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.foundation.offload import defer, deferring, made_quietly

R = TypeVar("R", bound=NeutralRequest)

WARMED = ("texts", "roles", "turn", "last_user", "system", "seed_text")
"""The facts of the whole conversation the core reads of (nearly) every request."""
WHOLE_COUNT = 1 << 20
"""Tokens a prompt is counted to in the thread. Within it the count is exact, and so right for any
context window (past a model's window any number above it will do: the request is a 413); past
it, the prompt is counted on the loop as before, up to its model's window."""


def warmed(request: R, *facts: str) -> R:
    """`request` with its conversation's facts (`WARMED`, and the face's own `facts`) and its
    prompt's size worked out now (in the thread; `token_limit` is set only later, by the endpoint,
    so the count is made here against `WHOLE_COUNT`)."""
    for fact in WARMED + facts:
        getattr(request, fact)
    request.token_limit = WHOLE_COUNT
    counted = request.prompt_tokens
    known = vars(request)
    del known["prompt_tokens"]
    request.token_limit = None
    if counted <= WHOLE_COUNT:
        known["prompt_tokens"] = counted
    return request


@dataclass(slots=True)
class Prepared(Generic[R]):
    """A large body's request made in a thread, in its `ctx.preloaded` for the parse that runs again."""

    request: R


def prepared(ctx: FaceContext, make: Callable[[], R]) -> R:
    """`make()` for a `large` body: in a thread when the parse may defer (`parse_off_loop`), the
    request it made kept in `ctx.preloaded` (what the face's `preload` put there `make` has read
    already), else at once."""
    found: Any = ctx.preloaded
    if isinstance(found, Prepared):
        return cast(R, found.request)
    if not deferring():
        return make()
    return defer(lambda: keep(ctx, made_quietly(make)))


def keep(ctx: FaceContext, request: R) -> R:
    """(In the thread) the request made, kept in its context for the parse that runs again."""
    ctx.preloaded = Prepared(request)
    return request
