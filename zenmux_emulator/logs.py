"""Logging set-up: human-readable text, or one JSON object per line for log collectors."""

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


def configure(log_format: str, level: str) -> None:
    """Route the emulator's and aiohttp's logs to stderr in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
