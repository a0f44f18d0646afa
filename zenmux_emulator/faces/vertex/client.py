"""The pytest plugin's client of the Vertex AI / Gemini face (`FaceSpec.client`): google-genai's
`Client` on its base URL, imported only when a test asks for one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google import genai


def gemini_client(*, base_url: str, api_key: str, vertexai: bool = True, **options: Any) -> genai.Client:
    """`vertexai=True` calls the `v1/publishers/…` paths, `vertexai=False` the Gemini API's
    `v1beta/models/…` ones."""
    from google import genai
    from google.genai import types

    http = types.HttpOptions(base_url=base_url, api_version="v1" if vertexai else "v1beta")
    return genai.Client(**{"api_key": api_key, "vertexai": vertexai, "http_options": http, **options})
