"""Request bodies the suites send: one place for the shape of a minimal valid chat request."""

from __future__ import annotations

from typing import Any

DEFAULT_MODEL = "openai/gpt-5.4-mini"


def user(text: str) -> list[dict[str, Any]]:
    """A conversation of one user message."""
    return [{"role": "user", "content": text}]


def chat_body(text: str = "hello", model: str = DEFAULT_MODEL, **fields: Any) -> dict[str, Any]:
    """A valid chat completions body with one user message, `fields` added."""
    return {"model": model, "messages": user(text), **fields}
