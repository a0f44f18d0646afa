"""Keep secrets out of the journal and the logs."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "x-api-key",
        "x-goog-api-key",
        "proxy-authorization",
        "cookie",
        "x-emulator-admin-token",
        "api-key",
        "openai-organization",
        "openai-project",
        "anthropic-admin-api-key",
        "x-csrf-token",
    }
)
SECRET_WORDS = ("token", "secret", "password", "api-key", "apikey", "auth", "cookie", "credential", "signature")
"""A header whose name holds one of these (`X-Auth-Token`, `X-Amz-Security-Token`, …) is masked too."""


def mask(value: str) -> str:
    """A secret reduced to its scheme word (if any) and a fixed mask."""
    scheme, sep, _ = value.partition(" ")
    return f"{scheme} ***" if sep and scheme.isalpha() else "***"


@lru_cache(maxsize=1024)
def is_secret(name: str) -> bool:
    """Whether a header (by its lower-cased name) carries a credential (worked out once per name)."""
    return name in SECRET_HEADERS or any(word in name for word in SECRET_WORDS)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers with every credential masked (multi-valued headers joined by ', ')."""
    result: dict[str, str] = {}
    for key, value in headers.items():
        name = str(key)  # aiohttp's case-insensitive keys are a str subclass orjson refuses
        shown = mask(value) if is_secret(name.lower()) else value
        result[name] = f"{result[name]}, {shown}" if name in result else shown
    return result
