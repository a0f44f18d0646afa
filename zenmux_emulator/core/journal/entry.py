"""One journal record: what a client sent and what it got back."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any, Protocol

import orjson

from zenmux_emulator.core.journal.redact import redact_headers

NO_MATCH = "emulator_no_match"


class Record(Protocol):
    """Something the journal keeps as it is and shows as a JSON object only when read."""

    def as_dict(self) -> dict[str, Any]: ...


class _NoneListed(list[Any]):
    """An empty list that refuses to grow: the one default every entry shares for the lists it
    gets only when there is something to list (it still compares equal to `[]`)."""

    def _refuse(self, *args: object) -> None:
        raise TypeError("an entry's default list is shared: assign a new list instead")

    append = extend = insert = __setitem__ = __iadd__ = _refuse  # type: ignore[assignment]


_NONE: Sequence[Any] = _NoneListed()


class JournalEntry:
    """A request from arrival to the last byte; filled in as the request moves along: it is made
    with what is known at arrival, and the rest is set as the request goes.

    Its fields are slots: one entry is made per request and the journal keeps thousands, and
    40 fields are more than CPython keeps beside an instance without a dict of its own (30), so
    without slots every entry carried a dict that each insert grew and each collection walked."""

    __slots__ = (
        "_body",
        "_headers",
        "_sent",
        "api",
        "arrived",
        "body_bytes",
        "client_gone",
        "dropped",
        "error_type",
        "events_sent",
        "fault",
        "finished",
        "first_byte",
        "kept",
        "kept_bytes",
        "method",
        "misbehaved",
        "near_misses",
        "path",
        "raw_body",
        "received_headers",
        "recorded",
        "reply_index",
        "request_id",
        "response",
        "routing",
        "rule",
        "scenario",
        "sent_at",
        "sent_body",
        "sent_headers",
        "seq",
        "session",
        "skipped",
        "started",
        "state_after",
        "state_before",
        "status",
        "stream",
        "time",
        "unmet_expectations",
        "unscripted",
        "warnings",
    )

    def __init__(
        self,
        seq: int,
        request_id: str,
        time: float,
        method: str,
        path: str,
        received_headers: Mapping[str, str],
        arrived: float = 0.0,
    ) -> None:
        self.seq = seq
        self.request_id = request_id
        self.time = time
        self.method = method
        self.path = path
        self.received_headers = received_headers
        """The request's headers as they came, secrets included: read `headers`, which masks them."""
        self.arrived = arrived
        """Wall-clock arrival (the `time` above follows the emulator's clock, which tests may freeze)."""
        self.api: str | None = None
        """The face that answered (`chat`, …); None for the control API, the models list and unknown paths."""
        self.session: str | None = None
        self.warnings: Sequence[str] = _NONE
        """What the request did that the emulator accepted but ignored or doubted (`warn` adds)."""
        self.near_misses: Sequence[dict[str, Any]] = _NONE
        """The rules that nearly answered an unmatched request (set, never changed in place)."""
        self.unscripted = False
        """Answered by a face that answers without rules (embeddings), none of which could answer it: not a miss."""
        self.unmet_expectations: Sequence[str] = _NONE
        """The answering rule's expectations the request did not meet (set, never changed in place)."""
        self.raw_body: bytes | None = None
        """The request's JSON bytes as received, until `body` is first read and decodes them (then
        None): bytes are one object the garbage collector never scans, where the decoded body is a
        tree of them, and most entries are never read."""
        self.sent_body: bytes | None = None
        """A request's bytes as received when `body` keeps another view of them (a multipart form's
        fields), set only when the server records (`--record-missing`): what the recorder forwards,
        then let go."""
        self.rule: str | None = None
        self.reply_index: int | None = None
        self.scenario: str | None = None
        """The answering rule's scenario (`scenario`), with its state before and after the answer."""
        self.state_before: str | None = None
        self.state_after: str | None = None
        self.sent_headers: Mapping[str, str] | None = None
        """The response's headers as they went; `response_headers` is their JSON-ready copy."""
        self.status: int | None = None
        self.error_type: str | None = None
        self.stream: bool = False
        self.response: bytes | Iterable[bytes] | None = None
        """A JSON body, or a stream's events (made again when read: write/plan.py `Events`)."""
        self.events_sent: int | None = None
        self.client_gone: bool = False
        self.fault: str | None = None
        """A scripted fault carried out: before the response (delay, hang, close, reset) or in the stream."""
        self.misbehaved: Record | None = None
        """The fault of the misbehaviour catalogue the reply was made wrong with (fault, variant, source)."""
        self.routing: Sequence[Record] = ()
        """Every provider attempt: model, provider, outcome (`ok` or the error), latency."""
        self.dropped: bool = False
        """The connection was closed or reset before any response: `status` stays empty."""
        self.started: float = 0.0
        """`time.perf_counter()` when the middleware began the request."""
        self.finished: float | None = None
        """`time.perf_counter()` when the answer was given (None while the request is in flight)."""
        self.first_byte: float | None = None
        """`time.perf_counter()` when the response's headers went (None: no response was sent)."""
        self.sent_at: Iterable[float] = _NONE
        """`time.perf_counter()` as each SSE event was written (a stream's timeline; set, never changed in place),
        plus the scripted waits a time scale under 1 skipped until then: the timeline keeps the scripted offsets."""
        self.skipped: float = 0.0
        """Seconds of scripted waits (provider latency, a delay fault) a time scale did not wait before the answer."""
        self.body_bytes: int = 0
        """The request body's JSON bytes as received (or its summary's, past the journal's limit)."""
        self.kept_bytes: int = 0
        """What the entry holds in the journal once finished: `body_bytes` plus the response's bytes."""
        self.kept: bool = False
        """In the journal's ring (its bytes counted there when it finishes)."""
        self.recorded: bool = False
        """Forwarded to the upstream and written to a scenario file (`record`, `--record-missing`)."""
        self._headers: dict[str, str] | None = None
        self._body: Any = None
        self._sent: dict[str, str] | None = None

    @property
    def duration_ms(self) -> float | None:
        """How long the answer took, in milliseconds (None while the request is in flight)."""
        return None if self.finished is None else round((self.finished - self.started) * 1000, 3)

    @property
    def first_byte_ms(self) -> float | None:
        """How long the first byte of the answer (its headers) took, in milliseconds: a JSON answer's
        go once the handler is done, so no later than `duration_ms` (which it is when read before they go)."""
        if self.first_byte is None:
            return self.duration_ms if self.status is not None and not self.stream else None
        at = self.first_byte if self.finished is None else min(self.first_byte, self.finished)
        return round((at - self.started) * 1000, 3)

    def event_offsets_ms(self) -> list[float]:
        """Each SSE event's offset from the request's arrival, in milliseconds (none for a JSON reply)."""
        return [round((at - self.started) * 1000, 3) for at in self.sent_at]

    def warn(self, warnings: Iterable[str]) -> None:
        """Add warnings (a new list: the default one is shared)."""
        self.warnings = [*self.warnings, *warnings]

    def __repr__(self) -> str:
        return f"<JournalEntry {self.seq} {self.method} {self.path} {self.status}>"

    @property
    def body(self) -> Any:
        """The request's JSON body (or its summary, past the journal's limit)."""
        raw = self.raw_body  # once: the journal file's thread may read the entry too
        if raw is not None:  # decoded once, and the bytes let go: never both held
            self._body = orjson.loads(raw)
            self.raw_body = None  # after the body: a reader that sees None finds the body
        return self._body

    @body.setter
    def body(self, value: Any) -> None:
        self._body, self.raw_body = value, None

    @property
    def headers(self) -> dict[str, str]:
        """The request's headers with every credential masked (worked out on first read: most
        entries are never read)."""
        if self._headers is None:
            self._headers = redact_headers(self.received_headers)
        return self._headers

    @property
    def response_headers(self) -> dict[str, str]:
        """The response's headers as a plain dict, made when read (most entries never are), or
        as `settle()` copied them."""
        if self._sent is not None:
            return self._sent
        # str(): aiohttp's case-insensitive keys are a str subclass orjson refuses
        return {str(k): v for k, v in (self.sent_headers or {}).items()}

    def settle(self) -> None:
        """Copy the header views now, on the event loop, before another thread reads the entry:
        the response's headers are a live aiohttp object the loop may still be adding to."""
        self._sent = {str(k): v for k, v in (self.sent_headers or {}).items()}
        self._headers = redact_headers(self.received_headers)

    @property
    def unmatched(self) -> bool:
        """A face's request that passed the checks but no rule answered: it got the default reply,
        or 404 `emulator_no_match` in strict mode (not a face's own answer: `unscripted`)."""
        return (
            self.api is not None and self.rule is None and self.error_type in (None, NO_MATCH) and not self.unscripted
        )

    def sent_events(self) -> list[bytes]:
        """The SSE events the client got, in order (none for a JSON reply)."""
        if self.response is None or isinstance(self.response, bytes):
            return []
        return list(islice(self.response, self.events_sent))

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view; the response is decoded (SSE events as text) only when asked."""
        response: Any = None
        if isinstance(self.response, bytes):
            try:
                response = orjson.loads(self.response)
            except orjson.JSONDecodeError:
                response = self.response.decode("utf-8", "replace")
        elif self.response is not None:
            response = [e.decode("utf-8", "replace") for e in self.sent_events()]
        return {
            "seq": self.seq,
            "request_id": self.request_id,
            "time": self.time,
            "method": self.method,
            "path": self.path,
            "api": self.api,
            "headers": self.headers,
            "session": self.session,
            "body": self.body,
            "rule": self.rule,
            "reply_index": self.reply_index,
            "scenario": self.scenario,
            "state_before": self.state_before,
            "state_after": self.state_after,
            "near_misses": list(self.near_misses),
            "unscripted": self.unscripted,
            "warnings": self.warnings,
            "unmet_expectations": list(self.unmet_expectations),
            "status": self.status,
            "error_type": self.error_type,
            "response_headers": self.response_headers,
            "arrived": self.arrived,
            "stream": self.stream,
            "response": response,
            "events_sent": self.events_sent,
            "client_gone": self.client_gone,
            "fault": self.fault,
            "misbehaved": None if self.misbehaved is None else self.misbehaved.as_dict(),
            "dropped": self.dropped,
            "routing": [attempt.as_dict() for attempt in self.routing],
            "duration_ms": self.duration_ms,
            "first_byte_ms": self.first_byte_ms,
            "event_offsets_ms": self.event_offsets_ms(),
            "worker": os.getpid(),
            "bytes": self.kept_bytes,
            "recorded": self.recorded,
        }
