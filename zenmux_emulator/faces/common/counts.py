"""Caps on how many items a conversation holds, checked on the raw body before the face validates it.

Validating an item costs microseconds, but pydantic validates in Rust holding the GIL, so 200,000
messages (or text parts) held the event loop two seconds, and no thread can take that work. A
face counts first: the conversation's length (`messages`, `input`, `contents`) against its cap,
then the parts of all its items together (content parts and blocks, tool calls, the blocks of tool
results, a system prompt's blocks) against theirs. Counting reads list lengths and touches each
item once, so even a refused body of millions of items costs milliseconds; a body too small to
pass a cap (a JSON array of n items takes at least 2n + 1 bytes) is not counted at all. Each face
words the refusal its own way, naming the array and the limit (`Overlong`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zenmux_emulator.foundation.errors import invalid_params

CONVERSATION_ITEMS = 16_384
"""The emulator's cap on a conversation's length where the upstream documents none (OpenAI's chat
`messages`, ObjectiveAI's, Responses `input`, Gemini `contents`): 2^14, far past any real
conversation (a million-token context holds about that many of the shortest turns)."""
ANTHROPIC_MESSAGES = 100_000
"""Anthropic's documented cap: "There is a limit of 100,000 messages in a single request"."""
PARTS_IN_ALL = 16_384
"""The emulator's cap on the parts of all a conversation's items together (no upstream documents one)."""


@dataclass(frozen=True, slots=True)
class Overlong:
    """An array past its cap. `path` is where: the conversation itself (`("messages",)`) when it is
    too long, else the array whose parts crossed the cap of all parts (`("messages", 3, "content")`,
    `("system",)`); `count` is the conversation's length, or the parts counted up to that array."""

    path: tuple[str | int, ...]
    limit: int
    count: int
    parts: bool = False
    """Whether the parts of all items together are past their cap (not the conversation's length)."""


@dataclass(frozen=True)
class ConversationCaps:
    """What one face counts: its conversation's field and cap, and the arrays whose parts count together."""

    field: str
    """The conversation's field: `messages`, `input` or `contents`."""
    parts: tuple[str, ...]
    """The keys of an item whose arrays hold its parts (`content`, `tool_calls`, `parts`)."""
    items: int = CONVERSATION_ITEMS
    all_parts: int = PARTS_IN_ALL
    inner: str | None = None
    """A key of a part whose own array counts too (`content` of an Anthropic tool result)."""
    beside: tuple[tuple[str, ...], ...] = ()
    """Paths from the body's top to arrays of parts outside the conversation (a system prompt's)."""

    def overlong(self, body: Mapping[str, Any], body_bytes: int | None = None) -> Overlong | None:
        """The first array past its cap, or None; anything not a list is left to validation.
        `body_bytes` is the size of the JSON `body` came from (None: not known): every item and
        part counted is an element of an array, and each takes a byte of its own and a comma or
        closing bracket after it, so a body of at most twice the smaller cap passes neither."""
        if body_bytes is not None and body_bytes <= 2 * min(self.items, self.all_parts):
            return None
        items = body.get(self.field)
        if not isinstance(items, list):
            return None
        if len(items) > self.items:
            return Overlong((self.field,), self.items, len(items))
        counted = 0
        for path in self.beside:
            counted += self._count(_reach(body, path), counted)
            if counted > self.all_parts:
                return Overlong(tuple(path), self.all_parts, counted, parts=True)
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            for key in self.parts:
                counted += self._count(item.get(key), counted)
                if counted > self.all_parts:
                    return Overlong((self.field, index, key), self.all_parts, counted, parts=True)
        return None

    def refuse_overlong(
        self, body: Mapping[str, Any], say: Callable[[Overlong], str], body_bytes: int | None = None
    ) -> None:
        """The 400 `invalid_params` worded by `say` when an array is past its cap."""
        overlong = self.overlong(body, body_bytes)
        if overlong is not None:
            raise invalid_params(say(overlong))

    def _count(self, parts: object, before: int) -> int:
        """The parts of one array (with those inside them), counted after `before` others: an array
        that crosses the cap by its own length is not walked."""
        if not isinstance(parts, list):
            return 0
        if self.inner is None or before + len(parts) > self.all_parts:
            return len(parts)
        inner = self.inner
        return len(parts) + sum(
            len(part[inner]) for part in parts if isinstance(part, dict) and isinstance(part.get(inner), list)
        )


def _reach(body: Mapping[str, Any], path: Sequence[str]) -> object:
    value: object = body
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
