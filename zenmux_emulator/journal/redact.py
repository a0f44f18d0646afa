"""Keep secrets out of the journal and the logs."""

from __future__ import annotations

from collections.abc import Mapping

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "proxy-authorization", "cookie",
                            "x-emulator-admin-token"})


def mask(value: str) -> str:
    """A secret reduced to its scheme word (if any) and a fixed mask."""
    scheme, sep, _ = value.partition(" ")
    return f"{scheme} ***" if sep and scheme.isalpha() else "***"


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers with every credential masked (multi-valued headers joined by ', ')."""
    result: dict[str, str] = {}
    for key, value in headers.items():
        name = str(key)  # aiohttp's case-insensitive keys are a str subclass orjson refuses
        shown = mask(value) if name.lower() in SECRET_HEADERS else value
        result[name] = f"{result[name]}, {shown}" if name in result else shown
    return result
