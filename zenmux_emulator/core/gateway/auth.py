"""Who is calling: the API key from any header ZenMux accepts, checked against the allowed keys."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import lru_cache
from typing import Self

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


HINT_HEADER = "X-Emulator-Hint"
"""Why the emulator refused a key, beside ZenMux's own 403 body (which says only "no permission")."""
SHOWN_KEYS = 3


class AcceptedKeys(frozenset[str]):
    """The keys a server accepts (empty: any), knowing which list each came from, for the 403's hint."""

    flag: frozenset[str]
    files: frozenset[str]

    def __new__(cls, flag: Collection[str], files: Collection[str]) -> Self:
        made = super().__new__(cls, {*flag, *files})
        made.flag, made.files = frozenset(flag), frozenset(files)
        return made


def masked(key: str) -> str:
    """A key as a hint shows it (ASCII, as a header): its first 8 and last 4 characters when it is long, else `***`."""
    return f"{key[:8]}...{key[-4:]}" if len(key) >= 16 else "***"


def _listed(name: str, keys: frozenset[str]) -> str:
    if not keys:
        return f"{name} (none)"
    shown = ", ".join(masked(k) for k in sorted(keys)[:SHOWN_KEYS])
    more = f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else ""
    return f"{name} ({len(keys)}: {shown}{more})"


def refusal_hint(key: str | None, accepted: Collection[str]) -> str:
    """The emulator's word on a refused key: none was sent, or the lists it is not in (masked)."""
    if key is None:
        return "no API key: send one as Authorization: Bearer, x-api-key or x-goog-api-key"
    if not isinstance(accepted, AcceptedKeys):
        return f"the key {masked(key)} is not one of the {len(accepted)} accepted keys"
    lists = [_listed("--api-key", accepted.flag), _listed("the scenario files' settings.api_keys", accepted.files)]
    return f"the key {masked(key)} is in neither list of accepted keys: {' nor '.join(lists)}"


def authenticate(headers: Mapping[str, str], accepted: Collection[str]) -> str:
    """The caller's key; 403 `access_denied` when it is missing or, if keys are restricted, unknown
    (ZenMux's body, and the emulator's hint in `X-Emulator-Hint`)."""
    key = api_key(headers)
    if key is None or (accepted and key not in accepted):
        raise RequestRejected(403, "access_denied", ACCESS_DENIED, {HINT_HEADER: refusal_hint(key, accepted)})
    return key
