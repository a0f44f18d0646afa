"""Costly work found while a request is parsed, done in a thread instead of on the event loop.

A face's parse is synchronous and runs on the loop (it may read and write the face's own objects).
Most of it is cheap; a step that may not be (checking a large JSON Schema against its meta-schema
the first time it is seen) calls `defer` with its costly part. While the endpoint parses, `defer`
raises `Deferred`; the endpoint runs that part in a thread (where it keeps its result, say in a
cache), then parses again, and the step finds its result ready. Anywhere else (the control API's
match, unit code) `defer` does the work at once, as before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

from zenmux_emulator.foundation.collector import collector_paused

T = TypeVar("T")

ROUNDS = 64
"""How many deferred parts one parse may hand to the thread before it is run through whole (each
round's part is kept, so the next round goes further; this bounds a request that names many)."""

_DEFERRING: ContextVar[bool] = ContextVar("deferring", default=False)


class Deferred(Exception):  # not an error: the parse's signal to its caller
    """A parse's costly part, to be run in a thread before the parse is tried again."""

    def __init__(self, work: Callable[[], object]) -> None:
        super().__init__("deferred")
        self.work = work


def defer(work: Callable[[], T]) -> T:
    """`work()`, or, while `parse_off_loop` parses, the `Deferred` that hands it to a thread."""
    if _DEFERRING.get():
        raise Deferred(work)
    return work()


def deferring() -> bool:
    """Whether `defer` would hand its work to a thread (a parse run by `parse_off_loop`)."""
    return _DEFERRING.get()


LARGE_BYTES = 128 * 1024
"""A body this large (some thousands of messages or parts) is parsed by its face in a thread: its
validation and its conversation's walks held the loop 0.1 to 0.4 s at 16,384 items."""


def large(body_bytes: int | None) -> bool:
    """Whether a body of this size is `LARGE_BYTES` or more (unknown: not)."""
    return body_bytes is not None and body_bytes >= LARGE_BYTES


def made_quietly(make: Callable[[], T]) -> T:
    """(In the thread) `make()` with the cycle collector paused: its full collections over a large
    body's objects, run in the thread holding the interpreter, held the event loop as long."""
    with collector_paused(freeze=False):
        return make()


def attempt(parse: Callable[[], T]) -> T | Deferred:
    """`parse()` on the loop, or the `Deferred` it raised: its costly part, for `settle`."""
    token = _DEFERRING.set(True)
    try:
        return parse()
    except Deferred as deferred:
        # without its traceback: its frames (the parse's, whose caller keeps the Deferred) would
        # make a reference cycle, and the body would wait for the cycle collector to go
        return deferred.with_traceback(None)
    finally:
        _DEFERRING.reset(token)


async def settle(deferred: Deferred, parse: Callable[[], T]) -> T:
    """`parse()` again once the deferred part has run in a thread, as often as it defers another."""
    for _ in range(ROUNDS):
        await asyncio.to_thread(deferred.work)
        outcome = attempt(parse)
        if not isinstance(outcome, Deferred):
            return outcome
        deferred = outcome
    return parse()


async def parse_off_loop(parse: Callable[[], T]) -> T:
    """`parse()`, its costly parts run in a thread first (see the module's docstring)."""
    outcome = attempt(parse)
    return await settle(outcome, parse) if isinstance(outcome, Deferred) else outcome
