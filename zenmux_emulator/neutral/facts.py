"""What rules match on, read once from a validated request body and computed only when asked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

import orjson

T = TypeVar("T")


class cached(Generic[T]):
    """`functools.cached_property` without the lock Python 3.11 takes on each first read: a
    request's facts are read by one task only, and most are read once."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> T:
        if instance is None:
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.func(instance)
        return value


def content_text(content: object) -> str:
    """The text of a message's content: a string, or its text and refusal parts joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict):
                text = part.get("text", part.get("refusal"))
                if isinstance(text, str):
                    texts.append(text)
        return "\n".join(texts)
    return ""


def split_model(model: str) -> tuple[str, str | None]:
    """`vendor/model:provider` → (`vendor/model`, `provider`); the suffix pins a provider."""
    base, sep, provider = model.partition(":")
    return (base, provider) if sep and provider else (model, None)


class RequestFacts:
    """A read-only view of one request for matching, templates and near-miss reports."""

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        self.body = body
        self.headers = headers
        self.model, self.pinned_provider = split_model(body["model"])
        self.messages: list[dict[str, Any]] = body["messages"]
        self.stream: bool = body.get("stream") is True

    @cached
    def last_user(self) -> str:
        """The text of the last user message ('' when there is none)."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return ""

    @cached
    def system(self) -> str:
        """The system and developer prompts, joined by newlines."""
        return "\n".join(
            content_text(m.get("content")) for m in self.messages if m.get("role") in ("system", "developer")
        )

    @cached
    def texts(self) -> tuple[str, ...]:
        """The text of every message, in order."""
        return tuple(content_text(m.get("content")) for m in self.messages)

    @cached
    def turn(self) -> int:
        """How many assistant messages the conversation already has."""
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @cached
    def tools(self) -> tuple[str, ...]:
        """Names of the offered tools, in request order."""
        names = []
        for tool in self.body.get("tools") or ():
            inner = tool.get(tool.get("type", "function")) or {}
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                names.append(inner["name"])
        return tuple(names)

    @cached
    def tool_choice(self) -> str:
        """`none`, `auto`, `required`, or the name of the one tool forced. Absent: `auto` when
        tools are offered, else `none` (OpenAI's documented defaults)."""
        stated = self.stated_tool_choice
        if stated is None:
            return "auto" if self.body.get("tools") else "none"
        return stated

    @cached
    def stated_tool_choice(self) -> str | None:
        """The request's own `tool_choice`, normalised as `tool_choice` is; None when absent."""
        choice = self.body.get("tool_choice")
        if choice is None:
            return None
        if isinstance(choice, str):
            return choice
        kind = choice.get("type")
        inner = choice.get(kind) if isinstance(kind, str) else None
        if isinstance(inner, dict) and isinstance(inner.get("name"), str):
            return inner["name"]
        if kind == "allowed_tools":
            mode = choice.get("mode") or (choice.get("allowed_tools") or {}).get("mode")
            return str(mode or "auto")
        return "auto"

    @cached
    def last_tool_result(self) -> tuple[str, str] | None:
        """(tool name, content) when the last message is a tool result; the name comes from the call."""
        if not self.messages or self.messages[-1].get("role") != "tool":
            return None
        last = self.messages[-1]
        name = last.get("name")
        if not isinstance(name, str):
            name = self._tool_name_for(last.get("tool_call_id"))
        return name or "", content_text(last.get("content"))

    @cached
    def last_tool_json(self) -> Any:
        """The last tool result parsed as JSON (None when there is none or it is not JSON)."""
        result = self.last_tool_result
        if result is None:
            return None
        try:
            return orjson.loads(result[1])
        except orjson.JSONDecodeError:
            return None

    def _tool_name_for(self, call_id: object) -> str | None:
        for message in reversed(self.messages):
            for call in message.get("tool_calls") or ():
                if isinstance(call, dict) and call.get("id") == call_id:
                    inner = call.get(call.get("type", "function")) or {}
                    return inner.get("name") if isinstance(inner, dict) else None
        return None

    @cached
    def metadata(self) -> Mapping[str, str]:
        return self.body.get("metadata") or {}

    def template_context(self) -> dict[str, Any]:
        """The `request` a reply template sees."""
        result = self.last_tool_result
        return {
            "model": self.model,
            "last_user": self.last_user,
            "system": self.system,
            "turn": self.turn,
            "stream": self.stream,
            "tools": list(self.tools),
            "tool_choice": self.tool_choice,
            "metadata": dict(self.metadata),
            "messages": [{"role": m.get("role"), "content": t} for m, t in zip(self.messages, self.texts)],
            "tool_result": None if result is None else {"name": result[0], "content": result[1],
                                                        "json": self.last_tool_json},
        }
