"""The handler of requests no rule answers: forward to the upstream, pass the answer back, record it.

Failed calls (an error status, a broken stream, an unreachable upstream) are passed on to the
client as they came (an unreachable upstream as 502 in the face's envelope) and recorded only
with `--record-errors`. After a recording the scenario files are reloaded, so under
`--record-missing` the next identical request is answered from the new rule.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from zenmux_emulator.core.exchange import Exchange, Forwarded
from zenmux_emulator.core.neutral.recorded import Decoder
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.foundation.errors import ConnectionDropped, RequestRejected
from zenmux_emulator.record.capture.exchange import Exchange as Captured
from zenmux_emulator.record.decode.reply import decode, unreachable
from zenmux_emulator.record.exchanges import ExchangeLog, exchange_line
from zenmux_emulator.record.facts import match_of, rule_name
from zenmux_emulator.record.redact import Redactor, credentials
from zenmux_emulator.record.store import RecordingFile
from zenmux_emulator.record.upstream import Upstream, shown, unless_client_leaves
from zenmux_emulator.settings import Settings

log = logging.getLogger("emulator.record")


class Recorder:
    """Forwards, passes back and records; one per server."""

    def __init__(
        self,
        settings: Settings,
        registry: ScenarioRegistry,
        decoders: Mapping[str, Decoder],
        base_paths: Sequence[str],
    ) -> None:
        """`decoders`: each registered face's (`FaceSpec.decoder`); `base_paths`: theirs, dropped from
        an upstream URL copied from an SDK's settings."""
        assert settings.upstream is not None
        folder = settings.recording_folder()
        assert folder is not None
        self.decoders = decoders
        self.upstream = Upstream(settings.upstream, settings.max_body_bytes, base_paths, settings.upstream_key)
        self.shown = shown(self.upstream.base)
        self.file = RecordingFile(folder, self.shown)
        self.exchanges = ExchangeLog(folder) if settings.record_exchanges else None
        self.redactor = Redactor(settings.redact, [settings.upstream_key] if settings.upstream_key else ())
        self.record_errors = settings.record_errors
        self.registry = registry
        self.reload = bool(settings.scenarios)

    async def forward(self, ex: Exchange[Any], face: str, ask: NeutralRequest | None) -> Forwarded:
        """The upstream's answer to the request, and what its journal entry says of it (the
        endpoint writes that): what was passed back, whether it was recorded and as which rule."""
        request, sent = ex.request, ex.entry.sent_body  # a form's bytes, which the journal keeps as its fields
        body = sent if sent is not None else orjson.dumps(ex.entry.body)
        forwarded = await unless_client_leaves(request, self.upstream.forward(request, body))
        if forwarded is None:  # the client left first: the call was cancelled, nothing is recorded
            return Forwarded(None, client_gone=True, failure=ConnectionDropped("client gone"))
        exchange, response = forwarded
        facts = Forwarded(response)
        if exchange.stream:
            facts.sent = [
                (f"event: {e.name}\n" if e.name else "").encode() + b"data: " + e.data.encode() + b"\n\n"
                for e in exchange.events
            ]
            facts.events_sent = len(exchange.events)
        else:
            facts.sent = exchange.body
        facts.rule, warning = await self.record(ex, face, ask, exchange)
        if warning is not None:
            facts.warnings = (warning,)
        if response is None:
            kind, message = unreachable(self.shown, exchange.unreachable or "no answer")
            facts.failure = RequestRejected(502, kind, message)
        elif exchange.stream and exchange.broken:  # cut off as the upstream's was: no end of the chunked body
            facts.fault = "disconnect"
            if request.transport is not None:
                request.transport.close()
            if not response.prepared:
                facts.failure = ConnectionDropped("disconnect")
        elif exchange.stream:
            facts.client_gone = exchange.client_gone
        return facts  # a stream's end is written by aiohttp after the middleware, as `write_sse`'s is

    async def record(
        self, ex: Exchange[Any], face: str, ask: NeutralRequest | None, exchange: Captured
    ) -> tuple[str | None, str | None]:
        """Record the exchange as a rule: the rule's name, or (None and) the warning that says why not."""
        if ask is None:
            return None, (
                "recording: the emulator cannot read this request (its validation refuses it, "
                "or it continues a response stored upstream); forwarded, not recorded"
            )
        if exchange.client_gone:
            return None, "recording: the client left before the stream ended; not recorded"
        decoded = decode(self.decoders.get(face), exchange, ask.model, self.shown, ask.texts)
        if decoded.failed and not self.record_errors:
            return None, "recording: the upstream call failed; not recorded (see --record-errors)"
        request = ex.request
        redactor = self.redactor.with_secrets(credentials(request.headers))
        match = match_of(ask, redactor)
        reply = redactor.deep(decoded.reply)
        media_file = None
        if decoded.media is not None:  # audio, images: a file beside the recording, not base64 in it
            media_file = await self.file.keep_media(redactor.binary(decoded.media), reply["raw"]["content_type"])
            reply["raw"]["body_file"] = media_file
        name = await self.file.add(rule_name(match, redactor.text(ask.last_user)), match, reply)
        if self.exchanges is not None:
            await self.exchanges.add(exchange_line(name, request.path, ex.entry.body, exchange, redactor, media_file))
        log.info("recorded %s into %s", name, self.file.path)
        if self.reload:
            await self.registry.reload()
        return name, None

    async def start(self) -> None:
        await self.upstream.start()

    async def close(self) -> None:
        await self.upstream.close()
