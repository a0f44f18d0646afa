"""Response headers of a completion: the generation id, and the emulator's own debugging headers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

WARNINGS_HEADER = "X-Emulator-Warnings"
EXPECTATIONS_HEADER = "X-Emulator-Expectations"
RULE_HEADER = "X-Emulator-Rule"
UNMATCHED_HEADER = "X-Emulator-Unmatched"
NEAREST_HEADER = "X-Emulator-Nearest-Rule"
JOURNAL_HEADER = "X-Emulator-Journal"
MAX_WARNINGS_HEADER = 1000


@lru_cache(maxsize=4096)
def ascii_header(text: str) -> str:
    """Header values travel as latin-1 and may not hold control characters: anything beyond
    printable ASCII (a line break in a model name, say) is escaped, never garbled or refused."""
    if text.isascii() and text.isprintable():
        return text
    return text.encode("unicode_escape").decode("ascii")


def list_header(items: Sequence[str]) -> str:
    """A list as one header value, cut to fit clients' header limits (the journal has all)."""
    text = ""
    for shown, item in enumerate(items):
        candidate = f"{text}; {ascii_header(item)}" if text else ascii_header(item)
        if len(candidate) > MAX_WARNINGS_HEADER:
            return f"{text}; and {len(items) - shown} more (see the journal)"
        text = candidate
    return text


def reply_headers(
    generation_id: str, rule: str | None, warnings: Sequence[str], unmet: Sequence[str] = ()
) -> dict[str, str]:
    """`x-generation-id`, plus `X-Emulator-Rule` when a rule answered, `X-Emulator-Warnings` and
    `X-Emulator-Expectations` (the rule's unmet expectations)."""
    headers = {"x-generation-id": generation_id}
    if rule is not None:
        headers[RULE_HEADER] = ascii_header(rule)
    if warnings:
        headers[WARNINGS_HEADER] = list_header(warnings)
    if unmet:
        headers[EXPECTATIONS_HEADER] = list_header(unmet)
    return headers


def unmatched_headers(near_misses: Sequence[Mapping[str, Any]], origin: str, seq: int) -> dict[str, str]:
    """The headers of a placeholder answer to a request no rule matched: that it is one, the nearest rule and what
    it missed (the journal entry's `near_misses`), and the URL of the request's journal entry."""
    nearest = "none: no rule could answer this face"
    if near_misses:
        near = near_misses[0]
        wanted = [f"{m['key']} wanted {m['expected']}, got {m['actual']}" for m in near["misses"]]
        nearest = list_header([f"{near['rule']} ({near['where']}) missed " + "; ".join(wanted[:1]), *wanted[1:]])
    return {
        UNMATCHED_HEADER: "true",
        NEAREST_HEADER: nearest,
        JOURNAL_HEADER: f"{origin}/_emulator/journal?after={seq - 1}&before={seq + 1}",
    }
