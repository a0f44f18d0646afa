"""What `render/` hands to `write/`: a finished JSON body or finished SSE events, plus timing."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class ReplyPlan:
    """A reply decided in full before any byte is written: JSON (`body`) or SSE (`events`)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    events: list[bytes] | None = None
    first_wait_s: float = 0.0
    gap_s: float = 0.0
    paced: int = 0
    """How many leading events wait before they are written (the usage chunk and [DONE] do not)."""
    content_type: str = "application/json"
