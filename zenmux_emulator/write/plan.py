"""What a face's render hands to `write/`: a finished JSON body, or SSE events made as they are
written, with their pacing and any fault to inject, all decided before any byte is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from zenmux_emulator.scenario.schema import RawReply, StreamFault
from zenmux_emulator.write.pacing import Schedule, fault_position


class Events:
    """The SSE events of one reply, made one at a time as they are written, never all held: an
    open stream costs the same memory whatever its length. Each iteration runs the face's
    generator afresh, so the journal, when read, makes the same bytes again (a reply is
    deterministic). `marked()` pairs every event with whether it waits its turn in the pacing;
    iterated, the events come as the face makes them, unpaired where it gave them so (a stream
    nothing paces, the journal read). It keeps its makers and the count of unpaced events at its
    end, not a closure over them: an open stream holds it, and the journal every stream it keeps."""

    __slots__ = ("_last", "_make", "_unmarked")

    def __init__(
        self,
        make: Callable[[], Iterator[tuple[bytes, bool]]] | None,
        unmarked: Callable[[], Iterator[bytes]] | None = None,
        last: int = 0,
    ) -> None:
        self._make = make
        self._unmarked = unmarked
        self._last = last

    @classmethod
    def paced_but_last(cls, make: Callable[[], Iterator[bytes]], last: int) -> Events:
        """Every event waits its turn but the final `last` (a usage chunk, [DONE]: they follow at once)."""
        return cls(None, make, last)

    def marked(self) -> Iterator[tuple[bytes, bool]]:
        if self._make is not None:
            return self._make()
        assert self._unmarked is not None
        return _all_but_last(self._unmarked(), self._last)

    def __iter__(self) -> Iterator[bytes]:
        if self._unmarked is not None:
            return self._unmarked()
        assert self._make is not None
        return (event for event, _ in self._make())

    def count(self) -> int:
        """How many events there are, made and dropped one by one."""
        return sum(1 for _ in self)


def _all_but_last(events: Iterator[bytes], last: int) -> Iterator[tuple[bytes, bool]]:
    held: list[bytes] = []  # a few events at most: lighter than a deque's 600-byte block
    for event in events:
        held.append(event)
        if len(held) > last:
            yield held.pop(0), True
    for event in held:
        yield event, False


@dataclass(eq=False)
class ReplyPlan:
    """A reply: JSON (`body`) or SSE (`events`), how long to wait, and what to break. Not frozen:
    a face adds what only it knows (the id in its body, the usage to charge) after the builder."""

    headers: dict[str, str]
    body: bytes | None = None
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


def raw_plan(raw: RawReply) -> ReplyPlan:
    """Exactly the scripted bytes, status and content type: for hardening clients."""
    return ReplyPlan(headers=dict(raw.headers or {}), body=raw.data, status=raw.status, content_type=raw.content_type)


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
    fault_at, fault_event = 0, b""
    if fault is not None:
        fault_at = fault_position(fault, events.count)
        if fault.kind == "malformed":
            fault_event = malformed
        elif fault.kind == "error" and error_event is not None:
            fault_event = error_event(fault, fault_at)
    return ReplyPlan(
        headers=headers,
        events=events,
        schedule=schedule,
        content_type="text/event-stream",
        stream_fault=fault,
        fault_at=fault_at,
        fault_event=fault_event,
        reply_id=reply_id,
        usage=usage,
    )
