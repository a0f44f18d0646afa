"""What a generateContent URL says: the model (`{provider}/{model}`, the ZenMux slug), whether it
streams and how, and whether it is the Gemini API's form (`v1beta/models/…`) or Vertex AI's
(`v1/publishers/…`, `v1/projects/…/locations/…/publishers/…`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

BASE = "/api/vertex-ai"
MODEL = "{name:[^/:]+}"
GEMINI_API = f"{BASE}/{{version:v1beta|v1}}/models"
VERTEX_VERSION = "{vertex_version:v1|v1beta1}"
"""Vertex AI's versions: ZenMux's docs use v1; google-genai's and LangChain's default is v1beta1."""
VERTEX = f"{BASE}/{VERTEX_VERSION}/publishers/{{provider}}/models"
VERTEX_PROJECT = f"{BASE}/{VERTEX_VERSION}/projects/{{project}}/locations/{{location}}/publishers/{{provider}}/models"
MODEL_PATHS = (
    f"{GEMINI_API}/{{provider}}/{MODEL}",
    f"{GEMINI_API}/{MODEL}",
    f"{VERTEX}/{MODEL}",
    f"{VERTEX_PROJECT}/{MODEL}",
)
"""Every form of a model's URL; the action follows it after a colon."""
GENERATE = "{action:generateContent|streamGenerateContent}"
DEFAULT_PROVIDER = "google"
"""The provider of a model named without one (`v1beta/models/gemini-2.5-pro`): Google's names are Gemini's."""


@dataclass(frozen=True, slots=True)
class Target:
    model: str
    stream: bool
    sse: bool
    gemini_api: bool
    warnings: tuple[str, ...] = ()


def model_of(params: Mapping[str, str]) -> str:
    return f"{params.get('provider') or DEFAULT_PROVIDER}/{params['name']}"


def target(params: Mapping[str, str], query: Mapping[str, str]) -> Target:
    stream = params.get("action") == "streamGenerateContent"
    alt = query.get("alt")
    warnings = () if alt in (None, "sse", "json") else (f"alt={alt}: not a value the emulator knows; ignored",)
    return Target(model_of(params), stream, alt == "sse", "version" in params, warnings)
