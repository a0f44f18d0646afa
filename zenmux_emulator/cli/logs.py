"""Logging set-up: human-readable text, or one JSON object per line for log collectors.

A text line's message has its control characters escaped (`\r` → `\\x0d`): what a client sent
(a path with `%0d%0a` decoded, a session header) cannot forge a line of its own. A traceback
below a message keeps its lines. JSON lines escape them as JSON does."""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime

import orjson

_RESERVED = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """time, level, logger, message, and any `extra=` fields, as one JSON line."""

    def format(self, record: logging.LogRecord) -> str:
        data = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        data.update({k: v for k, v in vars(record).items() if k not in _RESERVED})
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return orjson.dumps(data, default=str).decode()


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, 0x85]} | {0x2028: "\\u2028", 0x2029: "\\u2029"}
"""C0 controls, DEL, NEL and the Unicode line and paragraph separators: what may end a line."""


def escaped(text: str) -> str:
    """`text` with every character that could start a new log line written as an escape."""
    return text if text.isprintable() else text.translate(_CONTROL)


class TextFormatter(logging.Formatter):
    """`time LEVEL logger: message`, the message on one line whatever it holds."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escaped(record.message)
        return super().formatMessage(record)


def configure(log_format: str, level: str) -> None:
    """Route the emulator's and aiohttp's logs to stderr in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
