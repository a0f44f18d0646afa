"""The pytest plugin's client of the OpenAI-compatible faces (`FaceSpec.client`): `openai.OpenAI`
on the face's base URL, imported only when a test asks for one (openai is not a dependency)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import openai


def openai_client(**options: Any) -> openai.OpenAI:
    """`openai.OpenAI(base_url=..., api_key=..., ...)`, `max_retries` 0 unless given."""
    import openai

    return openai.OpenAI(**{"max_retries": 0, **options})
