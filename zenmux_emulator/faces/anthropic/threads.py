"""Message threads (beta `message-threads-2026-08-12`, which the anthropic SDK's tool runner uses by
default): `thread: {"type": "create"}` keeps the conversation under the reply's `id`, and
`thread: {"type": "continue", "previous_message_id": ID}` sends only the new turn's messages, the
server adding the thread's `system`, `tools` and history. Kept per session like stored Responses
(in this process, or in the shared state under `--state`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

CREATE_ONLY = ("system", "tools")
"""Fields the thread keeps from its `create`: a `continue` must not send them again."""


@dataclass(frozen=True, slots=True)
class ThreadTurn:
    """What a `continue` from one reply adds to the request: the thread's create-only fields and
    every message up to and including that reply."""

    fields: Mapping[str, Any]
    messages: list[Any]

    def encode(self) -> bytes:
        return orjson.dumps({"fields": self.fields, "messages": self.messages})

    @classmethod
    def decode(cls, blob: bytes) -> ThreadTurn:
        data = orjson.loads(blob)
        return cls(data["fields"], data["messages"])


def continued_again(reply_id: str) -> RequestRejected:
    """A second `continue` from one reply, refused as Anthropic refuses it (the state marks a reply
    continued once, whichever worker or instance took the first)."""
    return invalid_params(
        f"thread.previous_message_id: message '{reply_id}' has already been continued; "
        "continue from the thread's most recent message id"
    )


def thread_of(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The request's `thread`, checked: None when it has none."""
    thread = body.get("thread")
    if thread is None:
        return None
    if not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
        raise invalid_params("thread.type: Input tag must be one of 'create', 'continue'")
    if thread["type"] == "continue":
        previous = thread.get("previous_message_id")
        if not isinstance(previous, str) or not previous:
            raise invalid_params("thread.previous_message_id: Field required")
        extra = sorted(set(thread) - {"type", "previous_message_id"})
    else:
        extra = sorted(set(thread) - {"type"})
    if extra:
        raise invalid_params(f"thread.{extra[0]}: Extra inputs are not permitted")
    return thread


def continued(body: Mapping[str, Any], thread: Mapping[str, Any], turn: ThreadTurn | None) -> dict[str, Any]:
    """The whole request a `continue` stands for: the thread's fields and history, then this turn's
    messages. 400 naming `thread` when the reply is unknown or a create-only field is sent again."""
    previous = thread["previous_message_id"]
    if turn is None:
        raise invalid_params(
            f"thread.previous_message_id: no thread holds message '{previous}' (threads are "
            'kept per session; start a new one with thread: {"type": "create"})'
        )
    again = [field for field in CREATE_ONLY if field in body]
    if again:
        raise invalid_params(
            f"{again[0]}: a thread keeps the `{again[0]}` it was created with; do not send it "
            "with thread.type `continue`"
        )
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise invalid_params("messages: Field required")
    return {**body, **turn.fields, "messages": [*turn.messages, *messages]}


def next_turn(body: Mapping[str, Any], reply: Mapping[str, Any]) -> ThreadTurn:
    """What a `continue` from `reply` will add: the (whole) request's create-only fields and its
    messages, then the reply as an assistant message."""
    fields = {field: body[field] for field in CREATE_ONLY if field in body}
    return ThreadTurn(fields, [*body["messages"], {"role": "assistant", "content": reply["content"]}])
