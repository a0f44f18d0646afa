"""What the upstream answered, as captured while it was passed through."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from zenmux_emulator.core.neutral.recorded import Event


@dataclass(slots=True)
class Exchange:
    """One forwarded request's answer."""

    status: int = 0
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = ""
    body: bytes = b""
    events: list[Event] = field(default_factory=list)
    stream: bool = False
    broken: bool = False
    """The upstream's stream ended without its end: the connection was cut part-way."""
    unreachable: str | None = None
    """Why no answer came at all (connection refused, closed, reset, timed out)."""
    client_gone: bool = False
    """The client left before the stream ended: what was captured is not the whole answer."""


class EventSplitter:
    """Cuts a byte stream into events as it arrives; comments (keep-alives) are dropped."""

    def __init__(self) -> None:
        self._buffer = b""
        self.events: list[Event] = []

    def feed(self, chunk: bytes, at_ms: float) -> None:
        self._buffer += chunk.replace(b"\r\n", b"\n")
        while b"\n\n" in self._buffer:
            block, self._buffer = self._buffer.split(b"\n\n", 1)
            self._add(block, at_ms)

    def _add(self, block: bytes, at_ms: float) -> None:
        name: str | None = None
        data: list[str] = []
        for line in block.decode("utf-8", "replace").split("\n"):
            if line.startswith(":") or not line:
                continue
            key, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if key == "event":
                name = value
            elif key == "data":
                data.append(value)
        if data:
            self.events.append(Event(name, "\n".join(data), at_ms))
