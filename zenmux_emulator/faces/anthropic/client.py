"""The pytest plugin's client of the Anthropic face (`FaceSpec.client`): `anthropic.Anthropic` on
its base URL, imported only when a test asks for one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import anthropic


def anthropic_client(**options: Any) -> anthropic.Anthropic:
    """`anthropic.Anthropic(base_url=..., api_key=..., ...)`, `max_retries` 0 unless given; the SDK
    sends its own `anthropic-version`, as users do (the face takes every dated version)."""
    import anthropic

    return anthropic.Anthropic(**{"max_retries": 0, **options})
