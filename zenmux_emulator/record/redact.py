"""Nothing secret is written: the caller's key wherever it appears, and whatever `--redact`
patterns match, are masked in every recorded text. Request headers are never written at all."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from zenmux_emulator.core.journal.redact import SECRET_HEADERS

MASK = "[REDACTED]"


def credentials(headers: Mapping[str, str]) -> list[str]:
    """The secret values a request carries (`Bearer sk-…` gives `sk-…`)."""
    found = []
    for name, value in headers.items():
        if name.lower() in SECRET_HEADERS and value:
            scheme, sep, rest = value.partition(" ")
            found.append(rest.strip() if sep and scheme.isalpha() and rest.strip() else value.strip())
    return [v for v in found if len(v) >= 4]


class Redactor:
    """Masks the patterns (and literal secrets) in texts and in whole reply structures."""

    def __init__(self, patterns: Iterable[str], secrets: Iterable[str] = ()) -> None:
        parts = [f"(?:{p})" for p in patterns] + [re.escape(s) for s in secrets]
        self.pattern = re.compile("|".join(parts)) if parts else None

    def with_secrets(self, secrets: Iterable[str]) -> Redactor:
        other = Redactor(())
        extra = [re.escape(s) for s in secrets]
        sources = ([self.pattern.pattern] if self.pattern else []) + extra
        other.pattern = re.compile("|".join(sources)) if sources else None
        return other

    def text(self, value: str) -> str:
        return self.pattern.sub(MASK, value) if self.pattern is not None else value

    def binary(self, data: bytes) -> bytes:
        """Bytes with the secrets masked where they appear (read as Latin-1, one character a byte,
        so every other byte is kept as it was)."""
        if self.pattern is None:
            return data
        return self.pattern.sub(MASK, data.decode("latin-1")).encode("latin-1")

    def deep(self, value: Any) -> Any:
        """Every string in a structure of lists and mappings (keys too) masked."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.deep(v) for v in value]
        if isinstance(value, dict):
            return {self.deep(k): self.deep(v) for k, v in value.items()}
        return value

    def text_match(self, value: str) -> dict[str, str]:
        """A text match for exactly `value`: `equals`, or, where parts are masked, a regex that
        takes any text in their place (the secret itself is never written)."""
        if self.pattern is None or self.pattern.search(value) is None:
            return {"equals": value}
        pieces = [re.escape(part).replace("\\ ", " ") for part in _split(self.pattern, value)]
        return {"regex": r"\A" + r"[\s\S]*?".join(pieces) + r"\Z"}


def _split(pattern: re.Pattern[str], value: str) -> list[str]:
    parts, at = [], 0
    for hit in pattern.finditer(value):
        parts.append(value[at : hit.start()])
        at = hit.end()
    parts.append(value[at:])
    return parts
