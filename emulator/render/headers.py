"""Response headers of a completion: the generation id, and the emulator's own debugging headers."""

from __future__ import annotations

WARNINGS_HEADER = "X-Emulator-Warnings"
RULE_HEADER = "X-Emulator-Rule"
MAX_WARNINGS_HEADER = 1000


def ascii_header(text: str) -> str:
    """Header values travel as latin-1: anything beyond ASCII is escaped, never garbled."""
    return text.encode("ascii", "backslashreplace").decode()


def warnings_header(warnings: tuple[str, ...]) -> str:
    """The warnings as one header value, cut to fit clients' header limits (the journal has all)."""
    text = ""
    for shown, warning in enumerate(warnings):
        candidate = f"{text}; {ascii_header(warning)}" if text else ascii_header(warning)
        if len(candidate) > MAX_WARNINGS_HEADER:
            return f"{text}; and {len(warnings) - shown} more (see the journal)"
        text = candidate
    return text


def reply_headers(generation_id: str, rule: str | None, warnings: tuple[str, ...]) -> dict[str, str]:
    """`x-generation-id`, plus `X-Emulator-Rule` when a rule answered and `X-Emulator-Warnings`."""
    headers = {"x-generation-id": generation_id}
    if rule is not None:
        headers[RULE_HEADER] = ascii_header(rule)
    if warnings:
        headers[WARNINGS_HEADER] = warnings_header(warnings)
    return headers
