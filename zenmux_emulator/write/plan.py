"""What `render/` hands to `write/`: a finished JSON body or finished SSE events, with their
timing and any fault to inject, decided in full before any byte is written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zenmux_emulator.scenario.schema import RawReply, StreamFault


@dataclass(slots=True)
class ReplyPlan:
    """A reply: JSON (`body`) or SSE (`events`), how long to wait, and what to break."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    events: list[bytes] | None = None
    waits: Sequence[float] = ()
    """Seconds to wait before each of the first events (the usage chunk and [DONE] never wait)."""
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
    return ReplyPlan(status=raw.status, headers=dict(raw.headers or {}), body=raw.body.encode(),
                     content_type=raw.content_type)
