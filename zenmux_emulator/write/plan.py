"""What a face's render hands to `write/`: a finished JSON body, or SSE events made as they are
written, with their pacing and any fault to inject, all decided before any byte is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from zenmux_emulator.scenario.schema import RawReply, StreamFault
from zenmux_emulator.write.pacing import Schedule, fault_position


class Events:
    """The SSE events of one reply, made one at a time as they are written, never all held: an
    open stream costs the same memory whatever its length. Each iteration runs the face's
    generator afresh, so the journal, when read, makes the same bytes again (a reply is
    deterministic). `marked()` pairs every event with whether it waits its turn in the pacing."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Iterator[tuple[bytes, bool]]]) -> None:
        self._make = make

    @classmethod
    def paced_but_last(cls, make: Callable[[], Iterator[bytes]], last: int) -> Events:
        """Every event waits its turn but the final `last` (a usage chunk, [DONE]: they follow at once)."""
        return cls(lambda: _all_but_last(make(), last))

    def marked(self) -> Iterator[tuple[bytes, bool]]:
        return self._make()

    def __iter__(self) -> Iterator[bytes]:
        return (event for event, _ in self._make())

    def count(self) -> int:
        """How many events there are, made and dropped one by one."""
        return sum(1 for _ in self._make())


def _all_but_last(events: Iterator[bytes], last: int) -> Iterator[tuple[bytes, bool]]:
    held: list[bytes] = []  # a few events at most: lighter than a deque's 600-byte block
    for event in events:
        held.append(event)
        if len(held) > last:
            yield held.pop(0), True
    for event in held:
        yield event, False


class ReplyPlan:
    """A reply: JSON (`body`) or SSE (`events`), how long to wait, and what to break. Made for
    every reply, so it is made with its headers and body only: a builder sets what else it has
    (`sse_plan`, `raw_plan`), and the rest reads the class's defaults below."""

    status: int = 200
    events: Events | None = None
    schedule: Schedule | None = None
    """The waits before the paced events, in order; None: the events go out at once."""
    content_type: str = "application/json"
    stream_fault: StreamFault | None = None
    fault_at: int = 0
    """How many events are written before the stream fault strikes."""
    fault_event: bytes = b""
    """The in-stream error event of an `error` stream fault."""
    reply_id: str = ""
    """The id in the reply's body when it is not the generation id (`msg_…`, `resp_…`): the
    generation lookup finds the completion by it too."""
    usage: Mapping[str, Any] | None = None
    """The usage to charge to the key's balance instead of the draft's, for a face whose reply is
    not the draft's text (ObjectiveAI's total over its LLMs, with its `cost` in USD); None: the draft's."""

    def __init__(self, headers: dict[str, str], body: bytes | None = None) -> None:
        self.headers = headers
        self.body = body


def raw_plan(raw: RawReply) -> ReplyPlan:
    """Exactly the scripted bytes, status and content type: for hardening clients."""
    plan = ReplyPlan(dict(raw.headers or {}), raw.body.encode())
    plan.status, plan.content_type = raw.status, raw.content_type
    return plan


def sse_plan(
    headers: dict[str, str],
    events: Events,
    schedule: Schedule | None,
    fault: StreamFault | None,
    malformed: bytes,
    error_event: Callable[[StreamFault, int], bytes] | None,
    usage: Mapping[str, Any] | None = None,
    reply_id: str = "",
) -> ReplyPlan:
    """A streamed reply; with a stream fault, where it strikes and what it sends there: the face's
    `malformed` bytes, or its `error_event(fault, position)` (none: the stream just ends)."""
    plan = ReplyPlan(headers)
    plan.events, plan.schedule, plan.content_type = events, schedule, "text/event-stream"
    plan.usage, plan.reply_id = usage, reply_id
    if fault is not None:
        plan.stream_fault, plan.fault_at = fault, fault_position(fault, events.count)
        if fault.kind == "malformed":
            plan.fault_event = malformed
        elif fault.kind == "error" and error_event is not None:
            plan.fault_event = error_event(fault, plan.fault_at)
    return plan
