"""The recorded exchanges as the wire carried them (`exchanges.jsonl` beside `recorded.yaml`), for
`zenmux-emulator drift --recorded DIR`: each recorded request's path and body, and its answer's
status, header names (the content type's value only), JSON body or stream events, one JSON line
each, appended in the order recorded.

`recorded.yaml` keeps what a reply says in the emulator's terms; this keeps the answer's shape as
the upstream sent it (fields the emulator does not know, their types, the events' order), which is
what drift compares. Masked as the rules are: the caller's key and every `--redact` match; no
header value but the content type, no request header at all."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson

from zenmux_emulator.record.capture.exchange import Exchange
from zenmux_emulator.record.redact import Redactor

FILENAME = "exchanges.jsonl"


def _parsed(data: bytes | str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


def exchange_line(
    rule: str, path: str, body: Any, exchange: Exchange, redactor: Redactor, media_file: str | None = None
) -> dict[str, Any]:
    """One exchange as written: texts masked, header values dropped (the content type's kept); an
    answer that is not JSON and was kept as a media file (`media_file`) is named, not copied."""
    headers = {
        name.lower(): (value if name.lower() == "content-type" else "") for name, value in exchange.headers.items()
    }
    line: dict[str, Any] = {"rule": rule, "path": path, "body": body, "status": exchange.status, "headers": headers}
    if exchange.stream:
        line["events"] = [[event.name, _parsed(event.data)] for event in exchange.events]
    else:
        answer = _parsed(exchange.body)
        if media_file is not None and isinstance(answer, str):  # audio, an image: its file, not its bytes as text
            answer, line["answer_file"] = None, media_file
        line["answer"] = answer
    return dict(redactor.deep(line))


class ExchangeLog:
    """`exchanges.jsonl` in the recording folder, appended to after each recorded exchange."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILENAME
        self._lock = asyncio.Lock()

    async def add(self, line: dict[str, Any]) -> None:
        data = orjson.dumps(line) + b"\n"
        async with self._lock:
            await asyncio.to_thread(self._append, data)

    def _append(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("ab") as handle:
            handle.write(data)
