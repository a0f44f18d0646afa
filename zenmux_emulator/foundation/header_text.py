"""Header values as text: the HTTP parser keeps bytes that are not UTF-8 as lone surrogates, which
no encoder (hashing a key, writing the journal) accepts, so the headers the emulator reads are
refused with a 400 naming them instead."""

from __future__ import annotations

from collections.abc import Mapping

from zenmux_emulator.foundation.errors import invalid_params


def header_text(headers: Mapping[str, str], name: str) -> str | None:
    """The header's value, or None; a 400 `invalid_params` when it holds bytes that are not UTF-8."""
    value = headers.get(name)
    if value is None or value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise invalid_params(f"Header {name} is not valid: its value is not UTF-8 text") from None
    return value
