"""Strict SSE reading for wire tests: split a raw body into events and check the framing."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SSEBody:
    """A parsed `text/event-stream` body: the data payloads, the comment lines, and [DONE]."""

    data: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    done: bool = False

    @property
    def chunks(self) -> list[dict[str, Any]]:
        """Every JSON payload before [DONE]."""
        return [json.loads(d) for d in self.data if d != "[DONE]"]


def parse_sse(raw: bytes) -> SSEBody:
    """Parse strictly: every event is `data: <payload>` or `: comment`, each ended by a blank line."""
    text = raw.decode("utf-8")
    assert "\r" not in text, "events must be separated by LF only"
    assert text.endswith("\n\n"), f"the body must end with a blank line, ends with {text[-20:]!r}"
    body = SSEBody()
    for block in text[:-2].split("\n\n"):
        lines = block.split("\n")
        assert len(lines) == 1, f"one line per event expected, got {lines!r}"
        line = lines[0]
        if line.startswith(":"):
            body.comments.append(line[1:].strip())
            continue
        assert line.startswith("data: "), f"unexpected line {line!r}"
        assert not body.done, "nothing may follow data: [DONE]"
        payload = line[len("data: ") :]
        if payload == "[DONE]":
            body.done = True
        body.data.append(payload)
    return body
