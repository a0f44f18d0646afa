"""`input` read as a chat-shaped conversation, so match keys mean the same on every face.

`input` is a string (one user turn), one Content part, a list of Content parts (one user turn), or
a list of steps (the history: `user_input`, `model_output`, `function_call`, `function_result`,
`thought`). Text parts are the message's text; image, audio, video and document parts count as
media; a `function_result` is a tool result (not user text); other steps (built-in tools' calls and
results) are kept in the journal and not read. Each message is `{"role", "content", "parts"}` (the
media parts), with `tool_calls` or `tool_call_id` as chat's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from zenmux_emulator.foundation.errors import invalid_params

MEDIA = ("image", "audio", "video", "document")
CONTENT_TYPES = ("text", *MEDIA)
STEP_TYPES = ("user_input", "model_output", "function_call", "function_result", "thought")
ROLES = {"user_input": "user", "model_output": "assistant"}

Message = dict[str, Any]


def _type_of(item: object, where: str) -> str:
    kind = item.get("type") if isinstance(item, Mapping) else None
    if not isinstance(kind, str):
        raise invalid_params(f"{where}.type: Field required, a string naming the part or step")
    return kind


def content_message(role: str, parts: list[Any], where: str) -> Message:
    """A message of Content parts: its texts joined by newlines, its media counted."""
    texts: list[str] = []
    media = 0
    for n, part in enumerate(parts):
        at = f"{where}[{n}]"
        kind = _type_of(part, at)
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str):
                raise invalid_params(f"{at}.text: Input should be a valid string")
            texts.append(text)
        elif kind in MEDIA:
            media += 1
        else:
            raise invalid_params(f"{at}.type: expected one of {', '.join(CONTENT_TYPES)}, got '{kind}'")
    return {"role": role, "content": "\n".join(texts), "parts": media}


def _call(step: Mapping[str, Any], at: str) -> dict[str, Any]:
    name, call_id, arguments = step.get("name"), step.get("id"), step.get("arguments", {})
    if not isinstance(name, str):
        raise invalid_params(f"{at}.name: Field required")
    if not isinstance(arguments, dict):
        raise invalid_params(f"{at}.arguments: Input should be a valid dictionary")
    return {
        "id": call_id if isinstance(call_id, str) else "",
        "type": "function",
        "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
    }


def _result(step: Mapping[str, Any], at: str) -> Message:
    call_id, result = step.get("call_id"), step.get("result")
    if not isinstance(call_id, str):
        raise invalid_params(f"{at}.call_id: Field required")
    if result is None:
        raise invalid_params(f"{at}.result: Field required")
    text = result if isinstance(result, str) else orjson.dumps(result).decode()
    message: Message = {"role": "tool", "content": text, "parts": 0, "tool_call_id": call_id}
    if isinstance(step.get("name"), str):
        message["name"] = step["name"]
    return message


def _step(step: Mapping[str, Any], kind: str, at: str, messages: list[Message]) -> None:
    if kind in ROLES:
        content = step.get("content", [])
        if not isinstance(content, list):
            raise invalid_params(f"{at}.content: Input should be a valid list")
        messages.append(content_message(ROLES[kind], content, f"{at}.content"))
    elif kind == "function_call":
        call = _call(step, at)
        if messages and messages[-1]["role"] == "assistant":
            messages[-1].setdefault("tool_calls", []).append(call)
        else:
            messages.append({"role": "assistant", "content": "", "parts": 0, "tool_calls": [call]})
    elif kind == "function_result":
        messages.append(_result(step, at))


def to_messages(given: object) -> list[Message]:
    """The conversation `input` makes (validated as a string, an object or a list of objects)."""
    if isinstance(given, str):
        return [{"role": "user", "content": given, "parts": 0}]
    if isinstance(given, dict):
        return [content_message("user", [given], "input")]
    items: list[Any] = given if isinstance(given, list) else []
    if not items:
        raise invalid_params("input: List should have at least 1 item")
    if _type_of(items[0], "input[0]") not in STEP_TYPES:
        return [content_message("user", items, "input")]
    messages: list[Message] = []
    for n, step in enumerate(items):
        at = f"input[{n}]"
        kind = _type_of(step, at)
        if kind in CONTENT_TYPES:
            raise invalid_params(f"{at}.type: a list of steps cannot hold a content part ('{kind}')")
        _step(step, kind, at, messages)
    return messages
