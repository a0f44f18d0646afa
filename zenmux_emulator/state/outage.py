"""How a failing shared state shows: one warning when it stops answering (not one traceback per
request), one line when it answers again, and one answer for every failed request, whatever the
way Redis failed (refused, reset, timed out, loading): a 503 in the face's envelope."""

from __future__ import annotations

import logging

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.state.redis_server import shown

log = logging.getLogger("emulator.state")

STATE_UNAVAILABLE = "emulator_state_unavailable"
MESSAGE = "The emulator's shared state (--state) does not answer; the request can be retried once it is back"


class Outage:
    """The shared state's health as the requests found it: `failed` on each failure, `answered`
    on each success."""

    def __init__(self, url: str) -> None:
        self.url = shown(url)
        self.failures = 0

    def failed(self, exc: Exception) -> RequestRejected:
        """The 503 a request answers; the outage's one warning when it is the first failure."""
        if not self.failures:
            log.warning(
                "the shared state %s stopped answering (%s: %s); requests answer 503 %s until it is back",
                self.url,
                type(exc).__name__,
                exc,
                STATE_UNAVAILABLE,
            )
        self.failures += 1
        return RequestRejected(503, STATE_UNAVAILABLE, MESSAGE)

    def answered(self) -> None:
        if self.failures:
            log.info("the shared state %s answers again, after %d failed operations", self.url, self.failures)
            self.failures = 0
