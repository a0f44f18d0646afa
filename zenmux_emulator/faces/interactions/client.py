"""The pytest plugin's client of the Interactions face (`FaceSpec.client`): google-genai's `Client`,
whose `client.interactions` calls `{base_url}/v1/interactions`; imported only when a test asks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google import genai


def interactions_client(*, base_url: str, api_key: str, **options: Any) -> genai.Client:
    """google-genai on the Gemini API form (`vertexai=False`) with api_version v1, as ZenMux's
    `/api/v1/interactions` is reached from the base URL `…/api`."""
    from google import genai
    from google.genai import types

    http = types.HttpOptions(base_url=base_url, api_version="v1")
    return genai.Client(**{"api_key": api_key, "vertexai": False, "http_options": http, **options})
