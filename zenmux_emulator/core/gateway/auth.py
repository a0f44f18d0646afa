"""Who is calling: the API key from any header ZenMux accepts, checked against the allowed keys."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import lru_cache

from zenmux_emulator.foundation.envelope import ACCESS_DENIED
from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.header_text import header_text


@lru_cache(maxsize=1024)
def bearer_token(authorization: str) -> str | None:
    """The token of an `Authorization: Bearer …` value, or None (worked out once per value)."""
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def api_key(headers: Mapping[str, str]) -> str | None:
    """The key from `Authorization: Bearer`, `x-api-key` or `x-goog-api-key`, in that order."""
    authorization = headers.get("Authorization")
    if authorization is not None and not authorization.isascii():  # the usual key is ASCII: no call
        authorization = header_text(headers, "Authorization")
    if authorization:
        token = bearer_token(authorization)
        if token is not None:
            return token
    for name in ("x-api-key", "x-goog-api-key"):
        value = (header_text(headers, name) or "").strip()
        if value:
            return value
    return None


def authenticate(headers: Mapping[str, str], accepted: Collection[str]) -> str:
    """The caller's key; 403 `access_denied` when it is missing or, if keys are restricted, unknown."""
    key = api_key(headers)
    if key is None or (accepted and key not in accepted):
        raise RequestRejected(403, "access_denied", ACCESS_DENIED)
    return key
