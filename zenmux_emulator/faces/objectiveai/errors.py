"""This face's error: `{"kind": "query", "error": {"kind": K, "error": TEXT}}` with an HTTP status (§4.8)."""

from __future__ import annotations

from typing import Any

import orjson

from zenmux_emulator.foundation.errors import INVALID_PARAMS

AREA = "query"
KINDS = {INVALID_PARAMS: "invalid_request"}
"""The emulator's error types this face names otherwise."""


def error_message(kind: str, text: str) -> dict[str, Any]:
    """The JSON of an error in this face's shape (the HTTP body, or a choice error's `message`)."""
    return {"kind": AREA, "error": {"kind": kind, "error": text}}


def error_body(status: int, type: str, message: str) -> bytes:
    """An error of the emulator's (its type, as every face has them) in this face's envelope."""
    return orjson.dumps(error_message(KINDS.get(type, type), message))


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
