"""This face's error: `{"kind": "query", "error": {"kind": K, "error": TEXT}}` with an HTTP status (§4.8)."""

from __future__ import annotations

from typing import Any

AREA = "query"


def error_message(kind: str, text: str) -> dict[str, Any]:
    """The JSON of an error in this face's shape (the HTTP body, or a choice error's `message`)."""
    return {"kind": AREA, "error": {"kind": kind, "error": text}}


class QueryRejected(Exception):
    """A request answered before the response starts: `status` and the JSON `body` to send."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body


def rejected(status: int, kind: str, text: str) -> QueryRejected:
    """A `QueryRejected` with the body `error_message(kind, text)`."""
    return QueryRejected(status, error_message(kind, text))


def invalid_request(path: str, text: str) -> QueryRejected:
    """The 400 `invalid_request` naming the JSON path at fault."""
    return rejected(400, "invalid_request", f"{path}: {text}" if path else text)


UNAUTHORIZED = error_message("unauthorized", "missing or invalid API key")
ALL_FAILED = error_message("all_choices_failed", "all choices failed, see choices for further details")
